//! Configuration in two stages: raw values (flags, YAML file), then one
//! validated [`Config`]. Every key is defined once, in the table of
//! `keys.rs`: its YAML section, its flag of the same dotted name, its
//! default (owned by the module that uses it) and bound ([`spec`]), and its
//! row of docs/configuration.md. A flag wins over the file, the file over the default.
//! Errors are one line naming the key and what it accepts.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use thiserror::Error;

mod drives;
mod field;
mod keys;
mod mutes;
mod overrides;
mod reload;
pub mod spec;
mod yaml;

pub use keys::{
    RawDevice, RawDiscovery, RawFile, RawHealth, RawHealthSection, RawLog, RawMetrics, RawOverride,
    RawPath, RawPoll, RawProbe, RawProbeWrite, RawSelfTest, RawSelfTestSchedule, RawState, RawWeb,
    readme_table, with_defaults,
};
pub use overrides::Override;
use spec::Key;

/// A configuration error: exit code 2, one line.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{key}: {message}")]
    Invalid { key: String, message: String },
    #[error("config file {path}: {message}")]
    File { path: String, message: String },
}

/// The accepted range of every configured number: a value past these is a
/// typo or a unit mistake, and some (a duration added to a clock reading, a
/// rate turned into an interval) would overflow arithmetic downstream.
pub mod bounds {
    use std::time::Duration;

    /// `probe.rate`: reads per second per drive.
    pub const MAX_PROBE_RATE: f64 = 1000.0;
    /// `probe.write.rate`: writes per second (100/s of 4 KiB is 35 GB a day).
    pub const MAX_WRITE_RATE: f64 = 100.0;
    /// `probe.write.max_bytes`: the write probe's file, created full size
    /// (at most `probe::writer::MAX_BYTES`).
    pub const MIN_WRITE_BYTES: u64 = 1 << 20;
    /// `poll.interval`, `discovery.interval`, `probe.window`.
    pub const MAX_INTERVAL: Duration = Duration::from_secs(24 * 3600);
    /// `poll.timeout`, `probe.timeout`.
    pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);
    /// `health.throttle_recent`, `health.increase_window`.
    pub const MAX_HISTORY: Duration = Duration::from_secs(365 * 24 * 3600);
    /// `health.wear_*`: percentage used tops out at 255 % (byte 5 = FFh).
    pub const MAX_WEAR_RATIO: f64 = 2.55;
    /// `health.spare_warning_factor`: times the spare threshold.
    pub const MAX_SPARE_FACTOR: f64 = 100.0;
    /// `health.plp_health_critical`: a ratio of full health.
    pub const MAX_PLP_RATIO: f64 = 1.0;
    /// `poll.standby_max_skips`: about 69 days of 60 s polls.
    pub const MAX_STANDBY_SKIPS: u64 = 100_000;
    /// `device.include`, `device.exclude`, and an override's `model` and
    /// `device`: compiled program size.
    pub const MAX_REGEX_BYTES: usize = 1 << 20;
    /// `health.overrides`: entries (each is tried in turn for a drive).
    pub const MAX_OVERRIDES: usize = 1000;
}

fn invalid(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.into(),
    }
}

/// The largest `--config.file` read (the example is 2 KiB).
pub const FILE_LIMIT: crate::files::Limit = crate::files::Limit {
    bytes: 1 << 20,
    what: "a config file",
};

impl RawFile {
    /// Reads (see [`crate::files`]: a FIFO or `/dev/zero` is refused, not
    /// waited on or read forever) and parses a YAML config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::load_with_text(path).map(|(raw, _)| raw)
    }

    /// [`Self::load`], and the file's text (to name the line of a bad value).
    pub fn load_with_text(path: &Path) -> Result<(Self, String), ConfigError> {
        let file_err = |message: String| ConfigError::File {
            path: path.display().to_string(),
            message,
        };
        let text =
            crate::files::read_text(path, FILE_LIMIT).map_err(|e| file_err(e.to_string()))?;
        let raw = Self::parse(&text).map_err(file_err)?;
        Ok((raw, text))
    }

    /// Parses YAML text; the error is one line naming the line and
    /// column, the key and what it accepts, never the file's content.
    pub fn parse(text: &str) -> Result<Self, String> {
        yaml::parse(text)
    }
}

