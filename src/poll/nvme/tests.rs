use super::*;
use crate::device::FetchError;
use crate::device::replay::NvmeReplay;
use crate::poll::PollOutcome;
use crate::poll::tests::belief;
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

/// The Kingston DC2000B dump these tests replay.
const DC2000B: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
);

fn dc2000b() -> NvmeReplay {
    NvmeReplay::new(Path::new(DC2000B))
}

/// A copy of just `files` of the DC2000B dump, in a folder the test may
/// change.
fn dc2000b_files(files: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(Path::new(DC2000B).join(f), tmp.path().join(f)).unwrap();
    }
    tmp
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

fn poller_with(answers: Vec<(NvmeRequest, FetchError)>, policy: PollPolicy) -> (NvmePoller, Asked) {
    let (mut p, asked) = poller(answers);
    p.policy = policy;
    p.refresh = Refresh::every(policy.identity_every);
    (p, asked)
}

#[test]
fn an_unsupported_page_is_not_counted_and_asked_again_with_each_identity_refresh() {
    let selftest = log(nvme::LID_SELF_TEST, nvme::SELF_TEST_LOG_LEN, 0);
    let unsupported = FetchError::Unsupported("Invalid Log Page".into());
    let (mut p, asked) = poller_with(vec![(selftest, unsupported)], PollPolicy::LIVE);
    let first = p.poll();
    assert!(first.up && first.errors.is_empty(), "{:?}", first.errors);
    assert!(
        first
            .reading
            .as_ref()
            .unwrap()
            .self_test_last_result
            .is_none()
    );
    assert_eq!(belief(&first, Source::SelfTestLog), Some(false));
    assert_eq!(belief(&first, Source::SmartLog), Some(true));
    for _ in 0..11 {
        assert!(p.poll().errors.is_empty());
    }
    // Polls 1 and 11 refresh identity (every 10th poll), and ask again.
    assert_eq!(count(&asked, selftest), 2);
    assert_eq!(count(&asked, smart()), 12);
}

#[test]
fn a_page_that_comes_back_is_served_again() {
    let selftest = log(nvme::LID_SELF_TEST, nvme::SELF_TEST_LOG_LEN, 0);
    let unsupported = FetchError::Unsupported("Invalid Field in Command".into());
    let (mut p, _) = poller(vec![(selftest, unsupported)]);
    assert!(p.poll().reading.unwrap().self_test_last_result.is_none());
    p.src = Box::new(Scripted {
        inner: dc2000b(),
        answers: HashMap::new(),
        asked: Asked::default(),
    });
    let out = p.poll();
    assert!(
        out.reading
            .as_ref()
            .unwrap()
            .self_test_last_result
            .is_some()
    );
    assert_eq!(belief(&out, Source::SelfTestLog), Some(true));
}

#[test]
fn the_smart_log_is_never_unsupported_only_failing() {
    let unsupported = FetchError::Unsupported("Invalid Log Page".into());
    let (mut p, asked) = poller_with(vec![(smart(), unsupported)], PollPolicy::LIVE);
    for _ in 0..3 {
        let out = p.poll();
        assert!(!out.up);
        let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
        assert_eq!(sources, [Source::SmartLog]);
        assert_eq!(belief(&out, Source::SmartLog), Some(true));
    }
    assert_eq!(count(&asked, smart()), 3);
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
        assert_eq!(out.errors[0].source, Source::SmartLog);
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
    assert_eq!(out.errors[0].source, Source::Identify);
}

/// A device that goes between its identity and its SMART log (a
/// hot-unplug mid-poll) ends the poll there: no other page is asked, so
/// the unplug costs one warning, not one per page.
#[test]
fn a_device_gone_at_the_smart_log_asks_no_further_page() {
    let gone = FetchError::Gone("log page 02h on /dev/nvme9: Path Related Status".into());
    let (mut p, asked) = poller(vec![(smart(), gone)]);
    let out = p.poll();
    assert!(out.gone && !out.up);
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].source, Source::SmartLog);
    assert_eq!(
        asked.lock().unwrap().last(),
        Some(&smart()),
        "nothing after it"
    );
}

