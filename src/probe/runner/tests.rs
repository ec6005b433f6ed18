use super::*;
use std::path::Path;

/// A regular file standing in for the device, and a fake sysfs whose
/// `stat` says the drive is idle.
fn fixture(dir: &Path) -> (ProbeTarget, PathBuf) {
    let sys = dir.join("sys");
    (super::super::fake_block_device(&sys, dir, "fakedisk"), sys)
}

fn wait(h: &ProbeHandle, f: impl Fn(&ProbeStats) -> bool) {
    for _ in 0..500 {
        if f(&lock(&h.stats)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the probe never reached the expected state");
}

#[test]
fn a_write_probe_that_cannot_start_leaves_the_read_probe_running() {
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let config = ProbeConfig {
        rate: 500.0,
        sysfs,
        write: Some(WriteConfig::new(dir.path().join("no such directory"))),
        ..ProbeConfig::default()
    };
    let h = spawn(target, config, None).unwrap();
    wait(&h, |s| s.read.count(IoResult::Ok) >= 20);
    assert_eq!(
        lock(&h.stats).write.as_ref().map(|w| w.count(IoResult::Ok)),
        Some(0)
    );
    assert!(h.stop_and_join(Duration::from_secs(2)));
}

#[test]
fn reads_are_counted_and_recorded_until_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let config = ProbeConfig {
        rate: 500.0,
        sysfs,
        ..ProbeConfig::default()
    };
    let h = spawn(target, config, None).unwrap();
    wait(&h, |s| s.read.count(IoResult::Ok) >= 20);
    {
        let s = lock(&h.stats);
        assert_eq!(s.read.count(IoResult::Error), 0);
        assert!(s.read.histogram.count() >= 20);
        assert!(s.read.window.quantile(0.5).is_some());
    }
    assert!(h.stop_and_join(Duration::from_secs(2)));
}

#[test]
fn a_vanishingly_small_rate_sleeps_without_panicking_and_stops() {
    // A gap of ~10^300 s does not fit an Instant; the thread must wait
    // for its stop flag instead of panicking on the addition.
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let config = ProbeConfig {
        rate: 1e-300,
        sysfs,
        ..ProbeConfig::default()
    };
    let h = spawn(target, config, None).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished(), "the probe thread died");
    assert_eq!(
        lock(&h.stats).read.ios.iter().map(|(_, n)| n).sum::<u64>(),
        0
    );
    assert!(h.stop_and_join(Duration::from_secs(2)));
}

#[test]
fn the_skip_hook_and_a_vanished_device_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let stat = sysfs.join("block/fakedisk/stat");
    let config = ProbeConfig {
        rate: 500.0,
        sysfs,
        ..ProbeConfig::default()
    };
    let hook: SkipIf = Arc::new(|| Some(SkipReason::Standby));
    let h = spawn(target, config, Some(hook)).unwrap();
    wait(&h, |s| s.skipped(SkipReason::Standby) >= 5);
    assert_eq!(lock(&h.stats).read.histogram.count(), 0);
    std::fs::remove_file(stat).unwrap();
    for _ in 0..200 {
        if h.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(h.is_finished(), "a vanished device ends its thread");
    let err = lock(&h.stats).last_error.clone().unwrap();
    assert!(err.contains("vanished"), "{err}");
}

#[test]
fn the_watchdog_counts_a_stuck_io_once() {
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let config = ProbeConfig {
        rate: 1000.0,
        timeout: Duration::from_millis(50),
        sysfs,
        ..ProbeConfig::default()
    };
    // Nothing is ever issued, so the test owns the in-flight stamp.
    let h = spawn(target, config, Some(Arc::new(|| Some(SkipReason::Standby)))).unwrap();
    let started = lock(&h.stats).started;
    issue(&h.in_flight, started, false, started);
    assert!(!h.watchdog(started + Duration::from_millis(10)));
    assert!(h.watchdog(started + Duration::from_millis(60)));
    assert!(!h.watchdog(started + Duration::from_millis(120)));
    assert_eq!(lock(&h.stats).read.count(IoResult::Timeout), 1);
    assert!(h.stop_and_join(Duration::from_secs(2)));
}

#[test]
fn bad_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let config = ProbeConfig {
        rate: 0.0,
        sysfs,
        ..ProbeConfig::default()
    };
    let e = spawn(target.clone(), config, None).err().unwrap();
    assert!(e.to_string().contains("rate 0 must be above 0"), "{e}");
}

#[test]
fn the_device_is_opened_on_the_probe_thread_which_ends_when_it_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let (target, sysfs) = fixture(dir.path());
    let mut gone = target;
    gone.path = dir.path().join("nope");
    let config = ProbeConfig {
        rate: 200.0,
        sysfs,
        ..ProbeConfig::default()
    };
    // spawn itself opens nothing, so it cannot block its caller.
    let h = spawn(gone, config, None).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !h.thread.is_finished() {
        assert!(Instant::now() < deadline, "probe thread still running");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(h.is_finished());
}