/// A config file as read: where it is, its keys and its text.
pub struct FileLayer<'a> {
    pub path: &'a Path,
    pub raw: RawFile,
    pub text: String,
}

impl Config {
    /// Validates the flags laid over the file (if any). A bad value that
    /// came from the file names the file and the key's line.
    pub fn from_layers(file: Option<FileLayer>, flags: RawFile) -> Result<Config, ConfigError> {
        let Some(file) = file else {
            return Config::try_from(flags);
        };
        Config::try_from(file.raw.clone().overlay(flags)).map_err(|e| {
            let ConfigError::Invalid { key, message } = e else {
                return e;
            };
            // The file's own value, unless a flag gave the bad one.
            let from_file = match Config::try_from(file.raw) {
                Err(ConfigError::Invalid { key: k, message: m }) => k == key && m == message,
                _ => false,
            };
            if !from_file {
                return ConfigError::Invalid { key, message };
            }
            let at = match yaml::line_of(&file.text, &key) {
                Some(n) => format!("line {n}: "),
                None => String::new(),
            };
            ConfigError::File {
                path: file.path.display().to_string(),
                message: format!("{at}{key}: {message}"),
            }
        })
    }
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Logfmt,
    Json,
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: Vec<SocketAddr>,
    pub telemetry_path: String,
    /// TLS, basic auth and headers (`web.config_file`); plain HTTP without.
    pub web: crate::http::web::WebConfig,
    pub max_connections: usize,
    pub max_requests: usize,
    /// Serve on the socket systemd passed (fd 3) instead of `listen`.
    pub systemd_socket: bool,
    pub poll_interval: Duration,
    pub poll_timeout: Duration,
    /// Poll SATA drives in standby anyway (waking them).
    pub wake_standby: bool,
    /// Poll a SATA drive in standby once after this many skips in a row;
    /// 0 = never.
    pub standby_max_skips: u32,
    pub discovery_interval: Duration,
    /// Watch the physical drives behind MegaRAID controllers too.
    pub megaraid: bool,
    /// Watch NVMe over fabrics controllers (remote targets) too.
    pub fabrics: bool,
    /// Watch disks behind USB bridges.
    pub usb: bool,
    pub include: Option<Regex>,
    pub exclude: Option<Regex>,
    pub log_level: tracing::Level,
    pub log_format: LogFormat,
    pub replay: Vec<PathBuf>,
    /// Serve the simulated fleet instead of real drives.
    pub demo: bool,
    pub sysfs: PathBuf,
    pub dev: PathBuf,
    pub probe: Probe,
    pub health: Health,
    /// smartmontools drivedb.h files to try, first existing wins; empty
    /// (`path.drivedb: none`) = the built-in attribute table only.
    pub drivedb: Vec<PathBuf>,
    /// Where the state file lives; `None` = no state (`state.path: none`,
    /// `--demo`, or `replay` without `state.path` set).
    pub state_path: Option<PathBuf>,
    /// How much detail `/metrics` serves (`metrics.*`).
    pub metrics: crate::metrics::Detail,
    /// Scheduled self-tests (`selftest.*`); off unless a schedule is set.
    pub selftest: crate::poll::selftest::Policy,
}

/// Health verdict settings.
#[derive(Debug, Clone)]
pub struct Health {
    pub rules: crate::health::verdict::Rules,
    /// "Increasing" compares with what was seen within this window; `None`
    /// = since the exporter started.
    pub increase_window: Option<Duration>,
    /// Per-drive settings, the first matching entry winning
    /// ([`Health::tuning_for`]).
    pub overrides: Vec<Override>,
}

