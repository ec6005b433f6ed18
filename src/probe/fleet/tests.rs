use super::*;
use std::sync::Arc;

#[test]
fn a_namespace_that_appears_later_is_probed_on_a_later_pass() {
    // The hot-plug race: discovery sees the controller before the kernel
    // has created its namespace's block device.
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    std::fs::create_dir_all(&dev).unwrap();
    let config = ProbeConfig {
        sysfs: sys.clone(),
        rate: 1.0,
        ..ProbeConfig::default()
    };
    let fleet = Fleet::new(config, dev.clone(), None);
    fleet.start("nvme9", "nvme9n1", None);
    assert!(
        fleet.views().is_empty(),
        "probing a block device that does not exist"
    );
    assert!(fleet.refused.lock().unwrap().contains("nvme9n1"));
    // A second pass with it still missing: still refused, nothing started.
    fleet.start("nvme9", "nvme9n1", None);
    assert!(fleet.views().is_empty());
    // The namespace appears.
    super::super::fake_block_device(&sys, &dev, "nvme9n1");
    fleet.start("nvme9", "nvme9n1", None);
    let views = fleet.views();
    assert_eq!(views.len(), 1);
    assert_eq!(
        (views[0].drive.as_str(), views[0].block.as_str()),
        ("nvme9", "nvme9n1")
    );
    assert!(fleet.refused.lock().unwrap().is_empty());
    // A further pass leaves the running probe alone.
    fleet.start("nvme9", "nvme9n1", None);
    assert_eq!(fleet.views().len(), 1);
    fleet.stop_drive("nvme9");
    assert!(fleet.views().is_empty());
}

#[test]
fn scrapes_within_a_second_share_one_read_of_the_probes() {
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    std::fs::create_dir_all(&dev).unwrap();
    super::super::fake_block_device(&sys, &dev, "nvme8n1");
    let config = ProbeConfig {
        sysfs: sys.clone(),
        rate: 1.0,
        ..ProbeConfig::default()
    };
    let fleet = Fleet::new(config, dev.clone(), None);
    fleet.start("nvme8", "nvme8n1", None);
    let read = Instant::now();
    let first = fleet.published();
    assert_eq!(first.len(), 1);
    // Within PUBLISH_EVERY: the same read (not asserted if this machine
    // stalled for that long).
    let again = fleet.published();
    if read.elapsed() < PUBLISH_EVERY {
        assert!(Arc::ptr_eq(&first, &again));
    }
    std::thread::sleep(PUBLISH_EVERY);
    let later = fleet.published();
    assert!(!Arc::ptr_eq(&first, &later));
    assert_eq!(later.len(), 1);
    // A drive that goes takes its probe out of the next scrape at once
    // (served without its drive it would have no serial).
    fleet.stop_drive("nvme8");
    assert!(fleet.published().is_empty());
    // And a probe that starts is in the next scrape at once (once the
    // stopped one's thread has ended: until then no new one starts).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        fleet.start("nvme8", "nvme8n1", None);
        if !fleet.running().is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the stopped probe never ended");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(fleet.published().len(), 1);
    fleet.stop_drive("nvme8");
}

