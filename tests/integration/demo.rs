//! `--demo`: the simulated fleet served by the real binary.

use std::collections::BTreeMap;

use crate::common::{Exporter, parse, split_series};

/// Each drive's value of `name`, by `device`.
fn by_device(series: &BTreeMap<String, f64>, name: &str) -> BTreeMap<String, f64> {
    series
        .iter()
        .filter_map(|(k, v)| {
            let (n, l) = split_series(k);
            (n == name).then(|| (l["device"].clone(), *v))
        })
        .collect()
}

#[test]
fn demo_serves_six_simulated_drives_one_failing_one_fail_slow() {
    let e = Exporter::start(&["--demo"]);
    let drives: Vec<String> = ["nvme0", "nvme1", "nvme2", "sda", "sdb", "nvme3"]
        .map(String::from)
        .into();
    let body = e.scrape_after_polls(&drives, 2.0);
    let series = parse(&body);
    let status = by_device(&series, "ssd_health_status");
    let expected: BTreeMap<String, f64> = [
        ("nvme0", 0.0),
        ("nvme1", 0.0),
        ("nvme2", 2.0),
        ("sda", 0.0),
        ("sdb", 0.0),
        // fail-slow: only its latency says so, which is for the fleet rules
        ("nvme3", 0.0),
    ]
    .map(|(d, v)| (d.to_string(), v))
    .into();
    assert_eq!(status, expected, "{body}");
    for (d, up) in by_device(&series, "ssd_device_up") {
        assert_eq!(up, 1.0, "{d} down");
    }
    let errors: f64 = by_device(&series, "ssd_poll_errors_total").values().sum();
    let failing: Vec<_> = series
        .iter()
        .filter(|(k, v)| k.starts_with("ssd_poll_errors_total{") && **v > 0.0)
        .collect();
    assert_eq!(errors, 0.0, "{failing:?}");
    // Every simulated drive has a probe with samples in its window.
    let samples = by_device(&series, "ssd_probe_window_samples");
    assert_eq!(samples.len(), 6, "{samples:?}");
    assert!(samples.values().all(|&n| n > 0.0), "{samples:?}");
    // Serials mark the drives as simulated, and so does the landing page.
    let serials: Vec<_> = series
        .keys()
        .filter(|k| k.starts_with("ssd_device_info{"))
        .map(|k| split_series(k).1["serial"].clone())
        .collect();
    assert_eq!(serials.len(), 6);
    // The SAS SSD is served as SAS, with its SCSI-only series.
    assert!(
        body.contains(r#"device="sdb",serial="DEMO0000000000000005",transport="sas""#),
        "{body}"
    );
    assert!(
        body.contains("ssd_sas_phy_errors_total{device=\"sdb\""),
        "{body}"
    );
    assert!(serials.iter().all(|s| s.starts_with("DEMO")), "{serials:?}");
    let (_, page) = e.get("/", "");
    assert!(page.contains("class=\"banner\">DEMO MODE"), "{page}");
}

#[test]
fn demo_and_replay_together_is_a_config_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ssd_exporter"))
        .args(["--demo", "--replay=/nonexistent", "--check-config"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("demo") && err.contains("replay"), "{err}");
}