/// The latency probe's settings.
#[derive(Debug, Clone)]
pub struct Probe {
    pub enabled: bool,
    pub rate: f64,
    pub window: Duration,
    pub timeout: Duration,
    pub busy_threshold: f64,
    /// Extra block devices to probe (kernel names or /dev paths).
    pub devices: Vec<String>,
    pub write: Option<ProbeWrite>,
}

/// The opt-in write probe.
#[derive(Debug, Clone)]
pub struct ProbeWrite {
    pub path: PathBuf,
    pub rate: f64,
    /// `direct` (O_DIRECT|O_DSYNC writes) or `flush` (write + fdatasync).
    pub flush: bool,
    pub max_bytes: u64,
}

impl TryFrom<RawFile> for Config {
    type Error = ConfigError;

    fn try_from(raw: RawFile) -> Result<Self, ConfigError> {
        let listen_raw = match raw.web.listen_address {
            given if given.is_empty() => RawWeb::listen_address
                .spec
                .default
                .iter()
                .map(|a| a.to_string())
                .collect(),
            given => given,
        };
        let mut listen = Vec::new();
        for a in &listen_raw {
            listen.extend(listen_address(a)?);
        }
        let key = &RawWeb::telemetry_path;
        let telemetry_path = raw
            .web
            .telemetry_path
            .unwrap_or_else(|| key.spec.default[0].into());
        if !telemetry_path.starts_with('/') || telemetry_path == "/" {
            return Err(invalid(
                key.name,
                format!(
                    "{telemetry_path:?} must be a path starting with / other than / itself, e.g. {}",
                    key.spec.default[0]
                ),
            ));
        }
        let web = match &raw.web.config_file {
            None => crate::http::web::WebConfig::default(),
            Some(path) => crate::http::web::WebConfig::load(path).map_err(|e| {
                invalid(RawWeb::config_file.name, format!("{}: {e}", path.display()))
            })?,
        };
        let max_connections =
            RawWeb::max_connections.get(raw.web.max_connections.map(|n| n as u64))?;
        let max_requests = RawWeb::max_requests.get(raw.web.max_requests.map(|n| n as u64))?;
        let demo = RawFile::demo.get(raw.demo);
        if demo && !raw.replay.is_empty() {
            return Err(invalid(
                RawFile::demo.name,
                "cannot be combined with replay; use one or the other",
            ));
        }
        let poll_default = match demo {
            true => crate::device::demo::POLL_INTERVAL,
            false => RawPoll::interval.spec.default,
        };
        let path_or = |key: &Key<spec::Text>, value: Option<PathBuf>| {
            value.unwrap_or_else(|| key.spec.default[0].into())
        };
        Ok(Config {
            listen,
            telemetry_path,
            web,
            // At most MAX_MAX_CONNECTIONS, so it fits.
            max_connections: max_connections as usize,
            // At most MAX_MAX_REQUESTS, so it fits.
            max_requests: max_requests as usize,
            systemd_socket: RawWeb::systemd_socket.get(raw.web.systemd_socket),
            poll_interval: RawPoll::interval.get_or(raw.poll.interval, poll_default)?,
            poll_timeout: RawPoll::timeout.get(raw.poll.timeout)?,
            wake_standby: RawPoll::wake_standby.get(raw.poll.wake_standby),
            // At most MAX_STANDBY_SKIPS, so it fits.
            standby_max_skips: RawPoll::standby_max_skips.get(raw.poll.standby_max_skips)? as u32,
            discovery_interval: RawDiscovery::interval.get(raw.discovery.interval)?,
            megaraid: RawDiscovery::megaraid.get(raw.discovery.megaraid),
            fabrics: RawDiscovery::fabrics.get(raw.discovery.fabrics),
            usb: RawDiscovery::usb.get(raw.discovery.usb),
            include: RawDevice::include.get(raw.device.include)?,
            exclude: RawDevice::exclude.get(raw.device.exclude)?,
            log_level: RawLog::level.get(raw.log.level)?,
            log_format: RawLog::format.get(raw.log.format)?,
            state_path: state_path(raw.state.path, demo, !raw.replay.is_empty()),
            metrics: crate::metrics::Detail {
                probe_buckets: RawMetrics::probe_buckets.get(raw.metrics.probe_buckets)?,
                diagnostics: RawMetrics::diagnostics.get(raw.metrics.diagnostics),
            },
            replay: raw.replay,
            demo,
            probe: probe(raw.probe)?,
            selftest: selftest(raw.selftest)?,
            health: health(raw.health)?,
            sysfs: path_or(&RawPath::sysfs, raw.path.sysfs),
            dev: path_or(&RawPath::dev, raw.path.dev),
            drivedb: match raw.path.drivedb {
                Some(p) if p.as_os_str() == "none" => Vec::new(),
                Some(p) => vec![p],
                None => RawPath::drivedb
                    .spec
                    .default
                    .iter()
                    .map(PathBuf::from)
                    .collect(),
            },
        })
    }
}

