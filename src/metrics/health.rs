//! Health families: temperatures, warnings, wear, counters, throttling, OCP.

use crate::nvme::Condition;
use std::fmt;

use prometheus_client::metrics::MetricType;

use super::tables::{COUNTERS, GAUGES};
use super::{Enc, Exposition, Wide, counter, family};
use crate::reading::{Reading, THROTTLE_LEVELS};
use crate::snapshot::DriveSnapshot;

impl Exposition {
    pub(super) fn health(&self, enc: &mut Enc) -> fmt::Result {
        let readings: Vec<(&DriveSnapshot, &Reading)> = self
            .drives
            .iter()
            .filter_map(|d| d.reading.as_ref().map(|r| (d.as_ref(), r)))
            .collect();
        let temps = readings.iter().flat_map(|(d, r)| {
            r.temperatures
                .iter()
                .map(|(s, t)| (Self::with(d, [("sensor", s)]), *t))
        });
        family(
            enc,
            "ssd_temperature_celsius",
            "Temperature per sensor; composite is the drive's own summary.",
            MetricType::Gauge,
            temps,
        )?;
        let thresholds = readings.iter().flat_map(|(d, r)| {
            [
                ("warning", r.temperature_warning_celsius),
                ("critical", r.temperature_critical_celsius),
            ]
            .into_iter()
            .filter_map(|(level, t)| t.map(|t| (Self::with(d, [("level", level)]), t)))
        });
        family(
            enc,
            "ssd_temperature_threshold_celsius",
            "The drive's own composite temperature thresholds.",
            MetricType::Gauge,
            thresholds,
        )?;
        let seen = self.drives.iter().flat_map(|d| {
            let range = d.history.temperature_range();
            range.into_iter().flat_map(move |(lo, hi)| {
                [("min", lo), ("max", hi)].map(|(b, t)| (Self::with(d, [("bound", b)]), t))
            })
        });
        family(
            enc,
            "ssd_temperature_seen_celsius",
            "Lowest and highest composite temperature the exporter has seen of this drive (kept in the state file across restarts).",
            MetricType::Gauge,
            seen,
        )?;
        // A condition not raised is served only with diagnostics (see
        // `Detail::lazy`): `ssd_health_status` judges every bit either way.
        let lazy = self.build.detail.lazy();
        let bits = |f: fn(&Reading) -> &Vec<(Condition, bool)>| {
            readings.iter().flat_map(move |(d, r)| {
                f(r).iter()
                    .filter(move |&&(_, set)| set || !lazy)
                    .map(move |&(c, set)| {
                        (Self::with(d, [("condition", c.as_label())]), f64::from(set))
                    })
            })
        };
        family(
            enc,
            "ssd_critical_warning",
            "1 while the drive raises this critical warning condition.",
            MetricType::Gauge,
            bits(|r| &r.critical_warning),
        )?;
        family(
            enc,
            "ssd_endurance_group_critical_warning",
            "1 while the endurance group summary raises this condition.",
            MetricType::Gauge,
            bits(|r| &r.endurance_group_warning),
        )?;
        for &(name, help, f) in GAUGES {
            let rows = readings
                .iter()
                .filter_map(|(d, r)| f(r).map(|v| (Self::base(d), v)));
            family(enc, name, help, MetricType::Gauge, rows)?;
        }
        for &(name, help, f) in COUNTERS {
            let rows = readings
                .iter()
                .filter_map(|(d, r)| f(&r.counters).map(|v| (Self::base(d), Wide(v))));
            counter(enc, name, help, rows)?;
        }
        let levels = |f: fn(&Reading) -> Option<[u64; 2]>| {
            readings.iter().flat_map(move |(d, r)| {
                f(r).into_iter().flat_map(move |v| {
                    THROTTLE_LEVELS
                        .iter()
                        .zip(v)
                        .map(move |(l, n)| (Self::with(d, [("level", l)]), Wide(u128::from(n))))
                })
            })
        };
        counter(
            enc,
            "ssd_thermal_throttle_transitions",
            "Transitions into thermal management (light = TMT1, heavy = TMT2).",
            levels(|r| r.throttle_transitions),
        )?;
        counter(
            enc,
            "ssd_thermal_throttle_seconds",
            "Time in thermal management (light = TMT1, heavy = TMT2).",
            levels(|r| r.throttle_seconds),
        )?;
        let blocks = readings.iter().flat_map(|(d, r)| {
            r.bad_blocks
                .iter()
                .map(|&(a, n)| (Self::with(d, [("area", a)]), n as f64))
        });
        family(
            enc,
            "ssd_bad_blocks",
            "Bad NAND blocks per area.",
            MetricType::Gauge,
            blocks,
        )?;
        let tests = readings.iter().filter_map(|(d, r)| {
            r.self_test_last_result
                .map(|res| (Self::with(d, [("result", res)]), 1.0))
        });
        family(
            enc,
            "ssd_self_test_last_result",
            "Result of the newest device self-test; always 1.",
            MetricType::Gauge,
            tests,
        )
    }
}
