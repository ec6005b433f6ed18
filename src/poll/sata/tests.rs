use super::*;
use crate::ata::PowerMode;
use crate::ata::smart::SmartStatus;
use crate::device::FetchError;
use crate::device::replay::SataReplay;
use crate::poll::tests::belief;
use std::path::Path;
use std::sync::Mutex;

/// A replayed DC600M whose power mode and failures the test chooses,
/// recording every request.
struct Fake {
    inner: SataReplay,
    mode: PowerMode,
    abort: Vec<AtaRead>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl AtaSource for Fake {
    fn origin(&self) -> String {
        "/dev/sdz".into()
    }
    fn read(&mut self, req: AtaRead) -> Result<Vec<u8>, FetchError> {
        self.asked.lock().unwrap().push(req.to_string());
        if self.abort.contains(&req) {
            return Err(FetchError::Unsupported(format!(
                "{req}: ata command aborted (status 51h, error 04h)"
            )));
        }
        self.inner.read(req)
    }
    fn smart_status(&mut self) -> Result<SmartStatus, FetchError> {
        self.asked
            .lock()
            .unwrap()
            .push("smart return status".into());
        self.inner.smart_status()
    }
    fn power_mode(&mut self) -> Result<PowerMode, FetchError> {
        Ok(self.mode)
    }
}

fn poller(
    mode: PowerMode,
    abort: Vec<AtaRead>,
    policy: SataPolicy,
) -> (SataPoller, Arc<Mutex<Vec<String>>>) {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sata/kingston-dc600m/sda"
    ));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let fake = Fake {
        inner: SataReplay::new(dir),
        mode,
        abort,
        asked: asked.clone(),
    };
    (
        SataPoller::new(Box::new(fake), Arc::new(Namer::builtin()), policy),
        asked,
    )
}

#[test]
fn one_aborted_statistics_page_leaves_the_others_and_comes_back() {
    let ssd = AtaRead::DevStat { page: 0x07 };
    let (mut p, _) = poller(PowerMode::ActiveOrIdle, vec![ssd], SataPolicy::EVERY_PAGE);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(belief(&out, Source::AtaDevstatPage(0x07)), Some(false));
    assert_eq!(belief(&out, Source::AtaDevstatPage(0x01)), Some(true));
    let r = out.reading.unwrap();
    // Page 07h (percentage used) is gone; 01h and 05h are still served.
    assert_eq!(r.percentage_used_ratio, None);
    assert!(r.counters.host_written_bytes.is_some());
    assert!(r.temperature_warning_celsius.is_some());
    // The drive answers again: the page is asked with the next refresh.
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sata/kingston-dc600m/sda"
    ));
    p.src = Box::new(SataReplay::new(dir));
    let out = p.poll();
    assert_eq!(belief(&out, Source::AtaDevstatPage(0x07)), Some(true));
    assert_eq!(out.reading.unwrap().percentage_used_ratio, Some(0.03));
}

#[test]
fn smart_data_aborted_is_a_counted_failure_every_poll() {
    let (mut p, _) = poller(
        PowerMode::ActiveOrIdle,
        vec![AtaRead::SmartData],
        SataPolicy::LIVE,
    );
    for _ in 0..3 {
        let out = p.poll();
        assert!(!out.up);
        let sources: Vec<_> = out.errors.iter().map(|e| e.source).collect();
        assert_eq!(sources, [Source::AtaSmart]);
    }
}

#[test]
fn a_drive_in_standby_is_not_touched_beyond_check_power_mode() {
    let (mut p, asked) = poller(PowerMode::Standby, vec![], SataPolicy::LIVE);
    let out = p.poll();
    assert_eq!(out.skipped, Some("standby"));
    assert_eq!(out.power_mode, Some("standby"));
    assert!(out.errors.is_empty() && out.reading.is_none());
    assert!(
        asked.lock().unwrap().is_empty(),
        "{:?}",
        asked.lock().unwrap()
    );
}

#[test]
fn wake_standby_polls_a_sleeping_drive() {
    let policy = SataPolicy {
        wake_standby: true,
        ..SataPolicy::LIVE
    };
    let (mut p, asked) = poller(PowerMode::Standby, vec![], policy);
    let out = p.poll();
    assert!(out.up && out.skipped.is_none());
    assert!(asked.lock().unwrap().iter().any(|r| r == "smart read data"));
}

#[test]
fn an_aborted_log_is_unsupported_asked_once_per_refresh_and_the_rest_is_served() {
    let (mut p, asked) = poller(
        PowerMode::ActiveOrIdle,
        vec![AtaRead::SelfTestLog],
        SataPolicy::LIVE,
    );
    for _ in 0..3 {
        let out = p.poll();
        assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
        let r = out.reading.unwrap();
        assert_eq!(r.ata_attributes.len(), 28);
        assert!(r.self_test_last_result.is_none());
    }
    let n = asked
        .lock()
        .unwrap()
        .iter()
        .filter(|r| *r == "smart self-test log")
        .count();
    assert_eq!(n, 1);
}

#[test]
fn after_standby_max_skips_a_sleeping_drive_is_polled_once() {
    let policy = SataPolicy {
        standby_max_skips: 2,
        ..SataPolicy::LIVE
    };
    let (mut p, asked) = poller(PowerMode::Standby, vec![], policy);
    let skipped: Vec<bool> = (0..6).map(|_| p.poll().skipped.is_some()).collect();
    assert_eq!(skipped, [true, true, false, true, true, false]);
    let reads = asked
        .lock()
        .unwrap()
        .iter()
        .filter(|r| *r == "smart read data")
        .count();
    assert_eq!(reads, 2, "one SMART read per forced poll");
    // Found awake, the count starts again.
    p.src = Box::new(Fake {
        inner: SataReplay::new(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/sata/kingston-dc600m/sda"
        ))),
        mode: PowerMode::ActiveOrIdle,
        abort: vec![],
        asked: asked.clone(),
    });
    p.poll();
    p.src = Box::new(Fake {
        inner: SataReplay::new(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/sata/kingston-dc600m/sda"
        ))),
        mode: PowerMode::Standby,
        abort: vec![],
        asked,
    });
    let skipped: Vec<bool> = (0..3).map(|_| p.poll().skipped.is_some()).collect();
    assert_eq!(skipped, [true, true, false]);
}
