//! Every metric the exporter serves — name, help, type and labels — in one
//! place (`shared/reference/metrics.md` is the contract). Metrics are
//! encoded from the drives' snapshots, each drive's once per snapshot (see
//! [`Cache`]), so a vanished drive's series vanish with it, and nothing
//! here touches a drive.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    CounterValueEncoder, DescriptorEncoder, EncodeCounterValue, EncodeLabel, EncodeLabelSet,
    EncodeMetric, LabelSetEncoder,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use crate::probe::fleet::ProbeView;
use crate::snapshot::DriveSnapshot;

mod ata;
mod body;
mod cache;
mod collection;
mod format;
pub mod gzip;
mod health;
mod nvme;
mod nvme_ocp;
mod pieces;
mod place;
mod probe;
mod probe_text;
mod process;
mod proto;
mod reload;
mod scsi;
mod selftest;
mod tables;
mod verdict;
mod workers;

pub use body::Bodies;
pub use cache::{Cache, Segment};
pub use format::{Encoding, Format};
pub use reload::ConfigReloads;
pub use workers::{PollWorkers, WorkerState};

/// What the exporter says of itself: version and revision for
/// `ssd_exporter_build_info`, its state file's counters
/// (`ssd_exporter_state_*`, served only with a state file) and its config loads.
#[derive(Debug, Clone)]
pub struct BuildInfo {
    pub version: String,
    pub revision: String,
    pub state: Option<Arc<crate::state::Counters>>,
    /// `ssd_exporter_config_last_reload_*`; `None` (tests) serves none.
    pub config: Option<Arc<ConfigReloads>>,
    /// `ssd_exporter_poll_workers`; `None` (tests, `check`) serves none.
    pub workers: Option<Arc<PollWorkers>>,
    /// How much detail the drives' and probes' series carry.
    pub detail: Detail,
}

/// How much of what the exporter knows it serves (the `metrics.*` keys):
/// by default what the shipped alerts, rules and dashboards use, so that a
/// drive costs its scraper as few series as that allows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Detail {
    /// `metrics.probe_buckets`: the probe histogram's classic buckets.
    pub probe_buckets: crate::probe::histogram::Classic,
    /// `metrics.diagnostics`: also the [`DIAGNOSTICS`] families, and every
    /// lazily served series from 0 (see [`Detail::lazy`]).
    pub diagnostics: bool,
}

impl Detail {
    /// Whether counts that are still zero (and NVMe critical warning
    /// conditions that are not raised) are left out. By default they are:
    /// a drive's poll errors per source, its tasks' restarts, its probe's
    /// failed I/Os and skips, its persistent event log types never logged.
    /// A counter then appears with its first count, which a rule sees
    /// with `(x unless x offset 15m)` beside `increase(x[15m]) > 0`.
    pub fn lazy(self) -> bool {
        !self.diagnostics
    }
}

/// Families served only with `metrics.diagnostics: true`: what the
/// exporter believes about each page, and page detail that no shipped
/// alert, rule or dashboard reads (a one-group drive's endurance group
/// counters repeat its SMART log's; the OCP page's die, block and version
/// detail; a SATA attribute's worst, threshold and raw value, since the
/// verdict judges the threshold and the unified families carry the raw
/// counts that matter; the temperature range seen, the OCP system area
/// failures and the throttling level, which nothing shipped reads).
pub const DIAGNOSTICS: [&str; 24] = [
    "ssd_page_supported",
    "ssd_temperature_seen_celsius",
    "ssd_system_area_failures",
    "ssd_thermal_throttle_level",
    "ssd_ata_attribute_worst",
    "ssd_ata_attribute_threshold",
    "ssd_ata_attribute_raw",
    "ssd_endurance_group_estimate_bytes",
    "ssd_endurance_group_capacity_bytes",
    "ssd_endurance_group_unallocated_bytes",
    "ssd_endurance_group_host_read_bytes",
    "ssd_endurance_group_host_written_bytes",
    "ssd_endurance_group_media_written_bytes",
    "ssd_endurance_group_host_read_commands",
    "ssd_endurance_group_host_write_commands",
    "ssd_endurance_group_media_errors",
    "ssd_endurance_group_error_log_entries",
    "ssd_endurance_group_warning",
    "ssd_media_dies",
    "ssd_free_blocks_ratio",
    "ssd_namespace_utilization_blocks",
    "ssd_nand_erase_cycles",
    "ssd_command_timeouts",
    "ssd_ocp_info",
];