#[test]
fn a_probe_that_ended_is_started_again_while_its_drive_is_discovered() {
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    super::super::fake_block_device(&sys, &dev, "nvme8n1");
    let config = ProbeConfig {
        sysfs: sys.clone(),
        rate: 200.0,
        ..ProbeConfig::default()
    };
    let fleet = Fleet::new(config, dev.clone(), None);
    // The device node goes away right after discovery saw it: the probe
    // thread finds it gone and ends.
    std::fs::remove_file(dev.join("nvme8n1")).unwrap();
    fleet.start("nvme8", "nvme8n1", None);
    let ended = || {
        fleet
            .running()
            .get("nvme8n1")
            .is_some_and(|e| e.handle.is_finished())
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !ended() {
        assert!(
            std::time::Instant::now() < deadline,
            "the probe never ended"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // It comes back; the next discovery pass starts the probe again.
    std::fs::write(dev.join("nvme8n1"), vec![1u8; 1 << 20]).unwrap();
    fleet.start("nvme8", "nvme8n1", None);
    assert!(!ended());
    assert_eq!(fleet.views().len(), 1);
    fleet.stop_drive("nvme8");
}

/// Waits (bounded) until `block`'s probe thread has ended.
fn wait_ended(fleet: &Fleet, block: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !fleet
        .running()
        .get(block)
        .is_some_and(|e| e.handle.is_finished())
    {
        assert!(Instant::now() < deadline, "the probe never ended");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_probe_that_panics_is_restarted_counted_and_backs_off_when_it_keeps_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    super::super::fake_block_device(&sys, &dev, "nvme7n1");
    let config = ProbeConfig {
        sysfs: sys.clone(),
        rate: 500.0,
        ..ProbeConfig::default()
    };
    let fleet = Fleet::new(config, dev.clone(), None);
    // The hook runs on the probe's thread before each read: a test-only
    // way into that thread.
    let panics: SkipIf = Arc::new(|| panic!("injected probe panic"));
    let restarts = |f: &Fleet| f.views().first().map(|v| v.restarts);

    fleet.start("nvme7", "nvme7n1", Some(panics.clone()));
    wait_ended(&fleet, "nvme7n1");
    assert_eq!(restarts(&fleet), Some(0));
    // The first end in a row: started again on the next pass.
    fleet.start("nvme7", "nvme7n1", Some(panics.clone()));
    assert_eq!(restarts(&fleet), Some(1));
    wait_ended(&fleet, "nvme7n1");
    // The second in a row waits for the back-off: not on this pass.
    fleet.start("nvme7", "nvme7n1", Some(panics.clone()));
    assert_eq!(restarts(&fleet), Some(1));
    assert!(fleet.running()["nvme7n1"].handle.is_finished());
    // Once the back-off has passed (moved back in time here), it is.
    {
        let mut r = fleet.restarts();
        let last = r.get_mut("nvme7n1").unwrap();
        last.last = last.last.unwrap().checked_sub(RESTART_BACKOFF);
        assert!(last.last.is_some(), "machine up for less than 10 s");
    }
    fleet.start("nvme7", "nvme7n1", None);
    assert_eq!(restarts(&fleet), Some(2));
    assert!(!fleet.running()["nvme7n1"].handle.is_finished());

    // Served per drive, beside the poll loop's count.
    use crate::metrics::{BuildInfo, Format, encode_string as encode};
    use crate::snapshot::DriveSnapshot;
    let identity = crate::poll::factory::placeholder(
        crate::device::discovery::Transport::Nvme,
        "model",
        "serial",
        "fw",
    );
    let mut drive = DriveSnapshot::new("nvme7", "/dev/nvme7", identity);
    drive.polls = 1;
    let text = encode(
        vec![Arc::new(drive)],
        fleet.views(),
        &BuildInfo::default(),
        Format::Prometheus,
    );
    let line = |task: &str| {
        text.lines()
            .find(|l| {
                l.starts_with("ssd_exporter_task_restarts_total{")
                    && l.contains(&format!("task=\"{task}\""))
            })
            .map(|l| l.rsplit(' ').next().unwrap().to_string())
    };
    assert_eq!(line("probe").as_deref(), Some("2"), "{text}");
    // The poll loop never restarted: lazily served, so no series.
    assert_eq!(line("poll"), None, "{text}");

    // A drive that goes away takes its count with it.
    fleet.stop_drive("nvme7");
    assert!(fleet.restarts().is_empty());
}

/// Threads of this process whose name is `name`.
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim_end() == name)
        })
        .count()
}

