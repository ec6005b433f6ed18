use super::*;
use crate::poll::factory;
use crate::probe::fleet::OpView;
use crate::probe::op::{IoCounts, ProbeOp};
use crate::probe::runner::SkipReason;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// Every fixture drive, polled once and judged, in folder order.
fn fixture_drives() -> Vec<Arc<DriveSnapshot>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let namer = Arc::new(factory::namer(&[]));
    let mut dirs = Vec::new();
    for transport in ["nvme", "sata", "sas"] {
        for model in std::fs::read_dir(root.join(transport)).unwrap() {
            for dev in std::fs::read_dir(model.unwrap().path()).unwrap() {
                let dev = dev.unwrap().path();
                if dev.is_dir() {
                    dirs.push(dev);
                }
            }
        }
    }
    dirs.sort();
    let now = SystemTime::now();
    dirs.iter()
        .map(|dir| {
            let (name, transport, mut poller) = factory::replay(dir, &namer).unwrap();
            let identity = factory::placeholder(transport, "", "", "");
            let mut snap = DriveSnapshot::new(&name, &dir.display().to_string(), identity);
            let started = Instant::now();
            let outcome = poller.poll();
            snap.apply(outcome, started.elapsed(), now);
            let tuning = crate::health::tuning::Tuning::default();
            crate::snapshot::judge(Arc::new(tuning), None)(&mut snap, now);
            Arc::new(snap)
        })
        .collect()
}

fn probe(drive: &str, block: &str, restarts: u64) -> ProbeView {
    ProbeView {
        drive: drive.into(),
        block: block.into(),
        ops: vec![OpView {
            op: ProbeOp::Read,
            buckets: vec![(1e-4, 2), (f64::INFINITY, 1)],
            sum: 20.0002,
            count: 3,
            ios: IoCounts::new(3, 0, 0),
            quantiles: vec![("0.5", 1e-4)],
            window_samples: 3,
        }],
        skipped: vec![(SkipReason::ALL[0], 4)],
        busy_ratio: Some(0.01),
        window: "10m".into(),
        restarts,
    }
}

