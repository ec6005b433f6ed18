//! Polling an NVMe controller: which pages, in which order, and what a
//! failure of each means. Shared by live drives, replayed dumps and `dump`.

mod depth;
pub mod pel;

use super::refresh::{self, Refresh};
use super::source::Source;
use super::tracker::Tracker;
use super::{PollError, PollOutcome, Poller, keep, unprivileged};
use crate::device::{NvmeRequest, NvmeSource};
use crate::nvme::{self, IdCtrl, identify_ns::IdNs, uuid_list};
use crate::reading::Reading;
use crate::reading::nvme::{NvmePages, identity, reading};

/// The namespace whose identifiers name the drive (`wwn`).
const WWN_NSID: u32 = 1;

/// Called with every page's raw bytes as it is fetched (used by `dump`).
pub type RawSink<'a> = &'a mut dyn FnMut(NvmeRequest, &[u8]);

/// Which pages a poll re-reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollPolicy {
    /// Re-read Identify Controller and Namespace every this many polls
    /// (identity changes only with a firmware update); 1 = every poll.
    /// Pages found unsupported are asked again with each refresh.
    pub identity_every: u64,
    /// Re-read the error log only when the SMART log's error count moved.
    pub error_log_on_change: bool,
}

impl PollPolicy {
    /// Every page on every poll: replay folders (whose files a test may
    /// change between polls) and `dump`.
    pub const EVERY_PAGE: Self = Self {
        identity_every: 1,
        error_log_on_change: false,
    };
    /// Live drives: the SMART log (and OCP, self-test, endurance group
    /// logs) every poll, identity (and firmware slots, the telemetry
    /// header, the persistent event log) every 10th poll, the error log
    /// when its count moved. A steady-state poll of a plain NVMe drive is
    /// then one admin command; a drive with endurance groups adds one per
    /// group.
    pub const LIVE: Self = Self {
        identity_every: refresh::LIVE_EVERY,
        error_log_on_change: true,
    };
}

/// Polls one NVMe controller through any [`NvmeSource`].
pub struct NvmePoller {
    src: Box<dyn NvmeSource>,
    policy: PollPolicy,
    /// Which polls refresh identity ([`Refresh`]).
    refresh: Refresh,
    /// Page support and logged failures.
    tracker: Tracker,
    /// OCP UUID index, once known for this identity refresh (0: the
    /// controller has no list, or its list lacks the OCP UUID).
    ocp_uuid_index: Option<u8>,
    /// Each page's newest good decode; a page that fails this poll keeps
    /// its previous value, a page found unsupported is dropped.
    pages: NvmePages,
    /// The SMART error count the cached error log belongs to.
    error_log_count: Option<u128>,
    /// The endurance groups to read log 09h for, found at each identity
    /// refresh (empty: the controller has none).
    group_ids: Vec<u16>,
    /// What was counted of the persistent event log so far.
    pel: pel::PelCounter,
    /// Where the event log's mark was kept across restarts, if anywhere.
    pel_marks: Option<pel::PelMarks>,
}

impl NvmePoller {
    pub fn new(src: Box<dyn NvmeSource>, policy: PollPolicy) -> Self {
        let tracker = Tracker::new(src.origin());
        Self {
            src,
            policy,
            refresh: Refresh::every(policy.identity_every),
            tracker,
            ocp_uuid_index: None,
            pages: NvmePages::default(),
            error_log_count: None,
            group_ids: Vec::new(),
            pel: pel::PelCounter::default(),
            pel_marks: None,
        }
    }

    /// Takes the persistent event log's mark from `marks` before its first
    /// count (see [`pel::PelMarks`]).
    pub fn with_pel_marks(mut self, marks: pel::PelMarks) -> Self {
        self.pel_marks = Some(marks);
        self
    }

