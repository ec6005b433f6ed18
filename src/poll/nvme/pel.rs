//! Reading the Persistent Event Log (0Dh) and counting each event once.
//!
//! # Reading (NVMe Base 2.0 §5.16.1.14)
//! 1. Get Log Page with LSP 1 (establish a reporting context and read):
//!    the 512-byte header, which gives the Total Log Length. A context
//!    left over (a poll that died between its commands) makes a new
//!    establish fail with a Command Sequence Error in nvme-cli's
//!    experience: the poller then releases it and establishes once more.
//! 2. The rest of the log with LSP 0 (read within the context), in chunks
//!    at increasing offsets (LPO) of at most the controller's transfer size
//!    (MDTS) and 64 KiB, when Identify LPA bit 2 says Get Log Page has
//!    extended data (offsets); without it, in one command from offset 0
//!    of at most what one command can carry (NUMDL alone: 256 KiB).
//! 3. The header again: its Generation Number differing from the first
//!    means the context was lost meanwhile and the log read is not one
//!    log; it is a counted failure and read anew at the next refresh (as
//!    nvme-cli checks since "PEL need to check gen number").
//! 4. LSP 2 releases the context, whatever happened in between.
//!
//! At most [`MAX_PEL_BYTES`] of the log are read (the newest events past
//! that are not seen; logged once). This runs once per identity refresh.
//!
//! # Counting each event once
//! Events carry no sequence number, and the log drops its oldest events
//! when full, so an event's position alone is not its identity. The
//! marker of what was counted is one value per drive, [`PelMark`]: the
//! position and FNV-1a fingerprint of the newest event counted. The next
//! read counts what follows that event: at the same position if the log
//! only grew, else where its fingerprint is found (the log wrapped), else
//! every event (the log was cleared or wrapped past it). The marker and
//! counts live in the poller; the marker is served in the reading
//! ([`PelSummary::mark`]) and, given [`PelMarks`], taken back from where
//! it was kept before the first count, so a restart counts only events
//! newer than it. Without one, every event still in the log is counted
//! once again after a restart, from zero.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{NvmePoller, RawSink};
use crate::device::{FetchError, NvmeRequest};
use crate::nvme::pel::{PelEvent, PelHeader, PersistentEventLog};
use crate::nvme::pel_events::PelEventType;
use crate::nvme::{self, IdCtrl, PEL_HEADER_LEN};
use crate::poll::PollOutcome;
use crate::poll::source::Source;
use crate::reading::nvme_depth::{PelSummary, TimelineEvent};

/// The most of the log read (also the most a replay reads of a file).
pub const MAX_PEL_BYTES: usize = 1 << 20;
/// The largest chunk read with an offset.
const CHUNK: usize = 64 * 1024;
/// What one Get Log Page can carry without extended data: NUMDL's 65536
/// dwords.
const NO_LPO_MAX: usize = 256 * 1024;
/// Events in the timeline (newest first).
pub const TIMELINE_LEN: usize = 10;

pub use crate::reading::nvme_depth::PelMark;

/// Where a restarted exporter finds the mark it kept for a drive, by the
/// drive's serial and model (Identify Controller, trimmed): its state
/// file. Asked before counting whenever nothing has been counted yet (the
/// first read after a start or a poller restart); `None`: count every event.
pub type PelMarks = Arc<dyn Fn(&str, &str) -> Option<PelMark> + Send + Sync>;

/// What has been counted of one drive's log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PelCounter {
    pub mark: Option<PelMark>,
    counts: BTreeMap<PelEventType, u64>,
    newest: BTreeMap<PelEventType, f64>,
}

/// Where the events not yet counted start in `events`, given `mark`.
pub fn first_new(events: &[PelEvent], mark: Option<PelMark>) -> usize {
    let Some(m) = mark else {
        return 0;
    };
    let at = usize::try_from(m.position).unwrap_or(usize::MAX);
    if events
        .get(at)
        .is_some_and(|e| e.fingerprint == m.fingerprint)
    {
        return at + 1;
    }
    events
        .iter()
        .rposition(|e| e.fingerprint == m.fingerprint)
        .map_or(0, |i| i + 1)
}

impl PelCounter {
    /// Counts the events of `log` not counted before and moves the mark to
    /// its newest event; the summary of what is known now.
    pub fn update(&mut self, log: &PersistentEventLog) -> PelSummary {
        let from = first_new(&log.events, self.mark);
        for e in log.events.get(from..).unwrap_or_default() {
            *self.counts.entry(e.event_type()).or_default() += 1;
        }
        for e in &log.events {
            if let Some(t) = e.timestamp.unix_seconds() {
                let newest = self.newest.entry(e.event_type()).or_insert(t);
                *newest = newest.max(t);
            }
        }
        self.mark = log.events.last().map(|e| PelMark {
            position: e.position,
            fingerprint: e.fingerprint,
        });
        self.summary(log)
    }

    fn summary(&self, log: &PersistentEventLog) -> PelSummary {
        let h = &log.header;
        let counts = PelEventType::ALL
            .into_iter()
            .filter_map(|t| {
                let n = self.counts.get(&t).copied().unwrap_or(0);
                let listed = t.code().is_some_and(|c| h.supports(c));
                (n > 0 || listed).then_some((t, n))
            })
            .collect();
        let timeline = log
            .events
            .iter()
            .rev()
            .take(TIMELINE_LEN)
            .map(|e| TimelineEvent {
                position: e.position,
                kind: e.event_type(),
                at: e.timestamp.unix_seconds(),
                since_reset_ms: e
                    .timestamp
                    .unix_seconds()
                    .is_none()
                    .then(|| e.timestamp.millis()),
                detail: e.detail.describe(),
            })
            .collect();
        PelSummary {
            counts,
            newest: self.newest.iter().map(|(&t, &s)| (t, s)).collect(),
            timeline,
            events_in_log: log.events.len() as u32,
            generation: h.generation,
            mark: self.mark,
        }
    }
}