fn wait_threads(name: &str, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while threads_named(name) != n {
        assert!(
            Instant::now() < deadline,
            "{} threads named {name:?}, waited for {n}",
            threads_named(name)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_drive_re_added_while_its_probe_hangs_in_open_gets_no_second_thread() {
    let dir = tempfile::tempdir().unwrap();
    let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
    super::super::fake_block_device(&sys, &dev, "nvme6n1");
    // A FIFO with no writer: opening it for reading blocks, as an open
    // of a sick disk can.
    let fifo = dev.join("nvme6n1");
    std::fs::remove_file(&fifo).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let config = ProbeConfig {
        sysfs: sys.clone(),
        rate: 100.0,
        ..ProbeConfig::default()
    };
    let fleet = Fleet::new(config, dev.clone(), None);
    fleet.start("nvme6", "nvme6n1", None);
    wait_threads("probe nvme6n1", 1);
    for _ in 0..3 {
        fleet.stop_drive("nvme6");
        fleet.start("nvme6", "nvme6n1", None);
    }
    assert_eq!(threads_named("probe nvme6n1"), 1);
    assert!(fleet.views().is_empty(), "a second probe was started");
    // The open returns (a writer appears); the stopped thread ends, and
    // the next pass starts the probe again.
    let _writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    wait_threads("probe nvme6n1", 0);
    fleet.start("nvme6", "nvme6n1", None);
    assert_eq!(fleet.views().len(), 1);
    fleet.stop_drive("nvme6");
}

#[test]
fn histogram_ends_with_one_inf_bucket_and_skips_are_lazy() {
    use crate::metrics::{BuildInfo, Format, encode_string as encode};
    let mut stats = OpStats::new(ProbeOp::Read, Duration::from_secs(600));
    stats.histogram.record(50e-6);
    stats.histogram.record(20.0); // above the last bound (10 s)
    let view = ProbeView {
        drive: "nvme0".into(),
        block: "nvme0n1".into(),
        ops: vec![op_view(&stats, Duration::ZERO)],
        skipped: vec![],
        busy_ratio: None,
        window: "10m".into(),
        restarts: 0,
    };
    for format in [Format::OpenMetrics, Format::Prometheus] {
        let text = encode(vec![], vec![view.clone()], &BuildInfo::default(), format);
        let inf: Vec<_> = text
            .lines()
            .filter(|l| l.starts_with("ssd_probe_latency_seconds_bucket") && l.contains("+Inf"))
            .collect();
        assert_eq!(inf.len(), 1, "{format:?}: {text}");
        assert!(inf[0].ends_with(" 2"), "{format:?}: {}", inf[0]);
        let ten = text
            .lines()
            .find(|l| l.starts_with("ssd_probe_latency_seconds_bucket") && l.contains("le=\"10"))
            .unwrap();
        assert!(ten.ends_with(" 1"), "{format:?}: {ten}");
        // no skips yet: lazily served, none; every reason at 0 with
        // diagnostics
        let skips = |text: &str| {
            text.lines()
                .filter(|l| l.starts_with("ssd_probe_skipped_total{") && l.ends_with(" 0"))
                .count()
        };
        assert_eq!(skips(&text), 0, "{format:?}: {text}");
        let mut build = BuildInfo::default();
        build.detail.diagnostics = true;
        let full = encode(vec![], vec![view.clone()], &build, format);
        assert_eq!(skips(&full), 4, "{format:?}: {full}");
    }
}

#[test]
fn a_probe_is_served_only_once_its_drive_is_with_the_drive_serial() {
    use crate::metrics::{BuildInfo, Format, encode_string as encode};
    use crate::snapshot::DriveSnapshot;
    let view = ProbeView {
        drive: "nvme1".into(),
        block: "nvme1n1".into(),
        ops: vec![op_view(
            &OpStats::new(ProbeOp::Read, Duration::from_secs(600)),
            Duration::ZERO,
        )],
        skipped: vec![],
        busy_ratio: None,
        window: "10m".into(),
        restarts: 0,
    };
    let identity = crate::poll::factory::placeholder(
        crate::device::discovery::Transport::Nvme,
        "model",
        "SERIAL1",
        "fw",
    );
    // Hot-plugged: found and probing, not polled yet.
    let mut drive = DriveSnapshot::new("nvme1", "/dev/nvme1", identity);
    let probe_lines = |d: &DriveSnapshot| -> Vec<String> {
        encode(
            vec![Arc::new(d.clone())],
            vec![view.clone()],
            &BuildInfo::default(),
            Format::Prometheus,
        )
        .lines()
        .filter(|l| l.starts_with("ssd_probe_") && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
    };
    assert_eq!(probe_lines(&drive), Vec::<String>::new());
    drive.polls = 1;
    let lines = probe_lines(&drive);
    assert!(!lines.is_empty());
    assert!(
        lines.iter().all(|l| l.contains("serial=\"SERIAL1\"")),
        "{lines:#?}"
    );
    // A --probe.device that is no drive is served as itself.
    let extra = ProbeView {
        drive: "sdz".into(),
        block: "sdz".into(),
        ..view.clone()
    };
    let text = encode(
        vec![],
        vec![extra],
        &BuildInfo::default(),
        Format::Prometheus,
    );
    assert!(
        text.contains("ssd_probe_latency_seconds_bucket{device=\"sdz\",serial=\"\",block=\"sdz\""),
        "{text}"
    );
}

#[test]
fn window_labels() {
    assert_eq!(label_duration(Duration::from_secs(600)), "10m");
    assert_eq!(label_duration(Duration::from_secs(3600)), "1h");
    assert_eq!(label_duration(Duration::from_secs(90)), "90s");
    assert_eq!(label_duration(Duration::from_millis(500)), "500ms");
}

#[test]
fn multipath_namespace_paths_map_to_the_block_device() {
    let ns = ["nvme0c0n1", "nvme0n1", "nvme0n2", "sda"].map(String::from);
    assert_eq!(blocks_of(&ns), ["nvme0n1", "nvme0n2", "sda"]);
}
