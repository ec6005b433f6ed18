//! Every metric the exporter serves — name, help, type and labels — in one
//! place (`shared/reference/metrics.md` is the contract). Metrics are built
//! fresh on every scrape from the drives' snapshots, so a vanished drive's
//! series vanish with it, and nothing here touches a drive.

use std::fmt;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    CounterValueEncoder, DescriptorEncoder, EncodeCounterValue, EncodeMetric,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use crate::poll::Source;
use crate::probe::fleet::ProbeView;
use crate::snapshot::{DriveSnapshot, Task};

mod ata;
mod health;
mod probe;
mod process;
mod scsi;
mod tables;
mod verdict;

/// Exposition formats (`/metrics` content negotiation picks one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    OpenMetrics,
    Prometheus,
}

/// Version and revision for `ssd_exporter_build_info`.
#[derive(Debug, Clone)]
pub struct BuildInfo {
    pub version: String,
    pub revision: String,
}

impl Default for BuildInfo {
    fn default() -> Self {
        Self {
            version: env!("CARGO_PKG_VERSION").to_string(),
            revision: env!("SSD_EXPORTER_REVISION").to_string(),
        }
    }
}

/// Encodes `drives` in `format`. A drive appears once its first poll has
/// finished, overrun its deadline or been skipped (standby), so its series
/// never show a half-known identity; `ssd_exporter_devices` counts it from
/// discovery on.
pub fn encode(
    drives: Vec<Arc<DriveSnapshot>>,
    probes: Vec<ProbeView>,
    build: &BuildInfo,
    format: TextFormat,
) -> String {
    let monitored = drives.len();
    let (drives, pending): (Vec<_>, Vec<_>) = drives
        .into_iter()
        .partition(|d| d.polls > 0 || !d.skipped.is_empty());
    // A drive's probe series wait for the drive's own (a probe can start
    // before the first poll, e.g. of a hot-plugged drive): they carry its
    // serial, which is only known then.
    let probes = probes
        .into_iter()
        .filter(|p| !pending.iter().any(|d| d.device == p.drive))
        .collect();
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Exposition {
        drives,
        probes,
        monitored,
        build: build.clone(),
        process: process::ProcessStats::read(),
    }));
    let mut out = String::with_capacity(64 * 1024);
    let result = match format {
        TextFormat::OpenMetrics => prometheus_client::encoding::text::encode(&mut out, &registry),
        TextFormat::Prometheus => {
            prometheus_client::encoding::prometheus_text::encode(&mut out, &registry)
        }
    };
    // Writing into a String cannot fail; a label-value encoding error would
    // be a bug, and a truncated page is better than a panic on the scrape path.
    if let Err(e) = result {
        tracing::error!("encoding metrics failed: {e}");
    }
    out
}

/// A counter value kept at full width: exact as an integer up to 2^64,
/// then as the nearest float (Prometheus stores float64 anyway).
#[derive(Debug, Clone, Copy)]
struct Wide(u128);

impl EncodeCounterValue for Wide {
    fn encode(&self, encoder: &mut CounterValueEncoder) -> Result<(), fmt::Error> {
        match u64::try_from(self.0) {
            Ok(v) => v.encode(encoder),
            Err(_) => (self.0 as f64).encode(encoder),
        }
    }
}

/// Label pairs borrowed from the snapshots: no per-series string copies.
type Labels<'a> = Vec<(&'static str, &'a str)>;

#[derive(Debug)]
struct Exposition {
    drives: Vec<Arc<DriveSnapshot>>,
    probes: Vec<ProbeView>,
    monitored: usize,
    build: BuildInfo,
    process: Option<process::ProcessStats>,
}

impl Collector for Exposition {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), fmt::Error> {
        let labels = vec![
            ("version", self.build.version.as_str()),
            ("revision", self.build.revision.as_str()),
        ];
        let info = "Version of the exporter; always 1.";
        family(
            &mut enc,
            "ssd_exporter_build_info",
            info,
            MetricType::Gauge,
            [(labels, 1.0)],
        )?;
        let n = [(Vec::new(), self.monitored as f64)];
        family(
            &mut enc,
            "ssd_exporter_devices",
            "Drives being monitored.",
            MetricType::Gauge,
            n,
        )?;
        self.collection(&mut enc)?;
        self.health(&mut enc)?;
        self.verdict(&mut enc)?;
        self.ata(&mut enc)?;
        self.scsi(&mut enc)?;
        self.probe(&mut enc)?;
        self.process(&mut enc)
    }
}

