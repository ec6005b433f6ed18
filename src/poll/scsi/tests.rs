//! The SCSI poller over a fake device: which pages it asks, what a
//! rejected or broken page does, and that one bad page leaves the rest.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::*;
use crate::device::FetchError;
use crate::device::demo::{DemoScsi, FLEET};
use crate::poll::tests::belief;
use crate::scsi::log::LogPage;

/// The demo's SAS SSD, with pages the test rejects, breaks or lists.
struct Fake {
    inner: DemoScsi,
    reject: Vec<ScsiRequest>,
    broken: Vec<ScsiRequest>,
    /// Log page 00h's list instead of the demo's.
    log_list: Option<Vec<u8>>,
    asked: Arc<Mutex<Vec<ScsiRequest>>>,
}

impl ScsiSource for Fake {
    fn origin(&self) -> String {
        "/dev/sdz".into()
    }
    fn read(&mut self, req: ScsiRequest) -> Result<Vec<u8>, FetchError> {
        self.asked.lock().unwrap().push(req);
        if self.reject.contains(&req) {
            return Err(FetchError::Unsupported(format!(
                "{req} on /dev/sdz: scsi check condition: illegal request (sense key 5h, asc 24h, ascq 00h)"
            )));
        }
        if self.broken.contains(&req) {
            // A log page whose header names another page.
            return Ok(vec![0x3E, 0, 0, 0]);
        }
        match (req, &self.log_list) {
            (ScsiRequest::Log { page: 0, .. }, Some(list)) => Ok(LogPage::encode_raw(0, 0, list)),
            _ => self.inner.read(req),
        }
    }
}

type Asked = Arc<Mutex<Vec<ScsiRequest>>>;

fn poller(
    reject: Vec<ScsiRequest>,
    broken: Vec<ScsiRequest>,
    log_list: Option<Vec<u8>>,
    policy: ScsiPolicy,
) -> (ScsiPoller, Asked) {
    let asked = Asked::default();
    let fake = Fake {
        inner: DemoScsi::new(FLEET[4], Instant::now()),
        reject,
        broken,
        log_list,
        asked: asked.clone(),
    };
    (
        ScsiPoller::new(Box::new(fake), Transport::Scsi, policy),
        asked,
    )
}

fn log(page: u8) -> ScsiRequest {
    ScsiRequest::Log { page, subpage: 0 }
}

#[test]
fn only_the_log_pages_page_00h_lists_are_asked() {
    // 00h lists only 0Dh and 2Fh (and itself).
    let (mut p, asked) = poller(
        vec![],
        vec![],
        Some(vec![0x00, 0x0D, 0x2F]),
        ScsiPolicy::LIVE,
    );
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let logs: Vec<u8> = asked
        .lock()
        .unwrap()
        .iter()
        .filter_map(|r| match r {
            ScsiRequest::Log { page, .. } => Some(*page),
            _ => None,
        })
        .collect();
    assert_eq!(logs, [0x00, 0x0D, 0x2F]);
    let r = out.reading.unwrap();
    assert!(r.temperature_warning_celsius.is_some());
    assert_eq!(r.counters.host_written_bytes, None);
    assert_eq!(r.smart_passed, Some(true));
    // SAS from VPD 83h's port designator, though discovery said SCSI.
    assert_eq!(out.identity.unwrap().transport, Transport::Sas);
}

#[test]
fn a_rejected_page_is_unsupported_the_rest_served_and_asked_again_on_refresh() {
    let (mut p, asked) = poller(
        vec![log(0x0D)],
        vec![],
        None,
        ScsiPolicy { identity_every: 3 },
    );
    for _ in 0..3 {
        let out = p.poll();
        assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(belief(&out, Source::ScsiLog(0x0D)), Some(false));
        assert_eq!(belief(&out, Source::ScsiLog(0x2F)), Some(true));
        let r = out.reading.unwrap();
        // The composite temperature and the warning threshold fall back to
        // 2Fh's (the demo puts 70 °C in its threshold byte).
        assert!(!r.temperatures.is_empty());
        assert_eq!(r.temperature_warning_celsius, Some(70.0));
        assert!(r.counters.host_read_bytes.is_some());
    }
    // Polls 1-3: asked once; poll 4 is a refresh, which asks again.
    let count = |a: &Asked| {
        a.lock()
            .unwrap()
            .iter()
            .filter(|r| **r == log(0x0D))
            .count()
    };
    assert_eq!(count(&asked), 1);
    p.poll();
    assert_eq!(count(&asked), 2);
}