/// Families whose zero-valued series are served only with
/// `metrics.diagnostics: true` (see [`Detail::lazy`]); of
/// `ssd_probe_ios_total`, `result="ok"` is served from 0 either way.
pub const LAZY: [&str; 7] = [
    "ssd_poll_errors",
    "ssd_exporter_task_restarts",
    "ssd_probe_ios",
    "ssd_probe_skipped",
    "ssd_pel_events",
    "ssd_critical_warning",
    "ssd_endurance_group_critical_warning",
];

impl BuildInfo {
    /// The defaults with `detail`.
    fn detailed(detail: Detail) -> Self {
        Self {
            detail,
            ..Self::default()
        }
    }
}

impl Default for BuildInfo {
    fn default() -> Self {
        Self {
            version: env!("CARGO_PKG_VERSION").to_string(),
            revision: env!("SSD_EXPORTER_REVISION").to_string(),
            state: None,
            config: None,
            workers: None,
            detail: Detail::default(),
        }
    }
}

/// Encodes `drives` in `format`, everything at once. A drive appears once
/// its first poll has finished, overrun its deadline or been skipped
/// (standby), so its series never show a half-known identity;
/// `ssd_exporter_devices` counts it from discovery on. The server encodes
/// through a [`Cache`], which gives the same body; this is its reference,
/// every byte written by prometheus-client's encoders.
pub fn encode(
    drives: Vec<Arc<DriveSnapshot>>,
    probes: Vec<ProbeView>,
    build: &BuildInfo,
    format: Format,
) -> Vec<u8> {
    let monitored = drives.len();
    let probes = held_back(&drives, probes);
    let probe_restarts = probe_restarts(&probes);
    let e = Exposition {
        parts: Parts::All,
        drives: shown(drives),
        probes,
        probe_restarts,
        build: build.clone(),
        monitored,
        process: process::ProcessStats::read(),
        families: Arc::default(),
        format,
    };
    e.encode(format).0
}

/// [`encode`] in a text format, as text (tests).
#[cfg(test)]
pub(crate) fn encode_string(
    drives: Vec<Arc<DriveSnapshot>>,
    probes: Vec<ProbeView>,
    build: &BuildInfo,
    format: Format,
) -> String {
    String::from_utf8(encode(drives, probes, build, format)).expect("a text format")
}

/// The drives whose series are served (see [`encode`]).
fn shown(drives: Vec<Arc<DriveSnapshot>>) -> Vec<Arc<DriveSnapshot>> {
    drives
        .into_iter()
        .filter(|d| d.polls > 0 || !d.skipped.is_empty())
        .collect()
}

/// The probe views to serve: a drive's probe series wait for the drive's
/// own (a probe can start before the first poll, e.g. of a hot-plugged
/// drive), since they carry its serial, which is only known then. A
/// `--probe.device` that is no drive is served as itself.
fn held_back(drives: &[Arc<DriveSnapshot>], probes: Vec<ProbeView>) -> Vec<ProbeView> {
    let pending: Vec<&str> = drives
        .iter()
        .filter(|d| d.polls == 0 && d.skipped.is_empty())
        .map(|d| d.device.as_str())
        .collect();
    if pending.is_empty() {
        return probes;
    }
    probes
        .into_iter()
        .filter(|p| !pending.contains(&p.drive.as_str()))
        .collect()
}

/// Per drive, the sum of its probes' restarts (drives with a probe only).
fn probe_restarts(probes: &[ProbeView]) -> HashMap<String, u64> {
    let mut out: HashMap<String, u64> = HashMap::new();
    for v in probes {
        *out.entry(v.drive.clone()).or_default() += v.restarts;
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

/// `device` and `serial`: the labels every per-drive series starts with,
/// borrowed from its snapshot.
#[derive(Debug, Clone, Copy)]
struct DriveLabels<'a> {
    device: &'a str,
    serial: &'a str,
}

impl EncodeLabelSet for DriveLabels<'_> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> fmt::Result {
        ("device", self.device).encode(encoder.encode_label())?;
        ("serial", self.serial).encode(encoder.encode_label())
    }
}

/// A family's own labels after [`DriveLabels`], fixed in number per
/// family: a series is `(DriveLabels, Own<N>)`, with no allocation.
type Own<'a, const N: usize> = [(&'static str, &'a str); N];

/// The labels of a series with none (process-wide, one per family).
const NO_LABELS: Own<'static, 0> = [];

