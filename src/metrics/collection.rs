//! Collection families: identity, capacity, poll results and timing, skips,
//! power mode, read errors per source, task restarts, page support.

use std::fmt;
use std::time::UNIX_EPOCH;

use prometheus_client::metrics::MetricType;

use super::place::PlaceLabels;
use super::{Enc, Exposition, Wide, counter, family};
use crate::poll::Source;
use crate::snapshot::{DriveSnapshot, Task};

impl Exposition {
    /// Per-drive gauge from a snapshot accessor; `None` means no series.
    fn gauge(
        &self,
        enc: &mut Enc,
        name: &'static str,
        help: &str,
        f: impl Fn(&DriveSnapshot) -> Option<f64>,
    ) -> fmt::Result {
        let rows = self
            .drives
            .iter()
            .filter_map(|d| f(d).map(|v| (Self::base(d), v)));
        family(enc, name, help, MetricType::Gauge, rows)
    }

    pub(super) fn collection(&self, enc: &mut Enc) -> fmt::Result {
        let info = self.drives.iter().map(|d| {
            let id = &d.identity;
            let l = Self::with(
                d,
                [
                    ("transport", id.transport.as_str()),
                    ("kind", id.kind.as_label()),
                    ("model", &id.model),
                    ("firmware", &id.firmware),
                    ("wwn", &id.wwn),
                ],
            );
            ((l, PlaceLabels(&d.place)), 1.0)
        });
        family(
            enc,
            "ssd_device_info",
            "Drive identity; always 1.",
            MetricType::Gauge,
            info,
        )?;
        self.gauge(enc, "ssd_capacity_bytes", "User capacity.", |d| {
            d.identity.capacity_bytes.map(|b| b as f64)
        })?;
        self.gauge(
            enc,
            "ssd_device_up",
            "1 if the last poll of this drive read its health page.",
            |d| Some(f64::from(d.up)),
        )?;
        self.gauge(
            enc,
            "ssd_last_poll_timestamp_seconds",
            "Unix time of the last successful poll; every drive metric is cached from it.",
            |d| {
                d.last_success
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|t| t.as_secs_f64())
            },
        )?;
        self.gauge(
            enc,
            "ssd_state_age_seconds",
            "Age of the saved state this drive's history was restored from when the exporter started watching it (0: none).",
            |d| d.state_age.map(|a| a.as_secs_f64()),
        )?;
        self.gauge(
            enc,
            "ssd_poll_duration_seconds",
            "How long the last poll took.",
            |d| d.last_poll_duration.map(|t| t.as_secs_f64()),
        )?;
        let polls = self
            .drives
            .iter()
            .map(|d| (Self::base(d), Wide(u128::from(d.polls))));
        counter(
            enc,
            "ssd_polls",
            "Polls of this drive, successful or not.",
            polls,
        )?;
        let cpu = self
            .drives
            .iter()
            .map(|d| (Self::base(d), d.poll_cpu.as_secs_f64()));
        counter(
            enc,
            "ssd_poll_cpu_seconds",
            "CPU time the exporter spent polling this drive.",
            cpu,
        )?;
        // A SATA drive's `standby` count is served from 0, so the first skip
        // is an increase a rule can see.
        let skipped = self.drives.iter().flat_map(|d| {
            let mut counts = d.skipped.clone();
            if d.identity.transport == crate::device::discovery::Transport::Sata {
                counts.entry("standby").or_default();
            }
            counts
                .into_iter()
                .map(move |(r, n)| (Self::with(d, [("reason", r)]), Wide(u128::from(n))))
        });
        counter(
            enc,
            "ssd_poll_skipped",
            "Polls not made so as not to disturb the drive (standby: not woken).",
            skipped,
        )?;
        let modes = self
            .drives
            .iter()
            .filter_map(|d| d.power_mode.map(|m| (Self::with(d, [("mode", m)]), 1.0)));
        family(
            enc,
            "ssd_power_mode",
            "Power mode from the drive's last CHECK POWER MODE; always 1.",
            MetricType::Gauge,
            modes,
        )?;
        // Zero counts are served lazily (see `Detail::lazy`): the alerts
        // see a counter's first appearance (docs/metrics.md, "Lazily served").
        let lazy = self.build.detail.lazy();
        let errors = self.drives.iter().flat_map(|d| {
            let sources = poll_sources(d);
            sources
                .into_iter()
                .filter(move |&(_, n)| n > 0 || !lazy)
                .map(move |(s, n)| (Self::with(d, [("source", s)]), Wide(u128::from(n))))
        });
        counter(
            enc,
            "ssd_poll_errors",
            "Failed reads of a drive, per page or command.",
            errors,
        )?;
        // Every supervised task a drive has, lazily: the poll loop always,
        // the probe while the drive has one.
        let restarts = self.drives.iter().flat_map(|d| {
            let probes = self.probe_restarts.get(d.device.as_str()).copied();
            let counts = Task::ALL.into_iter().filter_map(move |t| match t {
                Task::Poll => Some((t, d.restarts.get(&t).copied().unwrap_or(0))),
                Task::Probe => probes.map(|n| (t, n)),
            });
            let counts = counts.filter(move |&(_, n)| n > 0 || !lazy);
            counts.map(move |(t, n)| (Self::with(d, [("task", t.as_label())]), Wide(u128::from(n))))
        });
        counter(
            enc,
            "ssd_exporter_task_restarts",
            "Restarts of this drive's supervised tasks after a panic or an unexpected end.",
            restarts,
        )?;
        let pages = self.drives.iter().flat_map(|d| {
            d.pages
                .iter()
                .map(move |(p, ok)| (Self::with(d, [("page", p.as_label())]), f64::from(*ok)))
        });
        family(
            enc,
            "ssd_page_supported",
            "1 if the exporter believes the drive supports this page, 0 if it answered that it does not (asked again with every identity refresh).",
            MetricType::Gauge,
            pages,
        )
    }
}

/// Sources a drive's error counter is counted for: the ones it can fail
/// on, from zero, plus any other seen.
fn poll_sources(d: &DriveSnapshot) -> Vec<(&'static str, u64)> {
    use crate::device::discovery::Transport;
    let known: &[Source] = match d.identity.transport {
        Transport::Nvme => &Source::NVME,
        Transport::Sata => &Source::SATA,
        Transport::Sas | Transport::Scsi => &Source::SCSI,
    };
    let mut out: Vec<(&'static str, u64)> = known
        .iter()
        .map(|s| (s.as_label(), d.errors.get(s).copied().unwrap_or(0)))
        .collect();
    for (s, &n) in &d.errors {
        if !known.contains(s) {
            out.push((s.as_label(), n));
        }
    }
    out
}
