//! The pages an NVMe drive says about itself beyond SMART: the endurance
//! groups' information (09h) every poll, once their list is known; the
//! firmware slots (03h), the controller-initiated telemetry header (08h)
//! and the persistent event log (0Dh, in [`super::pel`]) with each
//! identity refresh, as firmware, telemetry captures and events change far
//! more slowly than wear. Each is asked only where Identify says the
//! controller has it (CTRATT bit 4 endurance groups, LPA bit 3 telemetry,
//! LPA bit 4 persistent event log); log 03h is mandatory in NVMe, yet a
//! drive answering that it lacks it is taken at its word.
//!
//! Every read sets RAE (Retain Asynchronous Event): the exporter never
//! clears an event the kernel or a vendor's tool waits on (the firmware
//! activation notice clears with a read of 03h, a telemetry capture's with
//! a read of 08h).

use std::collections::BTreeMap;

use super::{NvmePoller, RawSink};
use crate::device::{FetchError, NvmeRequest};
use crate::nvme::{self, EnduranceGroupLog, FwSlotLog, IdCtrl, TelemetryCtrlHeader};
use crate::poll::PollOutcome;
use crate::poll::source::Source;

/// At most this many endurance groups are read per poll (each is one
/// command): drives have one or a few; a list or ENDGIDMAX that claims
/// thousands must not turn a poll into thousands of commands.
pub const MAX_GROUPS: usize = 16;

/// A 512-byte log page read with RAE set.
pub(super) fn retained(lid: u8, lsi: u16) -> NvmeRequest {
    NvmeRequest::Log {
        lid,
        len: 512,
        uuid_index: 0,
        lsp: 0,
        lsi,
        offset: 0,
        rae: true,
    }
}

impl NvmePoller {
    pub(super) fn depth_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, refresh: bool) {
        let Some(id) = self.pages.id.clone() else {
            return;
        };
        if refresh {
            self.group_ids = self.group_ids(out, sink, &id);
            let req = retained(nvme::LID_FW_SLOT, 0);
            let fw = self.page(out, sink, Source::FwSlotLog, req, FwSlotLog::parse);
            super::keep(&mut self.pages.fw_slots, fw);
            if id.supports_telemetry() {
                let req = retained(nvme::LID_TELEMETRY_CTRL, 0);
                let parse = TelemetryCtrlHeader::parse;
                let t = self.page(out, sink, Source::TelemetryLog, req, parse);
                super::keep(&mut self.pages.telemetry, t);
            }
            if id.supports_persistent_event_log() {
                self.pel_page(out, sink, &id);
            }
        }
        self.endurance_groups(out, sink);
    }

    /// The groups to read: the Endurance Group List (CNS 19h), else every
    /// identifier up to ENDGIDMAX (a dump holds no list); none without
    /// CTRATT bit 4. At most [`MAX_GROUPS`].
    fn group_ids(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, id: &IdCtrl) -> Vec<u16> {
        if !id.supports_endurance_groups() {
            return Vec::new();
        }
        let req = NvmeRequest::EnduranceGroupList;
        let parse = nvme::endurance_group_list::parse;
        let mut ids = match self.page(out, sink, Source::EnduranceGroupList, req, parse) {
            Some(ids) if !ids.is_empty() => ids,
            _ => (1..=id.endgidmax).take(MAX_GROUPS).collect(),
        };
        if ids.len() > MAX_GROUPS {
            let note = format!(
                "{} endurance groups listed; only the first {MAX_GROUPS} are read",
                ids.len()
            );
            self.tracker.note_once(Source::EnduranceGroupList, &note);
            ids.truncate(MAX_GROUPS);
        }
        ids
    }

    /// Log 09h for every group. A group the controller says it does not
    /// have is left out (asked again with the next refresh); one that fails
    /// keeps its last values; the page is unsupported only when every
    /// group is.
    fn endurance_groups(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let source = Source::EnduranceGroupLog;
        if self.group_ids.is_empty() || self.tracker.is_unsupported(source) {
            return;
        }
        let mut groups: BTreeMap<u16, EnduranceGroupLog> = self
            .pages
            .endurance_groups
            .take()
            .unwrap_or_default()
            .into_iter()
            .collect();
        groups.retain(|g, _| self.group_ids.contains(g));
        let (mut read, mut lacking) = (0, Vec::new());
        for g in self.group_ids.clone() {
            let req = retained(nvme::LID_ENDURANCE_GROUP, g);
            match self.src.fetch(req) {
                Ok(bytes) => {
                    sink(req, &bytes);
                    let decoded = EnduranceGroupLog::parse(&bytes);
                    if let Some(log) = self.tracker.decoded(out, source, req, decoded) {
                        groups.insert(g, log);
                        read += 1;
                    }
                }
                Err(FetchError::Unsupported(why)) => {
                    groups.remove(&g);
                    lacking.push(why);
                }
                Err(e) => {
                    self.tracker.fetched::<()>(out, source, Err(e));
                }
            }
        }
        if read == 0 && lacking.len() == self.group_ids.len() {
            self.tracker.unsupported(out, source, &lacking.join("; "));
        } else if let Some(why) = lacking.first() {
            let note = format!("an endurance group is not there: {why}");
            self.tracker.note_once(source, &note);
        }
        self.pages.endurance_groups = (!groups.is_empty()).then(|| groups.into_iter().collect());
    }
}

#[cfg(test)]
mod tests;
