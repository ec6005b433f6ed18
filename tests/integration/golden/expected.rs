//! What each fixture's `meta.toml` says the exporter serves after one poll:
//! `[expected]` (with `[expected_info]` for `ssd_device_info`), and the
//! health series its `[verdict]` contract implies.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{meta, split_series};
use crate::fixtures::verdicts::contract;

/// `ssd_health_status` for each status name of the contract
/// (docs/metrics.md: 0 ok, 1 warning, 2 critical, 3 unknown: no core
/// health data and nothing critical, 4 not judged: not a drive the verdict
/// can judge).
fn status_value(status: &str) -> f64 {
    match status {
        "ok" => 0.0,
        "warning" => 1.0,
        "critical" => 2.0,
        "unknown" => 3.0,
        "not judged" => 4.0,
        other => panic!(
            "[verdict] status {other:?} is none of ok, warning, critical, unknown, not judged"
        ),
    }
}

/// A value as written: a TOML integer is a count and must be served
/// exactly; a float (a ratio, a forecast) is computed in f64 by the
/// exporter and may differ from the exact decimal in its last bits.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Exact(f64),
    Approx(f64),
}

impl Value {
    fn from_toml(v: &toml::Value) -> Value {
        match v {
            toml::Value::Integer(i) => Value::Exact(*i as f64),
            toml::Value::Float(f) => Value::Approx(*f),
            other => panic!("not a number: {other}"),
        }
    }

    pub fn matches(self, got: f64) -> bool {
        match self {
            Value::Exact(w) => got == w,
            Value::Approx(w) => (got - w).abs() <= w.abs() * 1e-12,
        }
    }
}

/// One expected series. `subset`: the served series may carry more labels
/// (`ssd_device_info`'s `wwn`, which no fixture asserts).
#[derive(Debug)]
pub struct Want {
    pub key: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: Value,
    pub subset: bool,
}

impl Want {
    /// Whether the served `key` is this series.
    pub fn is(&self, key: &str) -> bool {
        let (n, l) = split_series(key);
        n == self.name
            && if self.subset {
                self.labels.iter().all(|(k, v)| l.get(k) == Some(v))
            } else {
                l == self.labels
            }
    }
}

/// `device` and `serial`, which every series of the fixture carries.
pub fn base_labels(meta: &toml::Table) -> BTreeMap<String, String> {
    ["device", "serial"]
        .into_iter()
        .map(|k| (k.to_string(), meta[k].as_str().unwrap().to_string()))
        .collect()
}

/// Every series the fixture's `meta.toml` expects, with its value.
pub fn wants(dir: &Path) -> Vec<Want> {
    let meta = meta(dir);
    let base = base_labels(&meta);
    let at = dir.display();
    let mut out = Vec::new();
    for (key, value) in meta["expected"].as_table().unwrap() {
        let (name, mut labels) = split_series(key);
        assert!(
            !name.starts_with("ssd_health_"),
            "{at}: {key} belongs in [verdict], not [expected]"
        );
        labels.extend(base.clone());
        let subset = name == "ssd_device_info";
        if subset {
            let info = meta["expected_info"].as_table().unwrap_or_else(|| {
                panic!("{at}: [expected] ssd_device_info needs [expected_info]")
            });
            for (k, v) in info {
                labels.insert(k.clone(), v.as_str().unwrap().to_string());
            }
        }
        let value = Value::from_toml(value);
        out.push(Want {
            key: key.clone(),
            name,
            labels,
            value,
            subset,
        });
    }
    assert!(
        !meta.contains_key("expected_info") || meta["expected"].get("ssd_device_info").is_some(),
        "{at}: [expected_info] is checked with [expected] ssd_device_info, which is missing"
    );
    let c = contract(dir);
    let health = |name: &str, extra: &[(&str, &str)], value: f64| {
        let mut labels = base.clone();
        labels.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Want {
            key: format!("{name}{extra:?} ([verdict])"),
            name: name.to_string(),
            labels,
            value: Value::Exact(value),
            subset: false,
        }
    };
    out.push(health("ssd_health_status", &[], status_value(&c.status)));
    for (problem, severity) in &c.problems {
        let labels = [
            ("problem", problem.as_str()),
            ("severity", severity.as_str()),
        ];
        out.push(health("ssd_health_problem", &labels, 1.0));
    }
    for data in &c.unknown {
        out.push(health("ssd_health_unknown", &[("data", data)], 1.0));
    }
    out
}

/// The `[absent]` series: name and labels (with device and serial); absent
/// with any further labels too.
pub fn absent(dir: &Path) -> Vec<(String, String, BTreeMap<String, String>)> {
    let meta = meta(dir);
    let base = base_labels(&meta);
    meta["absent"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let key = a.as_str().unwrap().to_string();
            let (name, mut labels) = split_series(&key);
            labels.extend(base.clone());
            (key, name, labels)
        })
        .collect()
}