#[test]
fn another_vendors_c0h_page_is_not_ocp_and_never_an_error() {
    // The fixture's C0h page has a GUID that is not OCP's (byte 511 AEh).
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nvme/failing-critical/nvme2"
    );
    let mut p = NvmePoller::new(
        Box::new(NvmeReplay::new(Path::new(dir))),
        PollPolicy::EVERY_PAGE,
    );
    for _ in 0..3 {
        let out = p.poll();
        assert!(out.up);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(belief(&out, Source::OcpLog), Some(false));
        let r = out.reading.unwrap();
        assert!(r.plp_health_ratio.is_none() && r.counters.plp_starts.is_none());
        assert!(r.throttle_active.is_none() && r.throttle_level.is_none());
        assert_eq!(r.counters.media_errors, Some(23));
    }
}

#[test]
fn an_ocp_page_with_the_right_guid_that_fails_to_decode_is_an_error() {
    // A 300-byte answer: too short to carry a GUID, so it is not judged
    // "not OCP" but counted as the decode failure it is.
    let tmp = dc2000b_files(&["id-ctrl.bin", "smart-log.bin"]);
    let ocp = std::fs::read(Path::new(DC2000B).join("ocp-smart-log.bin")).unwrap();
    std::fs::write(tmp.path().join("ocp-smart-log.bin"), &ocp[..300]).unwrap();
    let mut p = NvmePoller::new(
        Box::new(NvmeReplay::new(tmp.path())),
        PollPolicy::EVERY_PAGE,
    );
    for _ in 0..2 {
        let out = p.poll();
        let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
        assert_eq!(sources, [Source::OcpLog]);
    }
}

/// Answers the UUID list with `list` (or says it has none) and records
/// the UUID index of every C0h read.
struct WithList {
    inner: NvmeReplay,
    list: Option<Vec<u8>>,
    uuid_list_supported: bool,
    c0_indexes: Arc<Mutex<Vec<u8>>>,
}

impl NvmeSource for WithList {
    fn origin(&self) -> String {
        "t".into()
    }
    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        match req {
            NvmeRequest::UuidList => self
                .list
                .clone()
                .ok_or_else(|| FetchError::Unsupported("Invalid Field in Command".into())),
            NvmeRequest::Log {
                lid: 0xC0,
                uuid_index,
                ..
            } => {
                self.c0_indexes.lock().unwrap().push(uuid_index);
                self.inner.fetch(req)
            }
            NvmeRequest::IdentifyController => {
                let mut id = self.inner.fetch(req)?;
                // CTRATT bit 9 (UUID list supported), Identify bytes 99:96.
                if self.uuid_list_supported {
                    id[97] |= 0x02;
                } else {
                    id[97] &= !0x02;
                }
                Ok(id)
            }
            _ => self.inner.fetch(req),
        }
    }
}

/// A UUID list (CNS 17h) with `uuids` in entries 0, 1, …: 32 reserved
/// bytes, then 32-byte entries with the UUID at byte 16.
/// A UUID list page built on the decoder's own layout.
fn uuid_list(uuids: &[[u8; 16]]) -> Vec<u8> {
    use zerocopy::IntoBytes;
    let mut list = uuid_list::UuidListPage::zeroed();
    for (entry, u) in list.entry.iter_mut().zip(uuids) {
        entry.header = 1;
        entry.uuid = *u;
    }
    list.as_bytes().to_vec()
}

fn c0_indexes(list: Option<Vec<u8>>, supported: bool) -> (Vec<u8>, PollOutcome) {
    let c0 = Arc::new(Mutex::new(Vec::new()));
    let mut p = NvmePoller::new(
        Box::new(WithList {
            inner: dc2000b(),
            list,
            uuid_list_supported: supported,
            c0_indexes: c0.clone(),
        }),
        PollPolicy::EVERY_PAGE,
    );
    let out = p.poll();
    let got = c0.lock().unwrap().clone();
    (got, out)
}

