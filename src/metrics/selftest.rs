//! Scheduled self-tests (`selftest.schedule`): served only for the drives
//! the schedule covers, so a host (or a replayed fixture) without one
//! carries no extra series.

use std::fmt;
use std::time::UNIX_EPOCH;

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, Wide, counter, family};
use crate::poll::selftest::Kind;

impl Exposition {
    pub(super) fn self_tests(&self, enc: &mut Enc) -> fmt::Result {
        let scheduled = || self.drives.iter().filter(|d| d.self_tests.is_some());
        let running = scheduled().filter_map(|d| {
            let flag = d.reading.as_ref()?.self_test_in_progress?;
            Some((Self::base(d), f64::from(flag)))
        });
        family(
            enc,
            "ssd_self_test_in_progress",
            "1 while the drive reports a device self-test running (its own self-test log or SMART data).",
            MetricType::Gauge,
            running,
        )?;
        let last = scheduled().filter_map(|d| {
            let t = d.self_tests.as_ref()?.last_run?;
            let secs = t.duration_since(UNIX_EPOCH).ok()?.as_secs_f64();
            Some((Self::base(d), secs))
        });
        family(
            enc,
            "ssd_self_test_last_run_timestamp_seconds",
            "Unix time the exporter last started a scheduled self-test on this drive.",
            MetricType::Gauge,
            last,
        )?;
        let started = scheduled().flat_map(|d| {
            let n = d.self_tests.as_ref().map_or([0; 2], |s| s.started);
            Kind::ALL.into_iter().map(move |k| {
                let v = n[k as usize];
                (Self::with(d, [("type", k.as_label())]), Wide(u128::from(v)))
            })
        });
        counter(
            enc,
            "ssd_self_tests_started",
            "Scheduled self-tests the exporter started on this drive.",
            started,
        )
    }
}
