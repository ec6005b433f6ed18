use super::*;
use crate::metrics::pieces::Pieces;
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
            native: Default::default(),
            quantiles: vec![("0.5", 1e-4)],
            window_samples: 3,
        }],
        skipped: vec![(SkipReason::ALL[0], 4)],
        busy_ratio: Some(0.01),
        window: "10m".into(),
        restarts,
    }
}

/// The body without the process's own series, which change between two
/// reads of /proc/self: text without their lines, protobuf without their
/// messages (the others' bytes as they are, each after its length).
fn stable(body: &[u8], format: Format) -> Vec<u8> {
    if format == Format::Protobuf {
        return messages(body)
            .into_iter()
            .filter(|(name, _)| !name.starts_with("process_"))
            .flat_map(|(_, bytes)| bytes)
            .collect();
    }
    let text = std::str::from_utf8(body).expect("text");
    text.lines()
        .filter(|l| !l.contains("process_"))
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect()
}

/// A protobuf body's length-delimited messages, each with its family's
/// name as prometheus-client's schema decodes it, and its bytes (length
/// included).
pub(crate) fn messages(mut body: &[u8]) -> Vec<(String, Vec<u8>)> {
    use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model as pb;
    use prost::Message as _;
    let mut out = Vec::new();
    while !body.is_empty() {
        let all = body;
        let len = prost::encoding::decode_varint(&mut body).expect("a length") as usize;
        let head = all.len() - body.len();
        let family = pb::MetricFamily::decode(&body[..len]).expect("a MetricFamily");
        out.push((family.name, all[..head + len].to_vec()));
        body = &body[len..];
    }
    out
}

/// What a body says, to look for a name or label in: the text, or the
/// decoded protobuf messages' debug form.
fn readable(body: &[u8], format: Format) -> String {
    if format != Format::Protobuf {
        return String::from_utf8(body.to_vec()).expect("text");
    }
    use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model as pb;
    use prost::Message as _;
    messages(body)
        .iter()
        .map(|(_, m)| format!("{:?}\n", pb::MetricFamily::decode_length_delimited(&m[..])))
        .collect()
}

