//! The direct writer against the library's encode of the same views (the
//! reference, `Parts::Probes`), byte for byte, in both formats and at both
//! bucket resolutions.

use super::*;
use crate::device::discovery::Transport;
use crate::metrics::{BuildInfo, Detail, Exposition, Parts};
use crate::poll::factory;
use crate::probe::fleet::OpView;
use crate::probe::histogram::{Classic, LatencyHistogram};
use crate::probe::op::{IoCounts, ProbeOp};
use crate::probe::runner::SkipReason;

fn drive(device: &str, serial: &str) -> Arc<DriveSnapshot> {
    let identity = factory::placeholder(Transport::Nvme, "MODEL", serial, "FW");
    let mut d = DriveSnapshot::new(device, "/dev/x", identity);
    d.polls = 1;
    Arc::new(d)
}

fn op(op: ProbeOp, latencies: &[f64], quantiles: Vec<(&'static str, f64)>) -> OpView {
    let mut h = LatencyHistogram::default();
    for &s in latencies {
        h.record(s);
    }
    OpView {
        op,
        buckets: h.buckets(),
        sum: h.sum(),
        count: h.count(),
        native: h.native(),
        ios: IoCounts::new(h.count(), 3, u64::MAX),
        quantiles,
        window_samples: h.count(),
    }
}

fn probe(drive: &str, block: &str, ops: Vec<OpView>, busy: Option<f64>) -> ProbeView {
    ProbeView {
        drive: drive.into(),
        block: block.into(),
        ops,
        skipped: vec![(SkipReason::ALL[2], 7), (SkipReason::ALL[0], u64::MAX)],
        busy_ratio: busy,
        window: "10m".into(),
        restarts: 0,
    }
}

/// The library's text of the probe part, with the families it wrote.
fn reference(
    drives: &[Arc<DriveSnapshot>],
    probes: &[ProbeView],
    detail: Detail,
    format: Format,
) -> String {
    let e = Exposition {
        drives: drives.to_vec(),
        probes: probes.to_vec(),
        ..Exposition::of(Parts::Probes, BuildInfo::detailed(detail))
    };
    let text = e.encode_text(format).0;
    // The OpenMetrics end marker closes the whole body, not a part.
    text.strip_suffix("# EOF\n")
        .map_or(text.clone(), str::to_string)
}

fn assert_same(drives: &[Arc<DriveSnapshot>], probes: &[ProbeView]) {
    // Each resolution, by default (lazy failures and skips) and with
    // `metrics.diagnostics` (every series from 0).
    let details = [Buckets::Coarse, Buckets::Full]
        .into_iter()
        .flat_map(|buckets| {
            [false, true].map(|diagnostics| Detail {
                probe_buckets: Classic {
                    buckets,
                    on_protobuf: false,
                },
                diagnostics,
            })
        });
    for detail in details {
        let buckets = (detail.probe_buckets.buckets, detail.diagnostics);
        for format in [Format::OpenMetrics, Format::Prometheus] {
            let want = reference(drives, probes, detail, format);
            let (got, families) = write(drives, probes, detail, format)
                .unwrap_or_else(|| panic!("{buckets:?} {format:?}: no direct text"));
            if let Some((i, (g, w))) = got
                .lines()
                .zip(want.lines())
                .enumerate()
                .find(|(_, (g, w))| g != w)
            {
                panic!("{buckets:?} {format:?}: line {i}:\n got {g}\nwant {w}");
            }
            assert_eq!(got, want, "{buckets:?} {format:?}");
            // The ranges tile the text, each header a `# HELP` line.
            let mut at = 0;
            for (name, head, body) in &families {
                assert_eq!(head.start, at, "{name}");
                assert!(got[head.clone()].starts_with("# HELP "), "{name}");
                assert_eq!(head.end, body.start, "{name}");
                at = body.end;
            }
            assert_eq!(at, got.len());
        }
    }
}

#[test]
fn typical_probes_are_written_as_the_library_writes_them() {
    let drives = vec![drive("nvme0", "S0"), drive("sda", "S1")];
    let lat = [45e-6, 80e-6, 81e-6, 0.0012, 0.25, 11.0, 1e-7];
    let q = vec![("0.5", 8.1e-5), ("0.99", 0.0012), ("0.9999", 11.0)];
    let probes = vec![
        probe(
            "nvme0",
            "nvme0n1",
            vec![op(ProbeOp::Read, &lat, q.clone())],
            Some(0.0037),
        ),
        probe(
            "sda",
            "sda",
            vec![
                op(ProbeOp::Read, &lat[..3], q.clone()),
                op(ProbeOp::Write, &[], vec![]),
                op(ProbeOp::Flush, &[2e-3], q),
            ],
            None,
        ),
    ];
    assert_same(&drives, &probes);
}

#[test]
fn odd_values_and_labels_are_written_as_the_library_writes_them() {
    // A serial, block and window the library must escape; a probe that is
    // no monitored drive (serial empty); values at the edges of f64.
    let drives = vec![drive("nvme0", "a\"b\\c\nd é")];
    let mut o = op(ProbeOp::Read, &[1e-5, 10.0], vec![]);
    o.sum = f64::NAN;
    o.quantiles = vec![
        ("0.5", f64::NAN),
        ("0.9", f64::INFINITY),
        ("0.99", f64::NEG_INFINITY),
        ("0.999", 0.0),
        ("0.9999", -0.0),
    ];
    let mut o2 = op(
        ProbeOp::Write,
        &[3e-3],
        vec![("0.5", 5e-324), ("0.9", 1e300)],
    );
    o2.sum = f64::INFINITY;
    o2.window_samples = u64::MAX;
    let mut odd = probe("nvme0", "nvme0n1\"", vec![o, o2], Some(f64::NAN));
    odd.window = "1h\\".into();
    let stranger = probe(
        "loop7",
        "loop7",
        vec![op(ProbeOp::Read, &[1.0], vec![])],
        Some(1.0),
    );
    assert_same(&drives, &[odd, stranger]);
}

#[test]
fn probes_without_ops_or_busy_ratios_write_the_families_the_library_does() {
    let drives = vec![drive("nvme0", "S0")];
    assert_same(&drives, &[]);
    assert_same(&drives, &[probe("nvme0", "nvme0n1", vec![], None)]);
    let mut quiet = probe(
        "nvme0",
        "nvme0n1",
        vec![op(ProbeOp::Read, &[], vec![])],
        None,
    );
    quiet.skipped.clear();
    // No failed I/O and no skip: lazily served, only `ok` by default.
    quiet.ops[0].ios = IoCounts::new(5, 0, 0);
    assert_same(&drives, &[quiet]);
}

#[test]
fn a_bound_that_is_no_probe_bucket_is_left_to_the_library() {
    let drives = vec![drive("nvme0", "S0")];
    let mut o = op(ProbeOp::Read, &[1e-3], vec![]);
    o.buckets = vec![(0.00123, 1), (f64::INFINITY, 0)];
    let probes = [probe("nvme0", "nvme0n1", vec![o], None)];
    let detail = Detail {
        probe_buckets: Classic {
            buckets: Buckets::Full,
            on_protobuf: false,
        },
        diagnostics: false,
    };
    assert!(write(&drives, &probes, detail, Format::Prometheus).is_none());
}

#[test]
fn every_bound_has_its_le_in_both_formats() {
    let bounds = crate::probe::histogram::bucket_bounds().len() + 1;
    for table in standard() {
        assert_eq!(table.len(), bounds);
        assert!(table.iter().all(|(_, le)| !le.is_empty()));
    }
    // As the library writes them (the two formats differ).
    let om = &standard()[Format::OpenMetrics as usize];
    let prom = &standard()[Format::Prometheus as usize];
    let find = |t: &[(f64, String)], b: f64| t.iter().find(|(x, _)| *x == b).unwrap().1.clone();
    assert_eq!(find(om, 1e-5), "0.00001");
    assert_eq!(find(prom, 1e-5), "1e-05");
    assert_eq!(find(om, 10.0), "10.0");
    assert_eq!(find(prom, 10.0), "10");
    assert_eq!(find(om, f64::INFINITY), "+Inf");
    assert_eq!(find(prom, f64::INFINITY), "+Inf");
}
