//! The binary serving every dump fixture: the exposition equals the
//! checked-in golden file, every value equals the hand calculation in the
//! fixture's `meta.toml`, and promtool accepts it.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::*;

mod expected;

/// Series whose value changes from run to run.
const VOLATILE: [&str; 13] = [
    "ssd_poll_cpu_seconds_total",
    // How many workers are idle or busy depends on when the scrape comes
    // (and the pool starts one more beside a poll slower than 100 ms, as a
    // loaded test host makes them); `app::pool`'s tests hold the counts.
    "ssd_exporter_poll_workers",
    "ssd_last_poll_timestamp_seconds",
    "ssd_poll_duration_seconds",
    "ssd_exporter_build_info",
    "ssd_exporter_config_last_reload_success_timestamp_seconds",
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_virtual_memory_bytes",
    "process_threads",
    "process_open_fds",
    "process_max_fds",
    "process_start_time_seconds",
];

fn stable(text: &str) -> String {
    text.lines()
        .filter(|l| {
            !VOLATILE
                .iter()
                .any(|v| l.starts_with(v) || l.contains(&format!(" {v} ")))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn fixtures_exposition_equals_the_golden_file() {
    let got = stable(&serve_fixtures(""));
    let path = repo().join("tests/golden/fixtures.prom");
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got == want {
        return;
    }
    let diff: Vec<String> = want
        .lines()
        .filter(|l| !got.lines().any(|g| g == *l))
        .map(|l| format!("- {l}"))
        .chain(
            got.lines()
                .filter(|g| !want.lines().any(|l| l == *g))
                .map(|l| format!("+ {l}")),
        )
        .collect();
    // A rewrite is never a pass: the run that writes the file has compared
    // nothing. Review the diff, commit it, and run again without it.
    let rewritten = std::env::var_os("UPDATE_GOLDEN").is_some();
    if rewritten {
        std::fs::write(&path, &got).unwrap();
    }
    panic!(
        "exposition differs from {}{}:\n{}",
        path.display(),
        if rewritten {
            " (rewritten by UPDATE_GOLDEN: review `git diff tests/golden` and run the test again without it)"
        } else {
            " (UPDATE_GOLDEN=1 rewrites it, and fails; review the diff)"
        },
        diff.join("\n")
    );
}

/// Every fixture served with every family (`metrics.diagnostics`), which
/// is what each `meta.toml` writes down; the golden file is the default.
fn serve_fixtures_in_full() -> String {
    let (exporter, _) = start_on_fixtures(&["--metrics.diagnostics"]);
    exporter.get("/metrics", "").1
}

#[test]
fn fixtures_values_equal_the_hand_calculations_in_meta_toml() {
    let series = parse(&serve_fixtures_in_full());
    let mut checked = 0;
    let mut wrong = Vec::new();
    for dir in fixtures() {
        for want in expected::wants(&dir) {
            let got: Vec<f64> = series
                .iter()
                .filter(|(k, _)| want.is(k))
                .map(|(_, v)| *v)
                .collect();
            if !(got.len() == 1 && want.value.matches(got[0])) {
                let labels = &want.labels;
                wrong.push(format!(
                    "{}: {} with {labels:?}: served {got:?}, meta.toml says {:?}",
                    dir.display(),
                    want.key,
                    want.value
                ));
            }
            checked += 1;
        }
        for (key, name, labels) in expected::absent(&dir) {
            let found: Vec<&String> = series
                .keys()
                .filter(|k| {
                    let (n, l) = split_series(k);
                    n == name && labels.iter().all(|(lk, lv)| l.get(lk) == Some(lv))
                })
                .collect();
            if !found.is_empty() {
                wrong.push(format!(
                    "{}: {key} must be absent, found {found:?}",
                    dir.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 1000, "only {checked} expectations checked");
}

/// Nothing in the golden file goes without an expectation of its own: each
/// series a fixture serves is one its `meta.toml` writes down (`[expected]`,
/// `[expected_info]` or the `[verdict]` contract), so the golden file only
/// adds the exposition's form (HELP, TYPE, order, number format).
#[test]
fn every_served_series_is_written_down_in_a_meta_toml() {
    let series = parse(&stable(&serve_fixtures_in_full()));
    let dirs = fixtures();
    let wants: Vec<expected::Want> = dirs.iter().flat_map(|d| expected::wants(d)).collect();
    let mut unexpected = Vec::new();
    for (key, value) in &series {
        if key == "ssd_exporter_devices" {
            // One drive per fixture folder.
            assert_eq!(*value, dirs.len() as f64, "{key}");
            continue;
        }
        if key == "ssd_exporter_config_last_reload_successful" {
            // The configuration loaded at start counts as a successful load.
            assert_eq!(*value, 1.0, "{key}");
            continue;
        }
        let (name, labels) = split_series(key);
        if name == "ssd_temperature_seen_celsius" {
            // After one poll the lowest and the highest temperature seen are
            // both the composite temperature that poll read, which the
            // fixture's meta.toml expects (checked below as any other series).
            let mut composite = labels.clone();
            composite.remove("bound");
            composite.insert("sensor".into(), "composite".into());
            let read = find(&series, "ssd_temperature_celsius", &composite);
            assert_eq!(read, Some(*value), "{key}: the composite temperature read");
            continue;
        }
        if !wants.iter().any(|w| w.is(key)) {
            unexpected.push(format!("{key} {value}"));
        }
    }
    assert!(
        unexpected.is_empty(),
        "{} served series no meta.toml expects (write each down by hand, or list it in \
         [absent] and fix the exporter):\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(series.len() > 1000, "only {} series served", series.len());
}

#[test]
fn every_series_carries_device_and_serial() {
    let series = parse(&serve_fixtures(""));
    for key in series.keys() {
        // The exporter's own series, not a drive's.
        if key.starts_with("ssd_exporter_") || key.starts_with("process_") {
            continue;
        }
        let (_, labels) = split_series(key);
        assert!(
            labels.contains_key("device") && labels.contains_key("serial"),
            "{key}"
        );
    }
}

#[test]
fn promtool_accepts_the_exposition() {
    let text = serve_fixtures("");
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool (Debian package prometheus) must be installed; the README test command installs it");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let msg = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "promtool check metrics failed:\n{msg}"
    );
}

#[test]
fn openmetrics_exposition_has_the_same_samples() {
    let om = serve_fixtures("Accept: application/openmetrics-text;version=1.0.0\r\n");
    assert!(
        om.ends_with("# EOF\n"),
        "not OpenMetrics: {}",
        &om[om.len().saturating_sub(200)..]
    );
    let plain = parse(&stable(&serve_fixtures("")));
    let om = parse(&stable(&om));
    assert_eq!(
        om.keys().collect::<Vec<_>>(),
        plain.keys().collect::<Vec<_>>()
    );
    // The same numbers too, however each format writes them (`1` / `1.0`).
    let differ: Vec<String> = plain
        .iter()
        .filter(|(k, v)| om[*k] != **v)
        .map(|(k, v)| format!("{k}: text {v}, OpenMetrics {}", om[k]))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // Far more than a parse of a broken page (758 with the lazy zeros and
    // the diagnostic families left out).
    assert!(plain.len() > 600, "{} samples", plain.len());
}

/// The first `ssd_polls_total` series of a scrape.
fn first_polls_total(series: &BTreeMap<String, f64>) -> f64 {
    series
        .iter()
        .find(|(k, _)| k.starts_with("ssd_polls_total{"))
        .map(|(_, v)| *v)
        .unwrap()
}

#[test]
fn replay_rereads_files_so_counters_follow_a_changed_page() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nvme9");
    std::fs::create_dir(&dir).unwrap();
    let src = repo().join("tests/fixtures/nvme/kingston-dc2000b/nvme0");
    for f in ["id-ctrl.bin", "smart-log.bin"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let exporter = Exporter::start(&[
        &format!("--replay={}", path_str(&dir)),
        "--poll.interval=200ms",
    ]);
    let devices = ["nvme9".to_string()];
    let before = parse(&exporter.scrape_after_polls(&devices, 1.0));
    let media = |s: &BTreeMap<String, f64>| {
        s.iter()
            .find(|(k, _)| k.starts_with("ssd_media_errors_total{"))
            .map(|(_, v)| *v)
    };
    assert_eq!(media(&before), Some(0.0));
    // Media errors: SMART log bytes 160..176 (u128, little endian). 0x0102 = 258.
    let mut smart = std::fs::read(dir.join("smart-log.bin")).unwrap();
    smart[160] = 0x02;
    smart[161] = 0x01;
    std::fs::write(dir.join("smart-log.bin"), &smart).unwrap();
    let polls = first_polls_total(&before);
    let after = parse(&exporter.scrape_after_polls(&devices, polls + 2.0));
    assert_eq!(media(&after), Some(258.0));
    // A page that turns bad is counted and the last good values are kept.
    std::fs::write(dir.join("smart-log.bin"), [0u8; 10]).unwrap();
    let after_bad = parse(&exporter.scrape_after_polls(&devices, polls + 4.0));
    let errors = after_bad
        .iter()
        .find(|(k, _)| {
            k.starts_with("ssd_poll_errors_total{") && k.contains("source=\"smart_log\"")
        })
        .map(|(_, v)| *v);
    assert!(errors.is_some_and(|e| e >= 1.0), "{errors:?}");
    assert_eq!(media(&after_bad), Some(258.0));
    let up = after_bad
        .iter()
        .find(|(k, _)| k.starts_with("ssd_device_up{"))
        .map(|(_, v)| *v);
    assert_eq!(up, Some(0.0));
}

/// Issue 15's failing SAS drive with its defects growing: the replayed
/// `defects.bin` grows from 50 to 52 entries and an uncorrected read error
/// is added between polls; both are problems only once they rise.
#[test]
fn a_sas_drive_whose_defects_and_uncorrected_errors_grow_is_judged_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sdy");
    std::fs::create_dir(&dir).unwrap();
    let src = repo().join("tests/fixtures/sas/failing/sdh");
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "bin") {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
    }
    let exporter = Exporter::start(&[
        &format!("--replay={}", path_str(&dir)),
        "--poll.interval=200ms",
    ]);
    let devices = ["sdy".to_string()];
    let problems = |s: &BTreeMap<String, f64>| -> Vec<String> {
        s.keys()
            .filter(|k| k.starts_with("ssd_health_problem{"))
            .map(|k| split_series(k).1["problem"].clone())
            .collect()
    };
    let before = parse(&exporter.scrape_after_polls(&devices, 2.0));
    let p = problems(&before);
    assert!(
        !p.contains(&"grown_defects_increasing".to_string()),
        "{p:?}"
    );
    assert!(!p.contains(&"media_errors_increasing".to_string()), "{p:?}");
    // READ DEFECT DATA header: 416 bytes of 8-byte entries = 52 defects.
    std::fs::write(dir.join("defects.bin"), [0x00, 0x0D, 0x01, 0xA0]).unwrap();
    // Log 03h parameter 0006h (the last, 8 value bytes): 9 -> 10.
    let mut read = std::fs::read(dir.join("log-03.bin")).unwrap();
    let last = read.len() - 1;
    assert_eq!(read[last], 9);
    read[last] = 10;
    std::fs::write(dir.join("log-03.bin"), &read).unwrap();
    let polls = first_polls_total(&before);
    let after = parse(&exporter.scrape_after_polls(&devices, polls + 2.0));
    let p = problems(&after);
    assert!(p.contains(&"grown_defects_increasing".to_string()), "{p:?}");
    assert!(p.contains(&"media_errors_increasing".to_string()), "{p:?}");
    let defects = after
        .iter()
        .find(|(k, _)| k.starts_with("ssd_scsi_grown_defects{"))
        .map(|(_, v)| *v);
    assert_eq!(defects, Some(52.0));
}
