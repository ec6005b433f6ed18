//! Polling an NVMe controller: which pages, in which order, and what a
//! failure of each means. Shared by live drives, replayed dumps and `dump`.

use super::tracker::Tracker;
use super::{PollOutcome, Poller, keep};
use crate::device::{NvmeRequest, NvmeSource};
use crate::health::nvme::{NvmePages, identity, reading};
use crate::nvme::{self, IdCtrl, identify_ns::IdNs, uuid_list};

/// The namespace whose identifiers name the drive (`wwn`).
const WWN_NSID: u32 = 1;

/// Called with every page's raw bytes as it is fetched (used by `dump`).
pub type RawSink<'a> = &'a mut dyn FnMut(NvmeRequest, &[u8]);

/// Which pages a poll re-reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollPolicy {
    /// Re-read Identify Controller and Namespace every this many polls
    /// (identity changes only with a firmware update); 1 = every poll.
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
    /// Live drives: the SMART log (and OCP, self-test logs) every poll,
    /// identity every 10th poll, the error log when its count moved. A
    /// steady-state poll of a plain NVMe drive is then one admin command.
    pub const LIVE: Self = Self {
        identity_every: 10,
        error_log_on_change: true,
    };
}

/// Polls one NVMe controller through any [`NvmeSource`].
pub struct NvmePoller {
    src: Box<dyn NvmeSource>,
    policy: PollPolicy,
    /// Polls so far, for [`PollPolicy::identity_every`].
    polls: u64,
    /// Unsupported pages and logged failures.
    tracker: Tracker,
    /// OCP UUID index, once known (`Some(0)`: the drive has no UUID list).
    ocp_uuid_index: Option<u8>,
    /// Each page's newest good decode; a page that fails this poll keeps
    /// its previous value, a page found unsupported is dropped.
    pages: NvmePages,
    /// The SMART error count the cached error log belongs to.
    error_log_count: Option<u128>,
}

impl NvmePoller {
    pub fn new(src: Box<dyn NvmeSource>, policy: PollPolicy) -> Self {
        let tracker = Tracker::new(src.origin());
        Self {
            src,
            policy,
            polls: 0,
            tracker,
            ocp_uuid_index: None,
            pages: NvmePages::default(),
            error_log_count: None,
        }
    }

    /// One poll, handing every fetched page's bytes to `sink`.
    pub fn poll_with(&mut self, sink: RawSink<'_>) -> PollOutcome {
        let mut out = PollOutcome::default();
        let refresh =
            self.pages.id.is_none() || self.polls % self.policy.identity_every.max(1) == 0;
        self.polls += 1;
        if refresh {
            self.identity_pages(&mut out, sink);
            if out.gone {
                return out;
            }
        }
        let smart = log(nvme::LID_SMART, nvme::SMART_LOG_LEN, 0);
        let smart = self.page(&mut out, sink, "smart_log", smart, nvme::SmartLog::parse);
        out.up = smart.is_some();
        keep(&mut self.pages.smart, smart);
        self.log_pages(&mut out, sink);
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

    fn identity_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let req = NvmeRequest::IdentifyController;
        let id = self.page(out, sink, "identify", req, IdCtrl::parse);
        keep(&mut self.pages.id, id);
        if out.gone {
            return;
        }
        let ns = NvmeRequest::IdentifyNamespace { nsid: WWN_NSID };
        let wwn = self.page(out, sink, "identify_ns", ns, IdNs::parse);
        keep(&mut self.pages.wwn, wwn.map(|ns| ns.wwn()));
    }