    /// One poll, handing every fetched page's bytes to `sink`.
    pub fn poll_with(&mut self, sink: RawSink<'_>) -> PollOutcome {
        let mut out = PollOutcome::default();
        let refresh = self.refresh.due(self.pages.id.is_some());
        if refresh {
            // The slow schedule of the page-support model: whatever was
            // unsupported is asked again, and the OCP index found again.
            self.tracker.recheck();
            self.ocp_uuid_index = None;
            self.identity_pages(&mut out, sink);
            if out.gone {
                out.pages = self.tracker.beliefs();
                return out;
            }
        }
        let smart = log(nvme::LID_SMART, nvme::SMART_LOG_LEN, 0);
        let smart = self.page(
            &mut out,
            sink,
            Source::SmartLog,
            smart,
            nvme::SmartLog::parse,
        );
        out.up = smart.is_some();
        keep(&mut self.pages.smart, smart);
        if out.gone {
            // The device went during the poll: the other pages would fail
            // the same way, one warning each.
            out.pages = self.tracker.beliefs();
            return out;
        }
        self.log_pages(&mut out, sink);
        self.depth_pages(&mut out, sink, refresh);
        self.forget_unsupported();
        let p = &self.pages;
        out.identity =
            p.id.as_ref()
                .map(|id| identity(id, p.wwn.as_ref().and_then(Option::as_deref)));
        if p.id.is_some() || p.smart.is_some() {
            out.reading = Some(reading(p));
        }
        out.pages = self.tracker.beliefs();
        out
    }

    fn identity_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let req = NvmeRequest::IdentifyController;
        let id = self.page(out, sink, Source::Identify, req, IdCtrl::parse);
        keep(&mut self.pages.id, id);
        if out.gone {
            return;
        }
        let ns = NvmeRequest::IdentifyNamespace { nsid: WWN_NSID };
        let wwn = self.page(out, sink, Source::IdentifyNs, ns, IdNs::parse);
        keep(&mut self.pages.wwn, wwn.map(|ns| ns.wwn()));
    }

    /// OCP, error and self-test logs.
    fn log_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let id = self.pages.id.clone();
        if let Some(index) = self.ocp_index(out, sink, id.as_ref()) {
            self.ocp_page(out, sink, index);
        }
        let count = self.pages.smart.as_ref().map(|s| s.error_log_entries);
        let unchanged = self.error_log_count.is_some() && self.error_log_count == count;
        if !(self.policy.error_log_on_change && unchanged) {
            let entries = id.as_ref().map_or(1, IdCtrl::error_log_entries) as usize;
            let req = log(nvme::LID_ERROR, entries * nvme::ERROR_LOG_ENTRY_LEN, 0);
            let errors = self.page(out, sink, Source::ErrorLog, req, nvme::ErrorLog::parse);
            self.error_log_count = errors.as_ref().and(count);
            keep(&mut self.pages.error_log, errors);
        }
        if id.as_ref().is_some_and(IdCtrl::supports_self_test) {
            let req = log(nvme::LID_SELF_TEST, nvme::SELF_TEST_LOG_LEN, 0);
            let tests = self.page(
                out,
                sink,
                Source::SelfTestLog,
                req,
                nvme::SelfTestLog::parse,
            );
            keep(&mut self.pages.self_test, tests);
        }
    }

    /// The C0h page, judged by its own proof: a page whose GUID is not the
    /// OCP one is another vendor's C0h page ("not OCP": unsupported, not an
    /// error); one with the OCP GUID that fails to decode is an error.
    fn ocp_page(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, index: u8) {
        if self.tracker.is_unsupported(Source::OcpLog) {
            return;
        }
        let req = log(nvme::LID_OCP_SMART, nvme::OCP_SMART_LOG_LEN, index);
        let Some(bytes) = self
            .tracker
            .fetched(out, Source::OcpLog, self.src.fetch(req))
        else {
            return;
        };
        sink(req, &bytes);
        if let Some(guid) = nvme::ocp::foreign_guid(&bytes) {
            let why = format!(
                "log page c0h (uuid index {index}) is not the ocp page: guid {guid} (bytes 496..512)"
            );
            self.tracker.unsupported(out, Source::OcpLog, &why);
            return;
        }
        let ocp = self
            .tracker
            .decoded(out, Source::OcpLog, req, nvme::OcpSmartLog::parse(&bytes));
        if let Some(o) = &ocp {
            if o.throttle_level().is_none() {
                self.tracker.note_once(
                    Source::OcpLog,
                    &format!(
                        "current throttling status {:02x}h is a reserved value; no throttling series",
                        o.current_throttling_status
                    ),
                );
            }
        }
        keep(&mut self.pages.ocp, ocp);
    }

    /// Drops the cached decode of every page found unsupported.
    fn forget_unsupported(&mut self) {
        let (t, p) = (&self.tracker, &mut self.pages);
        t.forget_if_unsupported(Source::OcpLog, &mut p.ocp);
        t.forget_if_unsupported(Source::ErrorLog, &mut p.error_log);
        t.forget_if_unsupported(Source::SelfTestLog, &mut p.self_test);
        t.forget_if_unsupported(Source::IdentifyNs, &mut p.wwn);
        t.forget_if_unsupported(Source::EnduranceGroupLog, &mut p.endurance_groups);
        t.forget_if_unsupported(Source::FwSlotLog, &mut p.fw_slots);
        t.forget_if_unsupported(Source::TelemetryLog, &mut p.telemetry);
        t.forget_if_unsupported(Source::PersistentEventLog, &mut p.pel);
    }

    /// The UUID index to read C0h with, located as nvme-cli's OCP plugin
    /// does (`ocp_get_uuid_index`, then `get_c0_log_page`): the OCP UUID's
    /// index when the controller's UUID list holds it, else index 0 — with
    /// no list, or a list without the OCP UUID — and the page's GUID then
    /// decides whether it is the OCP page. `None` only when the list could
    /// not be read this time (asked again next poll).
    fn ocp_index(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        id: Option<&IdCtrl>,
    ) -> Option<u8> {
        if self.tracker.is_unsupported(Source::OcpLog) {
            return None;
        }
        if let Some(index) = self.ocp_uuid_index {
            return Some(index);
        }
        let id = id?;
        let index = if !id.supports_uuid_list() {
            0
        } else {
            let req = NvmeRequest::UuidList;
            match self.page(out, sink, Source::UuidList, req, uuid_list::ocp_uuid_index) {
                Some(index) => ocp_index_from_list(index),
                // A list the drive (or dump) does not have: index 0.
                None if self.tracker.is_unsupported(Source::UuidList) => 0,
                // Failed this time: try again next poll.
                None => return None,
            }
        };
        self.ocp_uuid_index = Some(index);
        Some(index)
    }

    /// Fetches and decodes one page, recording what went wrong.
    fn page<T, E: std::fmt::Display>(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        source: Source,
        req: NvmeRequest,
        parse: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Option<T> {
        if self.tracker.is_unsupported(source) {
            return None;
        }
        let bytes = self.tracker.fetched(out, source, self.src.fetch(req))?;
        sink(req, &bytes);
        self.tracker.decoded(out, source, req, parse(&bytes))
    }
}