/// Which families an [`Exposition`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parts {
    All,
    /// Build info, the device count and the process: what is read anew
    /// for every scrape.
    Globals,
    /// The probes' series (`drives` only for their serials).
    Probes,
    /// The families of `drives` (each drive's own series).
    Drives,
}

#[derive(Debug)]
struct Exposition {
    parts: Parts,
    /// The drives to encode; under [`Parts::Globals`], where the probes'
    /// serials come from.
    drives: Vec<Arc<DriveSnapshot>>,
    probes: Vec<ProbeView>,
    /// Per drive with a probe, its probes' restarts (the drive's
    /// `task="probe"` series).
    probe_restarts: HashMap<String, u64>,
    build: BuildInfo,
    monitored: usize,
    process: Option<process::ProcessStats>,
    /// After an encode, every family it was asked for in order, and
    /// whether it wrote it.
    families: Arc<Mutex<Vec<(&'static str, bool)>>>,
    /// The format being encoded (set by the encode).
    format: Format,
}

impl Exposition {
    /// An exposition of `parts` with nothing to encode yet.
    fn of(parts: Parts, build: BuildInfo) -> Self {
        Exposition {
            parts,
            drives: Vec::new(),
            probes: Vec::new(),
            probe_restarts: HashMap::new(),
            build,
            monitored: 0,
            process: None,
            families: Arc::default(),
            format: Format::Prometheus,
        }
    }