/// The text without the process's own series, which change between
/// two reads of /proc/self.
fn stable(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("process_"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn cached_text_is_the_whole_encode_byte_for_byte() {
    let drives = fixture_drives();
    assert!(drives.len() >= 12, "{} fixture drives", drives.len());
    let first = drives[0].device.clone();
    let probes = vec![
        probe(&first, &format!("{first}n1"), 2),
        probe("nvme99", "nvme99n1", 0),
    ];
    let published = Arc::new(probes.clone());
    // By default and with every family and zero served.
    for (format, diagnostics) in [TextFormat::OpenMetrics, TextFormat::Prometheus]
        .into_iter()
        .flat_map(|f| [(f, false), (f, true)])
    {
        let mut build = BuildInfo::default();
        build.detail.diagnostics = diagnostics;
        let cache = Cache::default();
        let want = super::super::encode(drives.clone(), probes.clone(), &build, format);
        // Twice: once filling the cache, once from it.
        for _ in 0..2 {
            let got = cache.encode(drives.clone(), Arc::clone(&published), &build, format);
            assert_eq!(stable(&got), stable(&want), "{format:?}");
        }
        // Two drives polled again: encoded together, the others copied
        // from the first fill.
        let mut later = drives.clone();
        for k in [1, 4] {
            let mut d = (*later[k]).clone();
            d.polls += 1;
            later[k] = Arc::new(d);
        }
        let again = super::super::encode(later.clone(), probes.clone(), &build, format);
        let got = cache.encode(later, Arc::clone(&published), &build, format);
        assert_eq!(stable(&got), stable(&again), "{format:?}");
        assert_ne!(stable(&again), stable(&want));
        assert!(want.contains("ssd_probe_latency_seconds_bucket"));
        assert!(want.contains("task=\"probe\""));
        assert_eq!(want.contains("ssd_ata_attribute_raw"), diagnostics);
        assert_eq!(want.contains("source=\"smart_log\"} 0"), diagnostics);
        assert!(want.contains("ssd_sas_phy_errors"));
    }
}

#[test]
fn a_probe_waits_for_its_drive_and_then_carries_its_serial_cached_or_not() {
    let polled = fixture_drives().remove(0);
    let device = polled.device.clone();
    let serial = polled.identity.serial.clone();
    assert!(!serial.is_empty());
    // Discovered, probing, not polled yet (a hot-plugged drive).
    let mut fresh = (*polled).clone();
    fresh.polls = 0;
    fresh.skipped.clear();
    let probes = Arc::new(vec![probe(&device, "blk0", 0)]);
    let cache = Cache::default();
    let build = BuildInfo::default();
    let probe_lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("ssd_probe_") && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    for format in [TextFormat::OpenMetrics, TextFormat::Prometheus] {
        let direct = super::super::encode(
            vec![Arc::new(fresh.clone())],
            probes.to_vec(),
            &build,
            format,
        );
        let cached = cache.encode(
            vec![Arc::new(fresh.clone())],
            Arc::clone(&probes),
            &build,
            format,
        );
        assert_eq!(probe_lines(&direct), Vec::<String>::new(), "{format:?}");
        assert_eq!(probe_lines(&cached), Vec::<String>::new(), "{format:?}");
    }
    // Polled now, the probes' views unchanged (published once a second).
    for format in [TextFormat::OpenMetrics, TextFormat::Prometheus] {
        let cached = cache.encode(
            vec![Arc::clone(&polled)],
            Arc::clone(&probes),
            &build,
            format,
        );
        let lines = probe_lines(&cached);
        assert!(!lines.is_empty(), "{format:?}");
        let want = format!("serial=\"{serial}\"");
        assert!(
            lines.iter().all(|l| l.contains(&want)),
            "{format:?}: {lines:#?}"
        );
    }
}

#[test]
fn every_part_splits_into_the_families_it_wrote() {
    let drives = fixture_drives();
    for format in [TextFormat::OpenMetrics, TextFormat::Prometheus] {
        let mut cache = HashMap::new();
        fill(
            &mut cache,
            &drives,
            |_| Some(1),
            (format, Detail::default()),
        );
        for d in &drives {
            let p = cache[&d.device].text[format as usize]
                .clone()
                .expect("split");
            assert!(!p.families.is_empty());
            // Each family's text starts with its HELP line, and its
            // series carry this drive's name.
            for (_, head, body) in &p.families {
                assert!(p.text[head.clone()].starts_with("# HELP "));
                assert!(!p.text[body.clone()].is_empty());
                assert!(!p.text[body.clone()].contains("# "));
                let label = format!("device=\"{}\"", d.device);
                assert!(p.text[body.clone()].lines().all(|l| l.contains(&label)));
            }
        }
        let part = |parts| Exposition {
            parts,
            drives: drives.clone(),
            probes: vec![probe(&drives[0].device, "b", 0)],
            probe_restarts: HashMap::new(),
            build: BuildInfo::default(),
            monitored: drives.len(),
            process: ProcessStats::read(),
            families: Arc::default(),
        };
        let p = Pieces::of(part(Parts::Globals), format).expect("split");
        // Build info, devices and seven process families (CPU,
        // resident, virtual, threads, open fds, max fds, start).
        assert_eq!(p.families.len(), 2 + 7, "{}", p.text);
        let p = Pieces::of(part(Parts::Probes), format).expect("split");
        // Histogram, quantiles, window samples, I/Os, skips, busy ratio.
        assert_eq!(p.families.len(), 6, "{}", p.text);
    }
}

#[test]
fn a_drive_is_encoded_again_only_when_its_snapshot_changes() {
    let drives = fixture_drives();
    let d = Arc::clone(&drives[0]);
    let cache = Cache::default();
    let build = BuildInfo::default();
    let piece = |c: &Cache| {
        let map = c.drives.lock().unwrap();
        map.get(&d.device).unwrap().text[TextFormat::Prometheus as usize]
            .clone()
            .unwrap()
    };
    cache.encode(
        vec![Arc::clone(&d)],
        Arc::default(),
        &build,
        TextFormat::Prometheus,
    );
    let before = piece(&cache);
    cache.encode(
        vec![Arc::clone(&d)],
        Arc::default(),
        &build,
        TextFormat::Prometheus,
    );
    assert!(Arc::ptr_eq(&before, &piece(&cache)), "re-encoded unchanged");
    // A new snapshot (one more poll) is encoded anew.
    let mut next = (*d).clone();
    next.polls += 1;
    next.last_poll_duration = Some(Duration::from_millis(5));
    let next = Arc::new(next);
    let text = cache.encode(
        vec![Arc::clone(&next)],
        Arc::default(),
        &build,
        TextFormat::Prometheus,
    );
    let polls = format!("ssd_polls_total{{device=\"{}\",", d.device);
    let line = text.lines().find(|l| l.starts_with(&polls)).unwrap();
    assert!(line.ends_with(&format!(" {}", d.polls + 1)), "{line}");
    // A probe restart changes the drive's own task_restarts series.
    let restarted = piece(&cache);
    let probes = vec![probe(&d.device, "x", 3)];
    let text = cache.encode(vec![next], Arc::new(probes), &build, TextFormat::Prometheus);
    assert!(!Arc::ptr_eq(&restarted, &piece(&cache)));
    assert!(text.contains(&format!(
        "ssd_exporter_task_restarts_total{{device=\"{}\",serial=\"{}\",task=\"probe\"}} 3",
        d.device, d.identity.serial
    )));
    // A vanished drive leaves the cache.
    cache.encode(Vec::new(), Arc::default(), &build, TextFormat::Prometheus);
    assert!(cache.drives.lock().unwrap().is_empty());
}

#[test]
fn a_copy_is_offered_only_when_nothing_needs_encoding() {
    let drives = fixture_drives();
    let (a, b) = (Arc::clone(&drives[0]), Arc::clone(&drives[1]));
    let cache = Cache::default();
    let build = BuildInfo::default();
    let probes = Arc::new(vec![probe(&a.device, "x", 0)]);
    let (fmt, other) = (TextFormat::Prometheus, TextFormat::OpenMetrics);
    let both = || vec![Arc::clone(&a), Arc::clone(&b)];
    let cached =
        |c: &Cache, d, p: &Arc<Vec<ProbeView>>, f| c.encode_cached(d, Arc::clone(p), &build, f);
    // Nothing encoded yet: no copy to offer, and nothing gets encoded.
    assert!(cached(&cache, both(), &probes, fmt).is_none());
    assert!(cache.drives.lock().unwrap().is_empty());
    let full = cache.encode(both(), Arc::clone(&probes), &build, fmt);
    let copy = cached(&cache, both(), &probes, fmt).expect("everything cached");
    assert_eq!(stable(&copy), stable(&full));
    assert!(
        copy.contains("process_open_fds"),
        "the globals are read anew"
    );
    // Cached for one format only.
    assert!(cached(&cache, both(), &probes, other).is_none());
    // A drive with a new snapshot, a new probe publication, or a drive
    // not seen before: each needs an encode.
    let mut next = (*b).clone();
    next.polls += 1;
    assert!(cached(&cache, vec![Arc::clone(&a), Arc::new(next)], &probes, fmt).is_none());
    let republished = Arc::new(vec![probe(&a.device, "x", 0)]);
    assert!(cached(&cache, both(), &republished, fmt).is_none());
    let c = Arc::clone(&drives[2]);
    assert!(
        cached(
            &cache,
            vec![Arc::clone(&a), Arc::clone(&b), c],
            &probes,
            fmt
        )
        .is_none()
    );
    // Without probes (`--probe.disable`) each scrape passes a new empty
    // list; that is no change.
    cache.encode(both(), Arc::default(), &build, fmt);
    assert!(cached(&cache, both(), &Arc::default(), fmt).is_some());
    assert!(cached(&cache, both(), &Arc::default(), fmt).is_some());
    cache.encode(both(), Arc::clone(&probes), &build, fmt);
    // While a scrape holds the cache (encoding), the copy steps aside.
    let held = cache.drives.lock().unwrap();
    assert!(cached(&cache, both(), &probes, fmt).is_none());
    drop(held);
    assert!(cached(&cache, both(), &probes, fmt).is_some());
}

#[test]
fn segments_are_the_body_and_the_drives_runs_stay_the_same_arc_until_a_poll() {
    let drives = fixture_drives();
    let first = drives[0].device.clone();
    let build = BuildInfo::default();
    let cache = Cache::default();
    for format in [TextFormat::OpenMetrics, TextFormat::Prometheus] {
        // New probe views every call, as the fleet publishes them.
        let views = |n: u64| Arc::new(vec![probe(&first, &format!("{first}n1"), n)]);
        let joined = |s: &[Segment]| s.iter().map(|s| s.text.as_str()).collect::<String>();
        let segs = cache
            .encode_segments(drives.clone(), views(1), &build, format)
            .unwrap();
        let body = cache.encode(drives.clone(), views(1), &build, format);
        assert_eq!(stable(&joined(&segs)), stable(&body), "{format:?}");
        // Runs alternate between the drives' own families and the rest:
        // the globals, the drives, the probes, the drives' QoS targets,
        // the process.
        let kinds: Vec<bool> = segs.iter().map(|s| s.stable).collect();
        assert_eq!(kinds, [false, true, false, true, false], "{format:?}");
        assert!(segs[2].text.contains("ssd_probe_latency_seconds"));
        assert!(segs[3].text.contains("ssd_latency_qos_target_seconds"));
        assert!(segs[4].text.contains("process_"));
        // The next scrape, with the probes republished: the drives' runs
        // are the same Arcs.
        let again = cache
            .encode_segments(drives.clone(), views(1), &build, format)
            .unwrap();
        for (a, b) in segs.iter().zip(&again).filter(|(a, _)| a.stable) {
            assert!(Arc::ptr_eq(&a.text, &b.text), "{format:?}");
        }
        // Handed out again, not rebuilt: still the whole body.
        assert_eq!(again.len(), segs.len());
        assert_eq!(stable(&joined(&again)), stable(&body), "{format:?}");
        // One drive polled again: new runs, with its new text.
        let mut later = drives.clone();
        let mut d = (*later[1]).clone();
        d.polls += 1;
        later[1] = Arc::new(d);
        let polled = cache
            .encode_segments(later.clone(), views(1), &build, format)
            .unwrap();
        assert!(!Arc::ptr_eq(&again[1].text, &polled[1].text));
        let want = cache.encode(later, views(1), &build, format);
        assert_eq!(stable(&joined(&polled)), stable(&want), "{format:?}");
    }
}

#[test]
fn kept_runs_follow_the_probes_coming_and_going() {
    // The same drives' pieces, but the probes' families appear and vanish
    // between scrapes: the drives' runs are cut elsewhere, so the kept ones
    // must not be handed out for a body of another shape.
    let drives = fixture_drives();
    let first = drives[0].device.clone();
    let build = BuildInfo::default();
    let cache = Cache::default();
    // A probe of no monitored drive (`--probe.device`) changes no drive's
    // pieces; one of a drive changes that drive's (its task restarts).
    let with = || Arc::new(vec![probe("loop9", "loop9", 0)]);
    let with_drive = || Arc::new(vec![probe(&first, &format!("{first}n1"), 0)]);
    for format in [TextFormat::OpenMetrics, TextFormat::Prometheus] {
        let joined = |s: &[Segment]| s.iter().map(|s| s.text.as_str()).collect::<String>();
        for probes in [
            Arc::default(),
            with(),
            Arc::default(),
            with(),
            with(),
            with_drive(),
        ] {
            let segs = cache
                .encode_segments(drives.clone(), Arc::clone(&probes), &build, format)
                .unwrap();
            let body = cache.encode(drives.clone(), probes, &build, format);
            assert_eq!(stable(&joined(&segs)), stable(&body), "{format:?}");
        }
    }
}
