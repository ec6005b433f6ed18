//! Series per drive: docs/metrics.md's table ("Series per drive") against
//! what the binary serves, counted from its exposition — every fixture
//! replayed by default and with `metrics.diagnostics`, and a `--demo`
//! drive's probe series with each `metrics.probe_buckets` — and the default
//! as the full exposition less only the diagnostic families and the lazy
//! families' zeros.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::common::{Exporter, fixtures, parse, repo, split_series, start_on_fixtures};

const BEGIN: &str = "<!-- series per drive: counted by tests/integration/series.rs -->";
const END: &str = "<!-- end of series per drive -->";

/// Series per `device` label (exporter-wide series have none).
fn per_drive(series: &BTreeMap<String, f64>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for key in series.keys() {
        if let Some(d) = split_series(key).1.get("device") {
            *out.entry(d.clone()).or_default() += 1;
        }
    }
    out
}

/// Every fixture replayed with `extra` flags: its series.
fn fixtures_with(extra: &[&str]) -> BTreeMap<String, f64> {
    let (exporter, _) = start_on_fixtures(extra);
    parse(&exporter.get("/metrics", "").1)
}

/// The series a probe adds to the demo's `nvme0` (those with a `block`,
/// and its probe task's restarts) once every probe family has a series,
/// with `extra` flags.
fn demo_probe_series(extra: &[&str]) -> usize {
    let mut args = vec!["--demo"];
    args.extend_from_slice(extra);
    let e = Exporter::start(&args);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let series = parse(&e.get("/metrics", "").1);
        let probe: Vec<&String> = series
            .keys()
            .filter(|k| {
                let (_, l) = split_series(k);
                l.get("device").map(String::as_str) == Some("nvme0")
                    && (l.contains_key("block")
                        || l.get("task").map(String::as_str) == Some("probe"))
            })
            .collect();
        let has = |name: &str| probe.iter().any(|k| split_series(k).0 == name);
        if has("ssd_probe_busy_ratio") && has("ssd_probe_latency_quantile_seconds") {
            return probe.len();
        }
        assert!(
            Instant::now() < deadline,
            "the demo's nvme0 probe series never all came"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The table as docs/metrics.md must hold it.
fn table(
    default: &BTreeMap<String, usize>,
    full: &BTreeMap<String, usize>,
    transports: &BTreeMap<String, String>,
    probe: (usize, usize),
) -> String {
    let mut out = String::from(
        "| drive (fixture) | transport | default | `metrics.diagnostics: true` | default, probed | both options, probed |\n\
         |---|---|---|---|---|---|\n",
    );
    for dir in fixtures() {
        let device = dir.file_name().unwrap().to_string_lossy().into_owned();
        let fixture = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
        let n = default.get(&device).copied().unwrap_or(0);
        let all = full.get(&device).copied().unwrap_or(0);
        out += &format!(
            "| `{device}` ({fixture}) | {} | {n} | {all} | {} | {} |\n",
            transports.get(&device).map_or("?", String::as_str),
            n + probe.0,
            all + probe.1,
        );
    }
    out += &format!(
        "\n| what a probe adds to its drive (`--demo`, `nvme0`: one block, `op=\"read\"`) | `metrics.probe_buckets: coarse` (default) | `metrics.probe_buckets: full` |\n\
         |---|---|---|\n\
         | the series with a `block` label, and the probe task's restarts | {} | {} |\n",
        probe.0, probe.1
    );
    out
}

#[test]
fn the_series_per_drive_table_is_what_the_exporter_serves() {
    let default = fixtures_with(&[]);
    let full = fixtures_with(&["--metrics.diagnostics"]);
    let transports: BTreeMap<String, String> = default
        .keys()
        .filter(|k| split_series(k).0 == "ssd_device_info")
        .map(|k| {
            let l = split_series(k).1;
            (l["device"].clone(), l["transport"].clone())
        })
        .collect();
    let probe = (
        demo_probe_series(&[]),
        demo_probe_series(&["--metrics.probe-buckets=full"]),
    );
    let want = table(&per_drive(&default), &per_drive(&full), &transports, probe);
    let doc = std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap();
    let got = doc
        .split_once(BEGIN)
        .and_then(|(_, rest)| rest.split_once(END))
        .map(|(t, _)| t.trim().to_string() + "\n");
    assert_eq!(
        got.as_deref(),
        Some(want.as_str()),
        "docs/metrics.md's series table (between {BEGIN} and {END}) differs from the \
         counts; the counted table:\n{want}"
    );
    // The coarse histogram is 36 buckets fewer (62 → 26), nothing else.
    assert_eq!(probe.1 - probe.0, 36, "{probe:?}");
}

#[test]
fn the_default_loses_only_the_diagnostic_families() {
    let default = fixtures_with(&[]);
    let full = fixtures_with(&["--metrics.diagnostics"]);
    let diagnostic = |k: &str| {
        let name = split_series(k).0;
        ssd_exporter::metrics::DIAGNOSTICS
            .iter()
            .any(|d| name == *d || name.strip_suffix("_total") == Some(d))
    };
    let volatile = |k: &str| split_series(k).0.starts_with("process_") || k.contains("_timestamp_");
    let lazy = |k: &str| {
        let name = split_series(k).0;
        ssd_exporter::metrics::LAZY
            .iter()
            .any(|d| name == *d || name.strip_suffix("_total") == Some(d))
    };
    // A lazy family's zeros go, nothing else of it.
    let lost: Vec<&String> = full
        .keys()
        .filter(|k| !default.contains_key(*k) && !diagnostic(k))
        .filter(|k| !(lazy(k) && full[*k] == 0.0))
        .collect();
    assert!(lost.is_empty(), "lost by default: {lost:?}");
    let zeros: Vec<&String> = default
        .keys()
        .filter(|k| lazy(k) && default[*k] == 0.0 && !k.contains("result=\"ok\""))
        .collect();
    assert!(
        zeros.is_empty(),
        "lazy but served at 0 by default: {zeros:?}"
    );
    assert!(
        full.iter().any(|(k, v)| lazy(k) && *v == 0.0),
        "no zero of a lazy family served with diagnostics"
    );
    let kept: Vec<&String> = default.keys().filter(|k| diagnostic(k)).collect();
    assert!(
        kept.is_empty(),
        "diagnostic but served by default: {kept:?}"
    );
    let added: Vec<&String> = default
        .keys()
        .filter(|k| !full.contains_key(*k) && !volatile(k))
        .collect();
    assert!(added.is_empty(), "served only by default: {added:?}");
    assert!(
        full.keys().any(|k| diagnostic(k)),
        "no diagnostic family served at all"
    );
}

/// The check every scraped exposition goes through (`common::parse`): a
/// series served twice in one body is refused, not silently kept once.
#[test]
#[should_panic(
    expected = "serves ssd_ata_attribute_raw{device=\"sdx\",serial=\"S\",id=\"1\",name=\"Raw_Read_Error_Rate\"} more than once"
)]
fn an_exposition_serving_a_series_twice_is_refused() {
    let raw =
        "ssd_ata_attribute_raw{device=\"sdx\",serial=\"S\",id=\"1\",name=\"Raw_Read_Error_Rate\"}";
    parse(&format!(
        "# TYPE ssd_ata_attribute_raw gauge\n{raw} 11\n{raw} 12\n"
    ));
}
