//! Polling an NVMe controller: which pages, in which order, and what a
//! failure of each means. Shared by live drives, replayed dumps and `dump`.

use std::collections::HashSet;

use tracing::{debug, info, warn};

use super::{PollError, PollOutcome, Poller};
use crate::device::{FetchError, NvmeRequest, NvmeSource};
use crate::health::nvme::{NvmePages, identity, reading};
use crate::nvme::{self, IdCtrl, identify_ns::IdNs, uuid_list};

/// The namespace whose identifiers name the drive (`wwn`).
const WWN_NSID: u32 = 1;

/// Called with every page's raw bytes as it is fetched (used by `dump`).
pub type RawSink<'a> = &'a mut dyn FnMut(NvmeRequest, &[u8]);

/// Polls one NVMe controller through any [`NvmeSource`].
pub struct NvmePoller {
    src: Box<dyn NvmeSource>,
    /// Sources this drive does not support: not asked again, logged once.
    unsupported: HashSet<&'static str>,
    /// Last message logged per source, so a persistent failure logs once.
    last_error: std::collections::HashMap<&'static str, String>,
    /// OCP UUID index, once known (`Some(0)`: the drive has no UUID list).
    ocp_uuid_index: Option<u8>,
    /// Each page's newest good decode; a page that fails this poll keeps
    /// its previous value, a page found unsupported is dropped.
    pages: NvmePages,
}

impl NvmePoller {
    pub fn new(src: Box<dyn NvmeSource>) -> Self {
        Self {
            src,
            unsupported: HashSet::new(),
            last_error: Default::default(),
            ocp_uuid_index: None,
            pages: NvmePages::default(),
        }
    }

    /// One poll, handing every fetched page's bytes to `sink`.
    pub fn poll_with(&mut self, sink: RawSink<'_>) -> PollOutcome {
        let mut out = PollOutcome::default();
        let id = self.page(
            &mut out,
            sink,
            "identify",
            NvmeRequest::IdentifyController,
            IdCtrl::parse,
        );
        keep(&mut self.pages.id, id);
        if out.gone {
            return out;
        }
        let ns = NvmeRequest::IdentifyNamespace { nsid: WWN_NSID };
        let wwn = self.page(&mut out, sink, "identify_ns", ns, IdNs::parse);
        keep(&mut self.pages.wwn, wwn.map(|ns| ns.wwn()));
        let smart = log(nvme::LID_SMART, nvme::SMART_LOG_LEN, 0);
        let smart = self.page(&mut out, sink, "smart_log", smart, nvme::SmartLog::parse);
        out.up = smart.is_some();
        keep(&mut self.pages.smart, smart);
        let id = self.pages.id.clone();
        if let Some(index) = self.ocp_index(&mut out, sink, id.as_ref()) {
            let req = log(nvme::LID_OCP_SMART, nvme::OCP_SMART_LOG_LEN, index);
            let ocp = self.page(&mut out, sink, "ocp_log", req, nvme::OcpSmartLog::parse);
            keep(&mut self.pages.ocp, ocp);
        }
        let entries = id.as_ref().map_or(1, IdCtrl::error_log_entries) as usize;
        let req = log(nvme::LID_ERROR, entries * nvme::ERROR_LOG_ENTRY_LEN, 0);
        let errors = self.page(&mut out, sink, "error_log", req, nvme::ErrorLog::parse);
        keep(&mut self.pages.error_log, errors);
        if id.as_ref().is_some_and(IdCtrl::supports_self_test) {
            let req = log(nvme::LID_SELF_TEST, nvme::SELF_TEST_LOG_LEN, 0);
            let tests = self.page(
                &mut out,
                sink,
                "self_test_log",
                req,
                nvme::SelfTestLog::parse,
            );
            keep(&mut self.pages.self_test, tests);
        }
        self.forget_unsupported();
        let p = &self.pages;
        out.identity =
            p.id.as_ref()
                .map(|id| identity(id, p.wwn.as_ref().and_then(Option::as_deref)));
        if p.id.is_some() || p.smart.is_some() {
            out.reading = Some(reading(p));
        }
        out
    }

    /// Drops the cached decode of every page found unsupported.
    fn forget_unsupported(&mut self) {
        let u = &self.unsupported;
        let p = &mut self.pages;
        if u.contains("ocp_log") {
            p.ocp = None;
        }
        if u.contains("error_log") {
            p.error_log = None;
        }
        if u.contains("self_test_log") {
            p.self_test = None;
        }
        if u.contains("identify_ns") {
            p.wwn = None;
        }
    }

    /// The UUID index to read the OCP log with, or `None` when the drive
    /// lists UUIDs but not OCP's (so it has no OCP log).
    fn ocp_index(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        id: Option<&IdCtrl>,
    ) -> Option<u8> {
        if self.unsupported.contains("ocp_log") {
            return None;
        }
        if let Some(index) = self.ocp_uuid_index {
            return Some(index);
        }
        let id = id?;
        let index = if !id.supports_uuid_list() {
            // No UUID list: vendor logs are addressed with index 0, as nvme-cli does.
            0
        } else {
            match self.page(
                out,
                sink,
                "uuid_list",
                NvmeRequest::UuidList,
                uuid_list::ocp_uuid_index,
            ) {
                Some(Some(index)) => index,
                Some(None) => {
                    self.mark_unsupported("ocp_log", "the identify uuid list has no OCP entry");
                    return None;
                }
                // A list the drive (or dump) cannot give: fall back to index 0.
                None if self.unsupported.contains("uuid_list") => 0,
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
        source: &'static str,
        req: NvmeRequest,
        parse: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Option<T> {
        if self.unsupported.contains(source) {
            return None;
        }
        let result = self.src.fetch(req);
        let bytes = match result {
            Ok(bytes) => bytes,
            Err(FetchError::Unsupported(why)) => {
                self.mark_unsupported(source, &why);
                return None;
            }
            Err(FetchError::Gone(why)) => {
                out.gone = true;
                self.fail(out, source, why);
                return None;
            }
            Err(FetchError::Failed(why)) => {
                self.fail(out, source, why);
                return None;
            }
        };
        sink(req, &bytes);
        match parse(&bytes) {
            Ok(page) => {
                self.last_error.remove(source);
                Some(page)
            }
            Err(e) => {
                let msg = format!("{} {req}: {e}", self.src.origin());
                self.fail(out, source, msg);
                None
            }
        }
    }

    fn mark_unsupported(&mut self, source: &'static str, why: &str) {
        if self.unsupported.insert(source) {
            info!(device = %self.src.origin(), source, "page not supported, not asking again: {why}");
        }
    }

    fn fail(&mut self, out: &mut PollOutcome, source: &'static str, message: String) {
        if self.last_error.get(source) != Some(&message) {
            warn!(device = %self.src.origin(), source, "poll failed: {message}");
            self.last_error.insert(source, message.clone());
        } else {
            debug!(device = %self.src.origin(), source, "poll failed again: {message}");
        }
        out.errors.push(PollError { source, message });
    }
}

/// Replaces a cached page with a new good decode; keeps it otherwise.
fn keep<T>(slot: &mut Option<T>, new: Option<T>) {
    if new.is_some() {
        *slot = new;
    }
}

fn log(lid: u8, len: usize, uuid_index: u8) -> NvmeRequest {
    NvmeRequest::Log {
        lid,
        len,
        uuid_index,
    }
}

impl Poller for NvmePoller {
    fn origin(&self) -> String {
        self.src.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        self.poll_with(&mut |_, _| {})
    }
}
