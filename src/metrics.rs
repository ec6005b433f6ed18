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

use crate::health::{Counters, Reading, reading::THROTTLE_LEVELS};
use crate::snapshot::DriveSnapshot;

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
/// finished (or overrun its deadline), so its series never show a
/// half-known identity; `ssd_exporter_devices` counts it from discovery on.
pub fn encode(drives: Vec<Arc<DriveSnapshot>>, build: &BuildInfo, format: TextFormat) -> String {
    let monitored = drives.len();
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Exposition {
        drives: drives.into_iter().filter(|d| d.polls > 0).collect(),
        monitored,
        build: build.clone(),
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
    monitored: usize,
    build: BuildInfo,
}

/// A per-drive counter: name without `_total`, help, and where it lives.
type CounterDef = (&'static str, &'static str, fn(&Counters) -> Option<u128>);

/// Per-drive counters of the unified reading, in exposition order.
const COUNTERS: &[CounterDef] = &[
    (
        "ssd_host_read_bytes",
        "Bytes the host read (NVMe data units x 512000).",
        |c| c.host_read_bytes,
    ),
    (
        "ssd_host_written_bytes",
        "Bytes the host wrote (NVMe data units x 512000).",
        |c| c.host_written_bytes,
    ),
    (
        "ssd_host_read_commands",
        "Read commands the drive completed.",
        |c| c.host_read_commands,
    ),
    (
        "ssd_host_write_commands",
        "Write commands the drive completed.",
        |c| c.host_write_commands,
    ),
    (
        "ssd_controller_busy_seconds",
        "Time the controller was busy with I/O.",
        |c| c.controller_busy_seconds,
    ),
    ("ssd_power_cycles", "Power cycles.", |c| c.power_cycles),
    (
        "ssd_power_on_seconds",
        "Power-on time (reported in hours by the drive).",
        |c| c.power_on_seconds,
    ),
    (
        "ssd_unsafe_shutdowns",
        "Power losses without a prior shutdown notification.",
        |c| c.unsafe_shutdowns,
    ),
    (
        "ssd_media_errors",
        "Unrecovered data integrity errors.",
        |c| c.media_errors,
    ),
    (
        "ssd_error_log_entries",
        "Error information log entries over the drive's life.",
        |c| c.error_log_entries,
    ),
    ("ssd_crc_errors", "Interface CRC errors.", |c| c.crc_errors),
    (
        "ssd_temperature_above_warning_seconds",
        "Time at or above the warning composite temperature threshold.",
        |c| c.temperature_above_warning_seconds,
    ),
    (
        "ssd_temperature_above_critical_seconds",
        "Time at or above the critical composite temperature threshold.",
        |c| c.temperature_above_critical_seconds,
    ),
    (
        "ssd_thermal_throttle_events",
        "Thermal throttling events (OCP extended SMART).",
        |c| c.thermal_throttle_events,
    ),
    (
        "ssd_plp_starts",
        "Times power-loss protection was triggered (OCP extended SMART).",
        |c| c.plp_starts,
    ),
    (
        "ssd_nand_written_bytes",
        "Bytes written to the NAND media (OCP physical media units written).",
        |c| c.nand_written_bytes,
    ),
    (
        "ssd_nand_read_bytes",
        "Bytes read from the NAND media (OCP physical media units read).",
        |c| c.nand_read_bytes,
    ),
    (
        "ssd_uncorrectable_read_errors",
        "Uncorrectable read errors (OCP extended SMART).",
        |c| c.uncorrectable_read_errors,
    ),
    (
        "ssd_incomplete_shutdowns",
        "Shutdowns that did not complete (OCP extended SMART).",
        |c| c.incomplete_shutdowns,
    ),
    (
        "ssd_pcie_correctable_errors",
        "PCIe correctable errors (OCP extended SMART).",
        |c| c.pcie_correctable_errors,
    ),
    (
        "ssd_soft_ecc_errors",
        "Reads corrected by soft-decision ECC (OCP extended SMART).",
        |c| c.soft_ecc_errors,
    ),
    (
        "ssd_xor_recoveries",
        "Reads recovered through XOR parity (OCP extended SMART).",
        |c| c.xor_recoveries,
    ),
    (
        "ssd_end_to_end_detected_errors",
        "End-to-end data path errors detected (OCP extended SMART).",
        |c| c.end_to_end_detected_errors,
    ),
    (
        "ssd_end_to_end_corrected_errors",
        "End-to-end data path errors corrected (OCP extended SMART).",
        |c| c.end_to_end_corrected_errors,
    ),
    (
        "ssd_pcie_link_retrainings",
        "PCIe link retraining events (OCP extended SMART).",
        |c| c.pcie_link_retrainings,
    ),
];

/// A per-drive gauge of the unified reading without extra labels.
type GaugeDef = (&'static str, &'static str, fn(&Reading) -> Option<f64>);

const GAUGES: &[GaugeDef] = &[
    (
        "ssd_smart_passed",
        "1 if the drive reports itself healthy (NVMe: no critical warning; SATA: SMART RETURN STATUS).",
        |r| r.smart_passed.map(f64::from),
    ),
    (
        "ssd_available_spare_ratio",
        "Remaining spare capacity, 0-1.",
        |r| r.available_spare_ratio,
    ),
    (
        "ssd_available_spare_threshold_ratio",
        "Spare capacity below which the drive raises a critical warning, 0-1.",
        |r| r.available_spare_threshold_ratio,
    ),
    (
        "ssd_percentage_used_ratio",
        "Vendor estimate of life used, 0-1; may exceed 1.",
        |r| r.percentage_used_ratio,
    ),
    (
        "ssd_thermal_throttle_active",
        "1 while the drive is throttling for temperature (OCP extended SMART).",
        |r| r.throttle_active.map(f64::from),
    ),
    (
        "ssd_plp_health_ratio",
        "Power-loss-protection capacitor health, 0-1.",
        |r| r.plp_health_ratio,
    ),
];

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
        self.health(&mut enc)
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
        )
    }

    fn health(&self, enc: &mut DescriptorEncoder) -> fmt::Result {
        let readings: Vec<(&DriveSnapshot, &Reading)> = self
            .drives
            .iter()
            .filter_map(|d| d.reading.as_ref().map(|r| (d.as_ref(), r)))
            .collect();
        let temps = readings.iter().flat_map(|(d, r)| {
            r.temperatures
                .iter()
                .map(|(s, t)| (Self::with(d, &[("sensor", s)]), *t))
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
            .filter_map(|(level, t)| t.map(|t| (Self::with(d, &[("level", level)]), t)))
        });
        family(
            enc,
            "ssd_temperature_threshold_celsius",
            "The drive's own composite temperature thresholds.",
            MetricType::Gauge,
            thresholds,
        )?;
        let bits = |f: fn(&Reading) -> &Vec<(&'static str, bool)>| {
            readings.iter().flat_map(move |(d, r)| {
                f(r).iter()
                    .map(move |&(c, set)| (Self::with(d, &[("condition", c)]), f64::from(set)))
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
                        .map(move |(l, n)| (Self::with(d, &[("level", l)]), Wide(u128::from(n))))
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
                .map(|&(a, n)| (Self::with(d, &[("area", a)]), n as f64))
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
                .map(|res| (Self::with(d, &[("result", res)]), 1.0))
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

/// Sources a drive's error counter is shown for: the ones it can fail on,
/// from zero, so `increase()` sees the first failure, plus any other seen.
fn poll_sources(d: &DriveSnapshot) -> Vec<(&'static str, u64)> {
    let known: &[&'static str] = match d.identity.transport {
        crate::device::discovery::Transport::Nvme => &[
            "identify",
            "smart_log",
            "ocp_log",
            "error_log",
            "self_test_log",
            "poll",
        ],
        crate::device::discovery::Transport::Sata => {
            &["identify", "ata_smart", "ata_devstat", "poll"]
        }
    };
    let mut out: Vec<(&'static str, u64)> = known
        .iter()
        .map(|&s| (s, d.errors.get(s).copied().unwrap_or(0)))
        .collect();
    for (&s, &n) in &d.errors {
        if !known.contains(&s) {
            out.push((s, n));
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