    /// OCP, error and self-test logs.
    fn log_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let id = self.pages.id.clone();
        if let Some(index) = self.ocp_index(out, sink, id.as_ref()) {
            let req = log(nvme::LID_OCP_SMART, nvme::OCP_SMART_LOG_LEN, index);
            let ocp = self.page(out, sink, "ocp_log", req, nvme::OcpSmartLog::parse);
            keep(&mut self.pages.ocp, ocp);
        }
        let count = self.pages.smart.as_ref().map(|s| s.error_log_entries);
        let unchanged = self.error_log_count.is_some() && self.error_log_count == count;
        if !(self.policy.error_log_on_change && unchanged) {
            let entries = id.as_ref().map_or(1, IdCtrl::error_log_entries) as usize;
            let req = log(nvme::LID_ERROR, entries * nvme::ERROR_LOG_ENTRY_LEN, 0);
            let errors = self.page(out, sink, "error_log", req, nvme::ErrorLog::parse);
            self.error_log_count = errors.as_ref().and(count);
            keep(&mut self.pages.error_log, errors);
        }
        if id.as_ref().is_some_and(IdCtrl::supports_self_test) {
            let req = log(nvme::LID_SELF_TEST, nvme::SELF_TEST_LOG_LEN, 0);
            let tests = self.page(out, sink, "self_test_log", req, nvme::SelfTestLog::parse);
            keep(&mut self.pages.self_test, tests);
        }
    }

    /// Drops the cached decode of every page found unsupported.
    fn forget_unsupported(&mut self) {
        let t = &self.tracker;
        let p = &mut self.pages;
        if t.is_unsupported("ocp_log") {
            p.ocp = None;
        }
        if t.is_unsupported("error_log") {
            p.error_log = None;
        }
        if t.is_unsupported("self_test_log") {
            p.self_test = None;
        }
        if t.is_unsupported("identify_ns") {
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
        if self.tracker.is_unsupported("ocp_log") {
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
                    self.tracker
                        .mark_unsupported("ocp_log", "the identify uuid list has no OCP entry");
                    return None;
                }
                // A list the drive (or dump) cannot give: fall back to index 0.
                None if self.tracker.is_unsupported("uuid_list") => 0,
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
        if self.tracker.is_unsupported(source) {
            return None;
        }
        let bytes = self.tracker.fetched(out, source, self.src.fetch(req))?;
        sink(req, &bytes);
        self.tracker.decoded(out, source, req, parse(&bytes))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::FetchError;
    use crate::device::replay::NvmeReplay;
    use std::collections::HashMap;
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    /// Replays a fixture, answers chosen requests differently, and counts
    /// what was asked.
    struct Scripted {
        inner: NvmeReplay,
        answers: HashMap<NvmeRequest, FetchError>,
        asked: Arc<Mutex<Vec<NvmeRequest>>>,
    }

    impl NvmeSource for Scripted {
        fn origin(&self) -> String {
            "/dev/nvme9".into()
        }
        fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
            self.asked.lock().unwrap().push(req);
            match self.answers.get(&req) {
                Some(e) => Err(e.clone()),
                None => self.inner.fetch(req),
            }
        }
    }

    fn dc2000b() -> NvmeReplay {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
        );
        NvmeReplay::new(Path::new(dir))
    }

    fn smart() -> NvmeRequest {
        log(nvme::LID_SMART, nvme::SMART_LOG_LEN, 0)
    }

    type Asked = Arc<Mutex<Vec<NvmeRequest>>>;

    fn poller(answers: Vec<(NvmeRequest, FetchError)>) -> (NvmePoller, Asked) {
        let asked = Asked::default();
        let src = Scripted {
            inner: dc2000b(),
            answers: answers.into_iter().collect(),
            asked: asked.clone(),
        };
        (
            NvmePoller::new(Box::new(src), PollPolicy::EVERY_PAGE),
            asked,
        )
    }

    fn count(asked: &Asked, req: NvmeRequest) -> usize {
        asked.lock().unwrap().iter().filter(|&&r| r == req).count()
    }

    #[test]
    fn an_unsupported_page_is_asked_once_and_not_counted() {
        let selftest = log(nvme::LID_SELF_TEST, nvme::SELF_TEST_LOG_LEN, 0);
        let (mut p, asked) = poller(vec![(
            selftest,
            FetchError::Unsupported("Invalid Log Page".into()),
        )]);
        let first = p.poll();
        assert!(first.up && first.errors.is_empty(), "{:?}", first.errors);
        assert!(first.reading.unwrap().self_test_last_result.is_none());
        for _ in 0..3 {
            assert!(p.poll().errors.is_empty());
        }
        assert_eq!(count(&asked, selftest), 1);
        assert_eq!(count(&asked, smart()), 4);
    }

    #[test]
    fn a_failing_page_is_counted_every_poll_and_keeps_its_last_values() {
        let (mut p, _) = poller(vec![]);
        let good = p.poll().reading.unwrap();
        assert_eq!(good.counters.media_errors, Some(0));
        // Now the SMART log fails: counted, device down, values kept.
        let err =
            FetchError::Failed("log page 02h on /dev/nvme9: Internal Error (sct 0h, sc 6h)".into());
        p.src = Box::new(Scripted {
            inner: dc2000b(),
            answers: [(smart(), err)].into(),
            asked: Asked::default(),
        });
        for _ in 0..2 {
            let out = p.poll();
            assert!(!out.up);
            assert_eq!(out.errors.len(), 1);
            assert_eq!(out.errors[0].source, "smart_log");
            assert!(out.errors[0].message.contains("/dev/nvme9"));
            assert_eq!(out.reading.unwrap().counters, good.counters);
        }
    }

    #[test]
    fn a_vanished_device_stops_the_poll_at_once() {
        let gone = FetchError::Gone("open /dev/nvme9: No such device".into());
        let (mut p, _) = poller(vec![(NvmeRequest::IdentifyController, gone)]);
        let out = p.poll();
        assert!(out.gone && !out.up);
        assert_eq!(out.errors.len(), 1);
        assert_eq!(out.errors[0].source, "identify");
    }

    #[test]
    fn a_corrupt_ocp_page_is_rejected_and_counted_but_the_rest_is_served() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nvme/failing-critical/nvme2"
        );
        let mut p = NvmePoller::new(
            Box::new(NvmeReplay::new(Path::new(dir))),
            PollPolicy::EVERY_PAGE,
        );
        let out = p.poll();
        assert!(out.up);
        let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
        assert_eq!(sources, ["ocp_log"]);
        assert!(
            out.errors[0].message.contains("guid"),
            "{}",
            out.errors[0].message
        );
        let r = out.reading.unwrap();
        assert!(r.plp_health_ratio.is_none() && r.counters.plp_starts.is_none());
        assert_eq!(r.counters.media_errors, Some(23));
    }

    #[test]
    fn uuid_list_without_ocp_means_no_ocp_log() {
        // A list with one non-OCP UUID: the OCP log is not asked for.
        let mut list = vec![0u8; 4096];
        list[32 + 16..32 + 32].copy_from_slice(&[0x11; 16]);
        struct WithList(NvmeReplay, Vec<u8>, usize);
        impl NvmeSource for WithList {
            fn origin(&self) -> String {
                "t".into()
            }
            fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
                match req {
                    NvmeRequest::UuidList => Ok(self.1.clone()),
                    NvmeRequest::Log { lid: 0xC0, .. } => {
                        self.2 += 1;
                        self.0.fetch(req)
                    }
                    _ => self.0.fetch(req),
                }
            }
        }
        let mut p = NvmePoller::new(
            Box::new(WithList(dc2000b(), list, 0)),
            PollPolicy::EVERY_PAGE,
        );
        for _ in 0..2 {
            let out = p.poll();
            assert!(out.errors.is_empty(), "{:?}", out.errors);
            assert!(out.reading.unwrap().counters.plp_starts.is_none());
        }
        assert!(p.tracker.is_unsupported("ocp_log"));
    }

    #[test]
    fn live_policy_rereads_identity_every_tenth_poll_and_the_error_log_on_change() {
        let tmp = tempfile::tempdir().unwrap();
        let src = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
        ));
        for f in ["id-ctrl.bin", "smart-log.bin", "error-log.bin"] {
            std::fs::copy(src.join(f), tmp.path().join(f)).unwrap();
        }
        let asked = Asked::default();
        let scripted = Scripted {
            inner: NvmeReplay::new(tmp.path()),
            answers: HashMap::new(),
            asked: asked.clone(),
        };
        let mut p = NvmePoller::new(Box::new(scripted), PollPolicy::LIVE);
        let error_log = log(nvme::LID_ERROR, 64 * nvme::ERROR_LOG_ENTRY_LEN, 0);
        for _ in 0..12 {
            assert!(p.poll().up);
        }
        // Polls 1 and 11 read identity; the error count (SMART bytes 176..192) never moved.
        assert_eq!(count(&asked, NvmeRequest::IdentifyController), 2);
        assert_eq!(count(&asked, smart()), 12);
        assert_eq!(count(&asked, error_log), 1);
        let mut page = std::fs::read(tmp.path().join("smart-log.bin")).unwrap();
        page[176] += 1;
        std::fs::write(tmp.path().join("smart-log.bin"), &page).unwrap();
        p.poll();
        p.poll();
        assert_eq!(count(&asked, error_log), 2);
    }
}