/// A read of the log: `lsp`, `len` bytes from `offset`.
fn pel_req(lsp: u8, offset: u64, len: usize) -> NvmeRequest {
    NvmeRequest::Log {
        lid: nvme::LID_PERSISTENT_EVENT,
        len,
        uuid_index: 0,
        lsp,
        lsi: 0,
        offset,
        rae: true,
    }
}

impl NvmePoller {
    pub(super) fn pel_page(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, id: &IdCtrl) {
        let source = Source::PersistentEventLog;
        if self.tracker.is_unsupported(source) {
            return;
        }
        let (read, release) = self.read_pel(id);
        let Some(bytes) = self.tracker.fetched(out, source, read) else {
            // the establish never succeeded, or a read failed: the release
            // was still sent; its own failure adds nothing to say
            return;
        };
        // the whole log, as a dump holds it
        let whole = pel_req(nvme::PEL_ESTABLISH, 0, bytes.len());
        sink(whole, &bytes);
        let parsed = PersistentEventLog::parse(&bytes);
        let log = self.tracker.decoded(out, source, whole, parsed);
        if let Err(e) = release {
            let msg = format!(
                "{}: releasing the persistent event log context: {e}",
                self.src.origin()
            );
            self.tracker.fail(out, source, msg);
        }
        let Some(log) = log else {
            return;
        };
        if log.missing > 0 {
            let note = format!(
                "persistent event log: {} of its {} events are not whole in the {} bytes read",
                log.missing,
                log.header.total_events,
                bytes.len()
            );
            self.tracker.note_once(source, &note);
        }
        if self.pel.mark.is_none() {
            self.pel.mark = self
                .pel_marks
                .as_ref()
                .and_then(|m| m(&id.serial, &id.model));
        }
        self.pages.pel = Some(self.pel.update(&log));
    }

    /// The log (header and events), and how the release went.
    fn read_pel(&mut self, id: &IdCtrl) -> (Result<Vec<u8>, FetchError>, Result<(), FetchError>) {
        let head = pel_req(nvme::PEL_ESTABLISH, 0, PEL_HEADER_LEN);
        let header = match self.src.fetch(head) {
            Err(FetchError::Failed(_)) => {
                // a context left over: release it and establish once more
                let _ = self
                    .src
                    .fetch(pel_req(nvme::PEL_RELEASE, 0, PEL_HEADER_LEN));
                self.src.fetch(head)
            }
            other => other,
        };
        let header = match header {
            Ok(h) => h,
            Err(e) => return (Err(e), Ok(())),
        };
        let read = self.read_rest(id, header);
        let release = self
            .src
            .fetch(pel_req(nvme::PEL_RELEASE, 0, PEL_HEADER_LEN))
            .map(drop);
        (read, release)
    }

    /// The header and everything after it, up to the total log length.
    fn read_rest(&mut self, id: &IdCtrl, mut log: Vec<u8>) -> Result<Vec<u8>, FetchError> {
        let origin = self.src.origin();
        let first =
            PelHeader::parse(&log).map_err(|e| FetchError::Failed(format!("{origin}: {e}")))?;
        let total = usize::try_from(first.total_length).unwrap_or(usize::MAX);
        if total > MAX_PEL_BYTES {
            let note = format!(
                "persistent event log is {total} bytes; only the first {MAX_PEL_BYTES} are read, newer events are not seen"
            );
            self.tracker.note_once(Source::PersistentEventLog, &note);
        }
        let want = total.min(MAX_PEL_BYTES);
        log.truncate(PEL_HEADER_LEN);
        if want <= PEL_HEADER_LEN {
            return Ok(log);
        }
        let chunk = id.max_transfer_bytes().unwrap_or(CHUNK).clamp(4096, CHUNK);
        if id.lpa_extended_data() {
            while log.len() < want {
                let len = dwords(chunk.min(want - log.len()));
                let bytes = self
                    .src
                    .fetch(pel_req(nvme::PEL_READ, log.len() as u64, len))?;
                if bytes.is_empty() {
                    break;
                }
                log.extend_from_slice(&bytes);
            }
        } else {
            let len = dwords(
                want.min(NO_LPO_MAX)
                    .min(id.max_transfer_bytes().unwrap_or(NO_LPO_MAX)),
            );
            log = self.src.fetch(pel_req(nvme::PEL_READ, 0, len))?;
        }
        log.truncate(want);
        let again = self.src.fetch(pel_req(nvme::PEL_READ, 0, PEL_HEADER_LEN))?;
        let again =
            PelHeader::parse(&again).map_err(|e| FetchError::Failed(format!("{origin}: {e}")))?;
        if again.generation != first.generation {
            return Err(FetchError::Failed(format!(
                "{origin}: persistent event log generation changed from {} to {} while it was read (context lost); read again at the next identity refresh",
                first.generation, again.generation
            )));
        }
        Ok(log)
    }
}

/// `len` rounded up to whole dwords (Get Log Page transfers dwords).
fn dwords(len: usize) -> usize {
    len.div_ceil(4) * 4
}

#[cfg(test)]
mod tests;