/// The `selftest` section: transports by name, each once.
fn selftest(raw: RawSelfTest) -> Result<crate::poll::selftest::Policy, ConfigError> {
    use crate::device::discovery::Transport;
    let key = &RawSelfTest::transports;
    let mut transports = Vec::new();
    for name in &raw.transports {
        let t = Transport::ALL
            .into_iter()
            .find(|t| t.as_str() == name)
            .ok_or_else(|| {
                invalid(
                    key.name,
                    format!("{name:?} is not a transport; use nvme, sata, sas or scsi"),
                )
            })?;
        if !transports.contains(&t) {
            transports.push(t);
        }
    }
    if raw.transports.is_empty() {
        transports = Transport::ALL.to_vec();
    }
    // Below the minimums only when asked for by name.
    let allow = RawSelfTest::allow_short_intervals.get(raw.allow_short_intervals);
    let interval = |key: &Key<spec::OptDur>, v| match allow {
        true => key.get_min(v, Duration::ZERO),
        false => key.get(v),
    };
    Ok(crate::poll::selftest::Policy {
        short: interval(&RawSelfTestSchedule::short, raw.schedule.short)?,
        extended: interval(&RawSelfTestSchedule::extended, raw.schedule.extended)?,
        // At most MAX_CONCURRENCY, so it fits.
        concurrency: RawSelfTest::concurrency.get(raw.concurrency)? as usize,
        abort_on_shutdown: RawSelfTest::abort_on_shutdown.get(raw.abort_on_shutdown),
        transports,
    })
}

/// `state.path`: `none` is off; the demo's drives are simulated, so never
/// with it; replayed dumps only when the path is set (a replay must not
/// write into the host's own state unasked).
fn state_path(raw: Option<PathBuf>, demo: bool, replay: bool) -> Option<PathBuf> {
    match raw {
        _ if demo => None,
        Some(p) if p.as_os_str() == "none" => None,
        Some(p) => Some(p),
        None if replay => None,
        None => Some(RawState::path.spec.default[0].into()),
    }
}

fn health(raw: RawHealthSection) -> Result<Health, ConfigError> {
    let (rules, increase_window) = health_keys(raw.keys.clone())?;
    Ok(Health {
        rules,
        increase_window,
        overrides: overrides::validate(&raw.keys, raw.overrides)?,
    })
}

/// The `health.*` keys of the section or of one override (no mutes).
fn health_keys(
    raw: RawHealth,
) -> Result<(crate::health::verdict::Rules, Option<Duration>), ConfigError> {
    type H = RawHealth;
    let rules = crate::health::verdict::Rules {
        wear_warning: H::wear_warning.get(raw.wear_warning)?,
        wear_critical: H::wear_critical.get(raw.wear_critical)?,
        spare_warning_factor: H::spare_warning_factor.get(raw.spare_warning_factor)?,
        plp_health_critical: H::plp_health_critical.get(raw.plp_health_critical)?,
        throttle_recent: H::throttle_recent.get(raw.throttle_recent)?,
        latency_qos: H::latency_qos.get(raw.latency_qos),
        mute: crate::health::verdict::Mutes::NONE,
    };
    Ok((rules, H::increase_window.get(raw.increase_window)?))
}