/// nvme-cli `ocp_get_uuid_index`: the OCP UUID's entry position + 1;
/// `get_c0_log_page` reads index 0 when the list lacks it or there is
/// no list, and then the GUID decides.
#[test]
fn ocp_is_located_by_the_uuid_list_else_index_0() {
    assert_eq!(ocp_index_from_list(Some(3)), 3);
    assert_eq!(ocp_index_from_list(None), 0);
    let other = [0x11; 16];
    let (idx, out) = c0_indexes(Some(uuid_list(&[other, uuid_list::OCP_UUID])), true);
    assert_eq!(idx, [2]);
    assert!(out.reading.unwrap().counters.plp_starts.is_some());
    // The list lacks the OCP UUID: still read with index 0, served by its GUID.
    let (idx, out) = c0_indexes(Some(uuid_list(&[other])), true);
    assert_eq!(idx, [0]);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.reading.unwrap().counters.plp_starts.is_some());
    // No UUID list at all.
    let (idx, out) = c0_indexes(None, false);
    assert_eq!(idx, [0]);
    assert!(out.reading.unwrap().counters.plp_starts.is_some());
    // The controller claims a list but cannot give one.
    let (idx, _) = c0_indexes(None, true);
    assert_eq!(idx, [0]);
}

/// A copy of the DC2000B dump in a folder the test may change.
fn dc2000b_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(DC2000B).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
    }
    tmp
}

#[test]
fn a_replay_smart_log_missing_for_one_poll_recovers_on_the_next() {
    let tmp = dc2000b_copy();
    let mut p = NvmePoller::new(
        Box::new(NvmeReplay::new(tmp.path())),
        PollPolicy::EVERY_PAGE,
    );
    assert!(p.poll().up);
    let path = tmp.path().join("smart-log.bin");
    let page = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let out = p.poll();
    assert!(!out.up);
    let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
    assert_eq!(sources, [Source::SmartLog], "a mandatory page is counted");
    std::fs::write(&path, &page).unwrap();
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
}

#[test]
fn a_replay_file_that_comes_back_is_served_again() {
    let tmp = dc2000b_copy();
    let path = tmp.path().join("ocp-smart-log.bin");
    let page = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let mut p = NvmePoller::new(
        Box::new(NvmeReplay::new(tmp.path())),
        PollPolicy::EVERY_PAGE,
    );
    let out = p.poll();
    assert!(out.errors.is_empty());
    assert_eq!(belief(&out, Source::OcpLog), Some(false));
    std::fs::write(&path, &page).unwrap();
    let out = p.poll();
    assert_eq!(belief(&out, Source::OcpLog), Some(true));
    assert!(out.reading.unwrap().counters.plp_starts.is_some());
}

/// OCP byte 97 at 00h, 02h and a reserved 07h: level 0, level 2, and no
/// throttling series at all (WDC plugin's `cloud_smart_log_thermal_status[]`).
#[test]
fn replayed_throttling_status_gives_its_level_or_no_series() {
    let tmp = dc2000b_copy();
    let path = tmp.path().join("ocp-smart-log.bin");
    let mut page = std::fs::read(&path).unwrap();
    let mut p = NvmePoller::new(
        Box::new(NvmeReplay::new(tmp.path())),
        PollPolicy::EVERY_PAGE,
    );
    for (status, level, active) in [
        (0x00, Some(0), Some(false)),
        (0x02, Some(2), Some(true)),
        (0x07, None, None),
    ] {
        page[97] = status;
        std::fs::write(&path, &page).unwrap();
        let out = p.poll();
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        let r = out.reading.unwrap();
        assert_eq!(
            (r.throttle_level, r.throttle_active),
            (level, active),
            "{status:02x}h"
        );
        // The rest of the page is still served.
        assert!(r.counters.plp_starts.is_some());
    }
}

/// Bytes 192..199 are reserved before log page version 3 (OCP 2.0).
#[test]
fn link_retraining_is_not_served_from_a_page_older_than_the_field() {
    let tmp = dc2000b_copy();
    let path = tmp.path().join("ocp-smart-log.bin");
    let mut page = std::fs::read(&path).unwrap();
    let mut p = NvmePoller::new(
        Box::new(NvmeReplay::new(tmp.path())),
        PollPolicy::EVERY_PAGE,
    );
    page[192] = 5;
    for (version, want) in [(2u16, None), (3, Some(5))] {
        page[494..496].copy_from_slice(&version.to_le_bytes());
        std::fs::write(&path, &page).unwrap();
        let r = p.poll().reading.unwrap();
        assert_eq!(r.counters.pcie_link_retrainings, want, "version {version}");
    }
}

#[test]
fn live_policy_rereads_identity_every_tenth_poll_and_the_error_log_on_change() {
    let tmp = dc2000b_files(&["id-ctrl.bin", "smart-log.bin", "error-log.bin"]);
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