    /// The body in `format`, and the families asked for in order (`true`
    /// where written).
    fn encode(self, format: Format) -> (Vec<u8>, Vec<(&'static str, bool)>) {
        if format == Format::Protobuf {
            let (families, noted) = self.encode_protobuf();
            let mut out = Vec::new();
            for f in families.unwrap_or_default() {
                proto::delimited(&f, &mut out);
            }
            return (out, noted);
        }
        let (text, noted) = self.encode_text(format);
        (text.into_bytes(), noted)
    }

    /// The text in a text `format`, and the families asked for in order.
    fn encode_text(mut self, format: Format) -> (String, Vec<(&'static str, bool)>) {
        self.format = format;
        let families = Arc::clone(&self.families);
        // About 7 KiB per drive (Kingston DC2000B: 6.8) and up to 16 per
        // probe (two ops' histograms), a few for the rest.
        let drives = match self.parts {
            Parts::All | Parts::Drives => self.drives.len(),
            Parts::Globals | Parts::Probes => 0,
        };
        let mut out = String::with_capacity(4096 + 8192 * drives + 16384 * self.probes.len());
        let mut registry = Registry::default();
        registry.register_collector(Box::new(self));
        let result = match format {
            Format::OpenMetrics => prometheus_client::encoding::text::encode(&mut out, &registry),
            Format::Prometheus | Format::Protobuf => {
                prometheus_client::encoding::prometheus_text::encode(&mut out, &registry)
            }
        };
        // Writing into a String cannot fail; a label-value encoding error
        // would be a bug, and a truncated page is better than a panic on
        // the scrape path.
        if let Err(e) = result {
            tracing::error!("encoding metrics failed: {e}");
        }
        let families = std::mem::take(&mut *families.lock().unwrap_or_else(|e| e.into_inner()));
        (out, families)
    }

    /// The families prometheus-client's protobuf encoder makes (`None` on
    /// an encoding error, logged), and the families asked for in order.
    fn encode_protobuf(mut self) -> (Option<Vec<proto::Family>>, Vec<(&'static str, bool)>) {
        self.format = Format::Protobuf;
        let families = Arc::clone(&self.families);
        let mut registry = Registry::default();
        registry.register_collector(Box::new(self));
        let result = prometheus_client::encoding::prometheus_protobuf::encode(&registry);
        if let Err(e) = &result {
            tracing::error!("encoding metrics failed: {e}");
        }
        let noted = std::mem::take(&mut *families.lock().unwrap_or_else(|e| e.into_inner()));
        (result.ok(), noted)
    }
}

/// The library's descriptor encoder, noting every family asked for.
pub(crate) struct Enc<'a, 'b> {
    inner: &'a mut DescriptorEncoder<'b>,
    families: Vec<(&'static str, bool)>,
    detail: Detail,
    format: Format,
}

impl Enc<'_, '_> {
    fn note(&mut self, name: &'static str, written: bool) {
        self.families.push((name, written));
    }

    /// Whether `name` is left out at this detail.
    fn hidden(&self, name: &str) -> bool {
        !self.detail.diagnostics && DIAGNOSTICS.contains(&name)
    }
}

impl Collector for Exposition {
    fn encode(&self, mut inner: DescriptorEncoder) -> Result<(), fmt::Error> {
        let mut enc = Enc {
            inner: &mut inner,
            families: Vec::with_capacity(96),
            detail: self.build.detail,
            format: self.format,
        };
        let result = self.encode_parts(&mut enc);
        *self.families.lock().unwrap_or_else(|e| e.into_inner()) = enc.families;
        result
    }
}

impl Exposition {
    fn encode_parts(&self, enc: &mut Enc) -> fmt::Result {
        let globals = matches!(self.parts, Parts::All | Parts::Globals);
        let drives = matches!(self.parts, Parts::All | Parts::Drives);
        let probes = matches!(self.parts, Parts::All | Parts::Probes);
        if globals {
            let labels = [
                ("version", self.build.version.as_str()),
                ("revision", self.build.revision.as_str()),
            ];
            let info = "Version of the exporter; always 1.";
            family(
                enc,
                "ssd_exporter_build_info",
                info,
                MetricType::Gauge,
                [(labels, 1.0)],
            )?;
            let n = [(NO_LABELS, self.monitored as f64)];
            family(
                enc,
                "ssd_exporter_devices",
                "Drives being monitored.",
                MetricType::Gauge,
                n,
            )?;
            self.state_file(enc)?;
            self.config_reloads(enc)?;
            self.poll_workers(enc)?;
        }
        if drives {
            self.collection(enc)?;
            self.health(enc)?;
            self.verdict(enc)?;
            self.ata(enc)?;
            self.scsi(enc)?;
            self.self_tests(enc)?;
            self.pcie(enc)?;
            self.nvme(enc)?;
        }
        if probes {
            self.probe(enc)?;
        }
        if drives {
            self.qos_targets(enc)?;
        }
        if globals {
            self.process(enc)?;
        }
        Ok(())
    }
}

impl Exposition {
    /// The state file's saves and failures; nothing without one.
    fn state_file(&self, enc: &mut Enc) -> fmt::Result {
        use std::sync::atomic::Ordering::Relaxed;
        let state = self.build.state.as_deref();
        let saves = state.map(|c| (NO_LABELS, Wide(u128::from(c.saves.load(Relaxed)))));
        counter(
            enc,
            "ssd_exporter_state_saves",
            "Writes of the state file.",
            saves,
        )?;
        let errors = state.into_iter().flat_map(|c| {
            [("load", &c.load_errors), ("save", &c.save_errors)]
                .map(|(op, n)| ([("op", op)], Wide(u128::from(n.load(Relaxed)))))
        });
        counter(
            enc,
            "ssd_exporter_state_errors",
            "State file failures: a file that could not be loaded or believed, a directory or save that failed (each logged once).",
            errors,
        )
    }

    /// `device` and `serial`, the labels every per-drive series carries.
    fn base(d: &DriveSnapshot) -> DriveLabels<'_> {
        DriveLabels {
            device: &d.device,
            serial: &d.identity.serial,
        }
    }

    /// [`Exposition::base`], then the family's own labels.
    fn with<'a, const N: usize>(
        d: &'a DriveSnapshot,
        own: Own<'a, N>,
    ) -> (DriveLabels<'a>, Own<'a, N>) {
        (Self::base(d), own)
    }
}

/// Writes one gauge family; a family without rows writes nothing.
fn family<L: EncodeLabelSet>(
    enc: &mut Enc,
    name: &'static str,
    help: &str,
    kind: MetricType,
    rows: impl IntoIterator<Item = (L, f64)>,
) -> fmt::Result {
    let mut rows = rows.into_iter().peekable();
    let written = rows.peek().is_some() && !enc.hidden(name);
    enc.note(name, written);
    if !written {
        return Ok(());
    }
    let mut m = enc.inner.encode_descriptor(name, help, None, kind)?;
    for (labels, v) in rows {
        ConstGauge::new(v).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}

/// Writes one counter family (`name` without `_total`).
fn counter<L: EncodeLabelSet, V: EncodeCounterValue>(
    enc: &mut Enc,
    name: &'static str,
    help: &str,
    rows: impl IntoIterator<Item = (L, V)>,
) -> fmt::Result {
    let mut rows = rows.into_iter().peekable();
    let written = rows.peek().is_some() && !enc.hidden(name);
    enc.note(name, written);
    if !written {
        return Ok(());
    }
    let mut m = enc
        .inner
        .encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, v) in rows {
        ConstCounter::new(v).encode(m.encode_family(&labels)?)?;
    }
    Ok(())
}