fn probe(raw: RawProbe) -> Result<Probe, ConfigError> {
    type W = RawProbeWrite;
    let write = match raw.write.path {
        None => None,
        Some(path) => Some(ProbeWrite {
            path,
            rate: W::rate.get(raw.write.rate)?,
            flush: W::mode.get(raw.write.mode)? == crate::probe::writer::WriteMode::Flush,
            max_bytes: W::max_bytes.get(raw.write.max_bytes)?,
        }),
    };
    Ok(Probe {
        enabled: !RawProbe::disable.get(raw.disable),
        rate: RawProbe::rate.get(raw.rate)?,
        window: RawProbe::window.get(raw.window)?,
        timeout: RawProbe::timeout.get(raw.timeout)?,
        busy_threshold: RawProbe::busy_threshold.get(raw.busy_threshold)?,
        devices: raw.device,
        write,
    })
}

/// A bound as a Prometheus-style duration in its largest whole unit.
fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        _ if s > 0 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        _ if s > 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        // A minute reads as 60s, the way the default is usually written.
        _ if s > 60 && s % 60 == 0 => format!("{}m", s / 60),
        _ if d.subsec_millis() == 0 => format!("{s}s"),
        _ => format!("{}ms", d.as_millis()),
    }
}

/// `:port` (every interface), `host:port` or `[v6]:port`.
fn listen_address(text: &str) -> Result<Vec<SocketAddr>, ConfigError> {
    let err = || {
        invalid(
            "web.listen_address",
            format!("{text:?} is not accepted; use :port, host:port or [ipv6]:port"),
        )
    };
    if let Some(port) = text.strip_prefix(':') {
        let port: u16 = port.parse().map_err(|_| err())?;
        return Ok(vec![SocketAddr::from(([0u16; 8], port))]);
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(vec![addr]);
    }
    let addrs: Vec<SocketAddr> = text.to_socket_addrs().map_err(|_| err())?.collect();
    if addrs.is_empty() {
        Err(err())
    } else {
        Ok(addrs)
    }
}

/// A Prometheus-style duration: one or more `<number><unit>` with units
/// `ms`, `s`, `m`, `h`, `d`, `w`, `y` in decreasing order (`1h30m`, `250ms`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    const UNITS: [(&str, u64); 7] = [
        ("y", 365 * 24 * 3_600_000),
        ("w", 7 * 24 * 3_600_000),
        ("d", 24 * 3_600_000),
        ("h", 3_600_000),
        ("ms", 1),
        ("m", 60_000),
        ("s", 1_000),
    ];
    let bad = || {
        format!(
            "{text:?} is not a duration; use a number and a unit (ms, s, m, h, d, w, y), e.g. 30s, 5m, 1h30m"
        )
    };
    let mut rest = text;
    let mut total: u64 = 0;
    let mut last_rank = usize::MAX;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(bad());
        }
        let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let (rank, &(unit, ms)) = UNITS
            .iter()
            .enumerate()
            .find(|(_, (u, _))| rest.starts_with(u) && !(*u == "m" && rest.starts_with("ms")))
            .ok_or_else(bad)?;
        // Order: y w d h m s ms (ms is listed before m only for matching).
        let order = [0, 1, 2, 3, 6, 4, 5][rank];
        if last_rank != usize::MAX && order <= last_rank {
            return Err(bad());
        }
        last_rank = order;
        rest = &rest[unit.len()..];
        total = n
            .checked_mul(ms)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
    }
    Ok(Duration::from_millis(total))
}

#[cfg(test)]
mod tests;