impl NvmePoller {
    /// What sysfs shows beside the pages, read on the poll's own schedule
    /// (never by a scrape): for pages the exporter was refused, what it
    /// serves instead ([`unprivileged`]); the PCIe link and AER counters of
    /// the controller polled. An AER file that does not parse is counted
    /// (`pcie`) and logged once; the drive stays up.
    fn sysfs_view(&mut self, out: &mut PollOutcome) {
        let src = &mut self.src;
        unprivileged::serve(out, &mut self.tracker, || src.hwmon());
        let Some((pcie, errors)) = self.src.pcie() else {
            return;
        };
        for e in errors {
            let message = format!("{}: {e}", self.src.origin());
            self.tracker.warn_once(Source::Pcie, &message);
            out.errors.push(PollError {
                source: Source::Pcie,
                message,
            });
        }
        out.reading.get_or_insert_with(Reading::default).pcie = Some(pcie);
    }
}

/// The index C0h is read with, given where the UUID list holds the OCP
/// UUID: that entry's index, else 0 (nvme-cli reads C0h with index 0 when
/// the OCP UUID is not listed, and relies on the page's GUID).
pub fn ocp_index_from_list(ocp_entry: Option<u8>) -> u8 {
    ocp_entry.unwrap_or(0)
}

fn log(lid: u8, len: usize, uuid_index: u8) -> NvmeRequest {
    NvmeRequest::Log {
        lid,
        len,
        uuid_index,
        lsp: 0,
        lsi: 0,
        offset: 0,
        rae: false,
    }
}

impl Poller for NvmePoller {
    fn origin(&self) -> String {
        self.src.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        let mut out = self.poll_with(&mut |_, _| {});
        self.sysfs_view(&mut out);
        out
    }

    fn self_test(
        &mut self,
        op: crate::device::SelfTestOp,
    ) -> Result<(), crate::device::FetchError> {
        self.src.self_test(op)
    }

    fn reset(&mut self) {
        self.refresh.reset();
        self.tracker = Tracker::new(self.src.origin());
        self.ocp_uuid_index = None;
        self.pages = NvmePages::default();
        self.error_log_count = None;
        self.group_ids.clear();
        self.pel = pel::PelCounter::default();
    }
}

#[cfg(test)]
mod tests;