#[test]
fn inquiry_is_mandatory_a_rejection_is_a_counted_failure_every_poll() {
    let (mut p, _) = poller(vec![ScsiRequest::Inquiry], vec![], None, ScsiPolicy::LIVE);
    for _ in 0..2 {
        let out = p.poll();
        assert!(!out.up);
        let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
        assert_eq!(sources, [Source::ScsiInquiry]);
        assert!(out.identity.is_none() && out.reading.is_none());
    }
}

#[test]
fn a_bad_page_is_counted_under_its_source_and_the_health_page_makes_the_drive_down() {
    let (mut p, _) = poller(vec![], vec![log(0x03), log(0x2F)], None, ScsiPolicy::LIVE);
    let out = p.poll();
    let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
    assert_eq!(sources, [Source::ScsiLog(0x03), Source::ScsiLog(0x2F)]);
    assert!(
        out.errors[0]
            .message
            .starts_with("/dev/sdz log sense page 03h: "),
        "{}",
        out.errors[0].message
    );
    // 2Fh is the health page: not read, not up; the rest is still served.
    assert!(!out.up);
    assert_eq!(
        belief(&out, Source::ScsiLog(0x03)),
        Some(true),
        "a failure is not a no"
    );
    let r = out.reading.unwrap();
    assert_eq!(r.counters.host_read_bytes, None);
    assert!(r.counters.host_written_bytes.is_some());
    assert_eq!(r.smart_passed, None);
}

#[test]
fn the_dump_sink_sees_every_answer_under_its_file_name() {
    let (mut p, _) = poller(vec![], vec![], None, ScsiPolicy::EVERY_PAGE);
    let mut names = Vec::new();
    p.poll_with(&mut |name, _| names.push(name.to_string()));
    for want in [
        "inquiry.bin",
        "vpd-00.bin",
        "vpd-80.bin",
        "vpd-83.bin",
        "vpd-b1.bin",
        "read-capacity-16.bin",
        "log-00.bin",
        "log-0d.bin",
        "log-2f.bin",
        "defects-12.bin",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    // READ DEFECT DATA(12) answered: (10) is not asked.
    assert!(!names.iter().any(|n| n == "defects.bin"), "{names:?}");
}

/// Point 5: READ DEFECT DATA(12) first; a drive without it is asked (10),
/// and (12) again only with the next identity refresh.
#[test]
fn a_drive_without_read_defect_data_12_is_asked_10() {
    let req12 = ScsiRequest::GrownDefects12;
    let (mut p, asked) = poller(vec![req12], vec![], None, ScsiPolicy { identity_every: 3 });
    for _ in 0..3 {
        let out = p.poll();
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(belief(&out, Source::ScsiDefects12), Some(false));
        assert_eq!(belief(&out, Source::ScsiDefects), Some(true));
        assert_eq!(out.reading.unwrap().scsi.unwrap().grown_defects, Some(3));
    }
    let count = |r: ScsiRequest| asked.lock().unwrap().iter().filter(|a| **a == r).count();
    assert_eq!((count(req12), count(ScsiRequest::GrownDefects10)), (1, 3));
    p.poll();
    assert_eq!(count(req12), 2, "asked again with the refresh");
}

/// Point 9: a virtual volume is read for its identity only.
#[test]
fn a_virtual_volume_is_asked_its_identity_only() {
    let (p, asked) = poller(vec![], vec![], None, ScsiPolicy::LIVE);
    let mut p = p.with_kind(Kind::Virtual);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let id = out.identity.unwrap();
    assert_eq!(
        (id.kind, id.model.as_str()),
        (Kind::Virtual, "SEAGATE XS800ME70084")
    );
    let asked = asked.lock().unwrap().clone();
    assert!(
        asked.iter().all(|r| matches!(
            r,
            ScsiRequest::Inquiry | ScsiRequest::Vpd(_) | ScsiRequest::ReadCapacity16
        )),
        "{asked:?}"
    );
    let r = out.reading.unwrap();
    assert_eq!((r.temperatures.len(), r.smart_passed), (0, None));
}
