//! No exposition the exporter produces holds the same series twice (the
//! same name and the same labels, in whatever order): OpenMetrics forbids
//! it, Prometheus keeps one sample and counts a scrape error
//! (`prometheus_target_scrapes_sample_duplicate_timestamp_total`), and a
//! client_golang-based peer fails the whole scrape. Checked on every
//! fixture (the default families and all of them), the demo, and a replay
//! of a SATA table that lists an id more than once, in both formats.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{Exporter, parse, split_series, start_on_fixtures};
use crate::fixtures::sata::repeats::replay_satadom;

const TEXT: &str = "";
const OPENMETRICS: &str = "Accept: application/openmetrics-text;version=1.0.0\r\n";

/// Each sample line's series (name and sorted labels) served more than
/// once in `body`, and how many series there are in all.
fn served_twice(body: &str) -> (Vec<String>, usize) {
    let mut seen: BTreeSet<(String, BTreeMap<String, String>)> = BTreeSet::new();
    let mut twice = Vec::new();
    for line in body.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let Some((key, _)) = line.rsplit_once(' ') else {
            continue;
        };
        if !seen.insert(split_series(key)) {
            twice.push(key.to_string());
        }
    }
    (twice, seen.len())
}

/// Every exposition of `exporter`, in both formats, against the rule.
fn check(what: &str, exporter: &Exporter, out: &mut Vec<String>) {
    for (format, accept) in [("text", TEXT), ("openmetrics", OPENMETRICS)] {
        let (twice, all) = served_twice(&exporter.get("/metrics", accept).1);
        assert!(all > 0, "{what} ({format}): no series at all");
        out.extend(twice.into_iter().map(|k| format!("{what} ({format}): {k}")));
    }
}

/// The demo's drives, once each has been polled.
fn demo() -> Exporter {
    let e = Exporter::start(&["--demo"]);
    // Drives appear once discovery ran: wait for them (a loaded machine
    // can take seconds), rather than take the first scrape's empty list.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let devices: BTreeSet<String> = loop {
        let found: BTreeSet<String> = parse(&e.get("/metrics", "").1)
            .keys()
            .filter(|k| k.starts_with("ssd_device_info{"))
            .filter_map(|k| split_series(k).1.remove("device"))
            .collect();
        if !found.is_empty() || std::time::Instant::now() > deadline {
            break found;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(!devices.is_empty(), "the demo serves no drive within 60 s");
    e.scrape_after_polls(&devices.into_iter().collect::<Vec<_>>(), 1.0);
    e
}

#[test]
fn no_exposition_serves_a_series_twice() {
    let mut twice = Vec::new();
    let (fixtures, _) = start_on_fixtures(&[]);
    check("every fixture", &fixtures, &mut twice);
    drop(fixtures);
    let (full, _) = start_on_fixtures(&["--metrics.diagnostics"]);
    check("every fixture, metrics.diagnostics", &full, &mut twice);
    drop(full);
    check("the demo", &demo(), &mut twice);
    let (_tmp, satadom) = replay_satadom();
    satadom.scrape_after_polls(&["sdx".to_string()], 2.0);
    check("a table listing id 1 four times", &satadom, &mut twice);
    assert!(twice.is_empty(), "served twice:\n{}", twice.join("\n"));
}

/// The rule's own check sees a repeat whatever the order of its labels.
#[test]
fn a_repeat_with_its_labels_reordered_is_still_a_repeat() {
    let body = "# TYPE ssd_ata_attribute_raw gauge\n\
                ssd_ata_attribute_raw{device=\"sdx\",id=\"1\"} 11\n\
                ssd_ata_attribute_raw{id=\"1\",device=\"sdx\"} 12\n\
                ssd_ata_attribute_raw{device=\"sdx\",id=\"9\"} 8760\n";
    let (twice, all) = served_twice(body);
    assert_eq!(twice, ["ssd_ata_attribute_raw{id=\"1\",device=\"sdx\"}"]);
    assert_eq!(all, 2);
}