impl Exposition {
    /// `device` and `serial`, the labels every per-drive series carries.
    fn base(d: &DriveSnapshot) -> Labels<'_> {
        vec![("device", &d.device), ("serial", &d.identity.serial)]
    }

    fn with<'a>(d: &'a DriveSnapshot, extra: &[(&'static str, &'a str)]) -> Labels<'a> {
        let mut l = Vec::with_capacity(2 + extra.len());
        l.extend([
            ("device", d.device.as_str()),
            ("serial", &d.identity.serial),
        ]);
        l.extend_from_slice(extra);
        l
    }

    /// Per-drive gauge from a snapshot accessor; `None` means no series.
    fn gauge(
        &self,
        enc: &mut DescriptorEncoder,
        name: &str,
        help: &str,
        f: impl Fn(&DriveSnapshot) -> Option<f64>,
    ) -> fmt::Result {
        let rows = self
            .drives
            .iter()
            .filter_map(|d| f(d).map(|v| (Self::base(d), v)));
        family(enc, name, help, MetricType::Gauge, rows)
    }

    fn collection(&self, enc: &mut DescriptorEncoder) -> fmt::Result {
        let info = self.drives.iter().map(|d| {
            let id = &d.identity;
            let l = Self::with(
                d,
                &[
                    ("transport", id.transport.as_str()),
                    ("model", &id.model),
                    ("firmware", &id.firmware),
                    ("wwn", &id.wwn),
                ],
            );
            (l, 1.0)
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
                .map(move |(r, n)| (Self::with(d, &[("reason", r)]), Wide(u128::from(n))))
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
            .filter_map(|d| d.power_mode.map(|m| (Self::with(d, &[("mode", m)]), 1.0)));
        family(
            enc,
            "ssd_power_mode",
            "Power mode from the drive's last CHECK POWER MODE; always 1.",
            MetricType::Gauge,
            modes,
        )?;
        let errors = self.drives.iter().flat_map(|d| {
            let sources = poll_sources(d);
            sources
                .into_iter()
                .map(move |(s, n)| (Self::with(d, &[("source", s)]), Wide(u128::from(n))))
        });
        counter(
            enc,
            "ssd_poll_errors",
            "Failed reads of a drive, per page or command.",
            errors,
        )?;
        // Every supervised task a drive has is served from 0, so that the
        // first restart is an increase a rule can see: the poll loop always,
        // the probe while the drive has one.
        let restarts = self.drives.iter().flat_map(|d| {
            let probes: Vec<u64> = self
                .probes
                .iter()
                .filter(|v| v.drive == d.device)
                .map(|v| v.restarts)
                .collect();
            let counts = Task::ALL.into_iter().filter_map(move |t| match t {
                Task::Poll => Some((t, d.restarts.get(&t).copied().unwrap_or(0))),
                Task::Probe => (!probes.is_empty()).then(|| (t, probes.iter().sum())),
            });
            counts.map(move |(t, n)| {
                (
                    Self::with(d, &[("task", t.as_label())]),
                    Wide(u128::from(n)),
                )
            })
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
                .map(move |(p, ok)| (Self::with(d, &[("page", p.as_label())]), f64::from(*ok)))
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

/// Sources a drive's error counter is shown for: the ones it can fail on,
/// from zero, so `increase()` sees the first failure, plus any other seen.
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

/// Writes one gauge family; a family without rows writes nothing.
fn family<'a>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    rows: impl IntoIterator<Item = (Labels<'a>, f64)>,
) -> fmt::Result {
    let mut rows = rows.into_iter().peekable();
    if rows.peek().is_none() {
        return Ok(());
    }
    let mut m = enc.encode_descriptor(name, help, None, kind)?;
    for (labels, v) in rows {
        ConstGauge::new(v).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}

/// Writes one counter family (`name` without `_total`).
fn counter<'a, V: EncodeCounterValue>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (Labels<'a>, V)>,
) -> fmt::Result {
    let mut rows = rows.into_iter().peekable();
    if rows.peek().is_none() {
        return Ok(());
    }
    let mut m = enc.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, v) in rows {
        ConstCounter::new(v).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}