#[test]
fn cached_body_is_the_whole_encode_byte_for_byte() {
    let drives = fixture_drives();
    assert!(drives.len() >= 12, "{} fixture drives", drives.len());
    let first = drives[0].device.clone();
    let probes = vec![
        probe(&first, &format!("{first}n1"), 2),
        probe("nvme99", "nvme99n1", 0),
    ];
    let published = Arc::new(probes.clone());
    // By default and with every family and zero served.
    for (format, diagnostics) in Format::ALL
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
            assert_eq!(stable(&got, format), stable(&want, format), "{format:?}");
        }
        // Made of the cached pieces, not of the whole encode a failed
        // split falls back to.
        let copy = cache
            .encode_cached(drives.clone(), Arc::clone(&published), &build, format)
            .expect("every part cached");
        assert_eq!(stable(&copy, format), stable(&want, format), "{format:?}");
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
        assert_eq!(stable(&got, format), stable(&again, format), "{format:?}");
        assert_ne!(stable(&again, format), stable(&want, format));
        let want = readable(&want, format);
        assert!(want.contains("ssd_probe_latency_seconds"));
        assert!(want.contains("probe"));
        assert_eq!(want.contains("ssd_ata_attribute_raw"), diagnostics);
        if format.is_text() {
            assert_eq!(want.contains("source=\"smart_log\"} 0"), diagnostics);
        }
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
    let probe_lines = |text: &[u8]| -> Vec<String> {
        std::str::from_utf8(text)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("ssd_probe_") && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    for format in [Format::OpenMetrics, Format::Prometheus] {
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
    for format in [Format::OpenMetrics, Format::Prometheus] {
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
    for format in [Format::OpenMetrics, Format::Prometheus] {
        let mut cache = HashMap::new();
        fill(
            &mut cache,
            &drives,
            |_| Some(1),
            (format, Detail::default()),
        );
        for d in &drives {
            let p = cache[&d.device].text[format.index()]
                .clone()
                .expect("split");
            assert!(!p.families.is_empty());
            // Each family's text starts with its HELP line, and its
            // series carry this drive's name.
            for (_, head, body) in &p.families {
                let text = std::str::from_utf8(&p.text).unwrap();
                assert!(text[head.clone()].starts_with("# HELP "));
                assert!(!text[body.clone()].is_empty());
                assert!(!text[body.clone()].contains("# "));
                let label = format!("device=\"{}\"", d.device);
                assert!(text[body.clone()].lines().all(|l| l.contains(&label)));
            }
        }
        let part = |parts| Exposition {
            drives: drives.clone(),
            probes: vec![probe(&drives[0].device, "b", 0)],
            monitored: drives.len(),
            process: ProcessStats::read(),
            ..Exposition::of(parts, BuildInfo::default())
        };
        let p = Pieces::of(part(Parts::Globals), format).expect("split");
        // Build info, devices and seven process families (CPU,
        // resident, virtual, threads, open fds, max fds, start).
        assert_eq!(p.families.len(), 2 + 7, "{:?}", p.families);
        let p = Pieces::of(part(Parts::Probes), format).expect("split");
        // Histogram, quantiles, window samples, I/Os, skips, busy ratio.
        assert_eq!(p.families.len(), 6, "{:?}", p.families);
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
        map.get(&d.device).unwrap().text[Format::Prometheus.index()]
            .clone()
            .unwrap()
    };
    cache.encode(
        vec![Arc::clone(&d)],
        Arc::default(),
        &build,
        Format::Prometheus,
    );
    let before = piece(&cache);
    cache.encode(
        vec![Arc::clone(&d)],
        Arc::default(),
        &build,
        Format::Prometheus,
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
        Format::Prometheus,
    );
    let text = String::from_utf8(text).unwrap();
    let polls = format!("ssd_polls_total{{device=\"{}\",", d.device);
    let line = text.lines().find(|l| l.starts_with(&polls)).unwrap();
    assert!(line.ends_with(&format!(" {}", d.polls + 1)), "{line}");
    // A probe restart changes the drive's own task_restarts series.
    let restarted = piece(&cache);
    let probes = vec![probe(&d.device, "x", 3)];
    let text = cache.encode(vec![next], Arc::new(probes), &build, Format::Prometheus);
    let text = String::from_utf8(text).unwrap();
    assert!(!Arc::ptr_eq(&restarted, &piece(&cache)));
    assert!(text.contains(&format!(
        "ssd_exporter_task_restarts_total{{device=\"{}\",serial=\"{}\",task=\"probe\"}} 3",
        d.device, d.identity.serial
    )));
    // A vanished drive leaves the cache.
    cache.encode(Vec::new(), Arc::default(), &build, Format::Prometheus);
    assert!(cache.drives.lock().unwrap().is_empty());
}

#[test]
fn a_copy_is_offered_only_when_nothing_needs_encoding() {
    let drives = fixture_drives();
    let (a, b) = (Arc::clone(&drives[0]), Arc::clone(&drives[1]));
    let cache = Cache::default();
    let build = BuildInfo::default();
    let probes = Arc::new(vec![probe(&a.device, "x", 0)]);
    let (fmt, other) = (Format::Prometheus, Format::OpenMetrics);
    let both = || vec![Arc::clone(&a), Arc::clone(&b)];
    let cached =
        |c: &Cache, d, p: &Arc<Vec<ProbeView>>, f| c.encode_cached(d, Arc::clone(p), &build, f);
    // Nothing encoded yet: no copy to offer, and nothing gets encoded.
    assert!(cached(&cache, both(), &probes, fmt).is_none());
    assert!(cache.drives.lock().unwrap().is_empty());
    let full = cache.encode(both(), Arc::clone(&probes), &build, fmt);
    let copy = cached(&cache, both(), &probes, fmt).expect("everything cached");
    assert_eq!(stable(&copy, fmt), stable(&full, fmt));
    assert!(
        readable(&copy, fmt).contains("process_open_fds"),
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
    for format in Format::ALL {
        // New probe views every call, as the fleet publishes them.
        let views = |n: u64| Arc::new(vec![probe(&first, &format!("{first}n1"), n)]);
        let joined = |s: &[Segment]| s.iter().flat_map(|s| s.text.to_vec()).collect::<Vec<u8>>();
        let says = |s: &Segment, what: &str| {
            // A run of a protobuf body is no whole message: look for the name's bytes.
            memchr::memmem::find(&s.text, what.as_bytes()).is_some()
        };
        let segs = cache
            .encode_segments(drives.clone(), views(1), &build, format)
            .unwrap();
        let body = cache.encode(drives.clone(), views(1), &build, format);
        assert_eq!(
            stable(&joined(&segs), format),
            stable(&body, format),
            "{format:?}"
        );
        // Runs alternate between the drives' own families and the rest:
        // the globals, the drives, the probes, the drives' QoS targets,
        // the process.
        let kinds: Vec<bool> = segs.iter().map(|s| s.stable).collect();
        assert_eq!(kinds, [false, true, false, true, false], "{format:?}");
        assert!(says(&segs[2], "ssd_probe_latency_seconds"));
        assert!(says(&segs[3], "ssd_latency_qos_target_seconds"));
        assert!(says(&segs[4], "process_"));
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
        assert_eq!(
            stable(&joined(&again), format),
            stable(&body, format),
            "{format:?}"
        );
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
        assert_eq!(
            stable(&joined(&polled), format),
            stable(&want, format),
            "{format:?}"
        );
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
    for format in Format::ALL {
        let joined = |s: &[Segment]| s.iter().flat_map(|s| s.text.to_vec()).collect::<Vec<u8>>();
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
            assert_eq!(
                stable(&joined(&segs), format),
                stable(&body, format),
                "{format:?}"
            );
        }
    }
}

/// On protobuf the probe latency is one native histogram per op (schema 3,
/// the zero bucket, the probe's spans and deltas), with the classic
/// buckets only when `metrics.probe_buckets` asks for them there too; text
/// keeps the classic buckets.
#[test]
fn protobuf_serves_the_native_histogram_and_classic_buckets_only_when_asked() {
    use crate::probe::histogram::{Buckets, Classic, LatencyHistogram};
    use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model as pb;
    use prost::Message as _;
    let mut h = LatencyHistogram::default();
    for s in [0.0, 80e-6, 81e-6, 95e-6, 2e-3] {
        h.record(s);
    }
    let mut p = probe("nvme0", "nvme0n1", 0);
    p.ops[0].buckets = h.buckets();
    p.ops[0].native = h.native();
    p.ops[0].count = h.count();
    p.ops[0].sum = h.sum();
    let histogram = |classic: Classic| {
        let build = BuildInfo::detailed(Detail {
            probe_buckets: classic,
            diagnostics: false,
        });
        let body = super::super::encode(Vec::new(), vec![p.clone()], &build, Format::Protobuf);
        let (_, m) = messages(&body)
            .into_iter()
            .find(|(n, _)| n == "ssd_probe_latency_seconds")
            .expect("the histogram family");
        let f = pb::MetricFamily::decode_length_delimited(&m[..]).unwrap();
        assert_eq!(f.r#type, pb::MetricType::Histogram as i32);
        assert_eq!(f.metric.len(), 1, "one series per probed op");
        f.metric[0].histogram.clone().unwrap()
    };
    let native = histogram(Classic::default());
    assert_eq!(native.schema, 3);
    assert_eq!(native.zero_threshold, 2f64.powi(-20));
    assert_eq!((native.zero_count, native.sample_count), (1, 5));
    // Keys ⌈8·log2 v⌉: 80 and 81 µs -108 (up to 86.3 µs), 95 µs -106 (a
    // gap of one: filled), 2 ms -71 (34 empty buckets on: a new span).
    let spans: Vec<(i32, u32)> = native
        .positive_span
        .iter()
        .map(|s| (s.offset, s.length))
        .collect();
    assert_eq!(spans, [(-108, 3), (34, 1)]);
    assert_eq!(native.positive_delta, [2, -2, 1, 0]);
    assert!(native.bucket.is_empty(), "no classic buckets by default");
    let both = histogram(Classic {
        buckets: Buckets::Coarse,
        on_protobuf: true,
    });
    assert_eq!(both.bucket.len(), 26);
    assert_eq!(both.positive_delta, native.positive_delta);
    let text = String::from_utf8(super::super::encode(
        Vec::new(),
        vec![p],
        &BuildInfo::default(),
        Format::Prometheus,
    ))
    .unwrap();
    assert_eq!(
        text.matches("ssd_probe_latency_seconds_bucket{").count(),
        26
    );
}
