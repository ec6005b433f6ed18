//! Configuration in two stages: raw values (flags, YAML file) with
//! defaults, then one validated [`Config`]. Every flag has a YAML key of the
//! same dotted name; a flag wins over the file. Errors are one line naming
//! the key and what it accepts.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::{Regex, RegexBuilder};
use serde::Deserialize;
use thiserror::Error;

/// The default port, free in the Prometheus default-port allocations.
pub const DEFAULT_PORT: u16 = 10049;

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
    /// `probe.write.max_bytes`: the write probe's file, created full size.
    pub const MIN_WRITE_BYTES: u64 = 1 << 20;
    pub const MAX_WRITE_BYTES: u64 = crate::probe::writer::MAX_BYTES;
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
    /// `device.include`, `device.exclude`: compiled program size.
    pub const MAX_REGEX_BYTES: usize = 1 << 20;
}

fn invalid(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        message: message.into(),
    }
}

/// The YAML file, every section optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawFile {
    pub web: RawWeb,
    pub poll: RawPoll,
    pub discovery: RawDiscovery,
    pub device: RawDevice,
    pub log: RawLog,
    pub replay: Vec<PathBuf>,
    /// Serve the simulated fleet (`--demo`).
    pub demo: Option<bool>,
    pub path: RawPath,
    pub probe: RawProbe,
    pub health: RawHealth,
}

/// Health verdict thresholds (config file only).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawHealth {
    pub wear_warning: Option<f64>,
    pub wear_critical: Option<f64>,
    pub spare_warning_factor: Option<f64>,
    pub plp_health_critical: Option<f64>,
    pub throttle_recent: Option<String>,
    pub increase_window: Option<String>,
    pub latency_qos: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawProbe {
    pub disable: Option<bool>,
    pub rate: Option<f64>,
    pub window: Option<String>,
    pub timeout: Option<String>,
    pub busy_threshold: Option<f64>,
    pub device: Vec<String>,
    pub write: RawProbeWrite,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawProbeWrite {
    pub path: Option<PathBuf>,
    pub rate: Option<f64>,
    pub mode: Option<String>,
    pub max_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawWeb {
    pub listen_address: Vec<String>,
    pub telemetry_path: Option<String>,
    /// The exporter-toolkit web config file (TLS, basic auth, headers).
    pub config_file: Option<PathBuf>,
    pub max_connections: Option<usize>,
    /// Take the listening socket from systemd (LISTEN_FDS).
    pub systemd_socket: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawPoll {
    pub interval: Option<String>,
    pub timeout: Option<String>,
    pub wake_standby: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawDiscovery {
    pub interval: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawDevice {
    pub include: Option<String>,
    pub exclude: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawLog {
    pub level: Option<String>,
    pub format: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawPath {
    pub sysfs: Option<PathBuf>,
    pub dev: Option<PathBuf>,
    pub drivedb: Option<PathBuf>,
}

impl RawFile {
    /// Reads and parses a YAML config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let file_err = |message: String| ConfigError::File {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| file_err(e.to_string()))?;
        Self::parse(&text).map_err(file_err)
    }

    /// Parses YAML text; the error is one line (serde's message names the
    /// unknown or mistyped key and what is accepted).
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        serde_yaml_ng::from_str(text).map_err(|e| e.to_string().replace('\n', " "))
    }

    /// Overlays `other` (the flags) on `self` (the file): a value set in
    /// `other` wins.
    pub fn overlay(mut self, other: RawFile) -> RawFile {
        fn pick<T>(a: &mut Option<T>, b: Option<T>) {
            if b.is_some() {
                *a = b;
            }
        }
        fn pick_vec<T>(a: &mut Vec<T>, b: Vec<T>) {
            if !b.is_empty() {
                *a = b;
            }
        }
        pick_vec(&mut self.web.listen_address, other.web.listen_address);
        pick(&mut self.web.telemetry_path, other.web.telemetry_path);
        pick(&mut self.web.config_file, other.web.config_file);
        pick(&mut self.web.max_connections, other.web.max_connections);
        pick(&mut self.web.systemd_socket, other.web.systemd_socket);
        pick(&mut self.poll.interval, other.poll.interval);
        pick(&mut self.poll.timeout, other.poll.timeout);
        pick(&mut self.poll.wake_standby, other.poll.wake_standby);
        pick(&mut self.discovery.interval, other.discovery.interval);
        pick(&mut self.device.include, other.device.include);
        pick(&mut self.device.exclude, other.device.exclude);
        pick(&mut self.log.level, other.log.level);
        pick(&mut self.log.format, other.log.format);
        pick_vec(&mut self.replay, other.replay);
        pick(&mut self.demo, other.demo);
        pick(&mut self.path.sysfs, other.path.sysfs);
        pick(&mut self.path.dev, other.path.dev);
        pick(&mut self.path.drivedb, other.path.drivedb);
        self.health = if other.health.is_set() {
            other.health
        } else {
            self.health
        };
        let (p, o) = (&mut self.probe, other.probe);
        pick(&mut p.disable, o.disable);
        pick(&mut p.rate, o.rate);
        pick(&mut p.window, o.window);
        pick(&mut p.timeout, o.timeout);
        pick(&mut p.busy_threshold, o.busy_threshold);
        pick_vec(&mut p.device, o.device);
        pick(&mut p.write.path, o.write.path);
        pick(&mut p.write.rate, o.write.rate);
        pick(&mut p.write.mode, o.write.mode);
        pick(&mut p.write.max_bytes, o.write.max_bytes);
        self
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
    /// Serve on the socket systemd passed (fd 3) instead of `listen`.
    pub systemd_socket: bool,
    pub poll_interval: Duration,
    pub poll_timeout: Duration,
    /// Poll SATA drives in standby anyway (waking them).
    pub wake_standby: bool,
    pub discovery_interval: Duration,
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
}

/// Health verdict settings.
#[derive(Debug, Clone)]
pub struct Health {
    pub rules: crate::health::verdict::Rules,
    /// "Increasing" compares with what was seen within this window; `None`
    /// = since the exporter started.
    pub increase_window: Option<Duration>,
}

impl RawHealth {
    fn is_set(&self) -> bool {
        self.wear_warning.is_some()
            || self.wear_critical.is_some()
            || self.spare_warning_factor.is_some()
            || self.plp_health_critical.is_some()
            || self.throttle_recent.is_some()
            || self.increase_window.is_some()
            || self.latency_qos.is_some()
    }
}

fn health(raw: RawHealth) -> Result<Health, ConfigError> {
    use bounds::{MAX_HISTORY, MAX_PLP_RATIO, MAX_SPARE_FACTOR, MAX_WEAR_RATIO};
    let d = crate::health::verdict::Rules::default();
    let rules = crate::health::verdict::Rules {
        wear_warning: number(
            "health.wear_warning",
            raw.wear_warning,
            d.wear_warning,
            MAX_WEAR_RATIO,
        )?,
        wear_critical: number(
            "health.wear_critical",
            raw.wear_critical,
            d.wear_critical,
            MAX_WEAR_RATIO,
        )?,
        spare_warning_factor: number(
            "health.spare_warning_factor",
            raw.spare_warning_factor,
            d.spare_warning_factor,
            MAX_SPARE_FACTOR,
        )?,
        plp_health_critical: number(
            "health.plp_health_critical",
            raw.plp_health_critical,
            d.plp_health_critical,
            MAX_PLP_RATIO,
        )?,
        throttle_recent: duration_key(
            "health.throttle_recent",
            raw.throttle_recent,
            "1h",
            MAX_HISTORY,
        )?,
        latency_qos: raw.latency_qos.unwrap_or(d.latency_qos),
    };
    let increase_window = match raw.increase_window {
        None => None,
        Some(w) => Some(duration_key(
            "health.increase_window",
            Some(w),
            "24h",
            MAX_HISTORY,
        )?),
    };
    Ok(Health {
        rules,
        increase_window,
    })
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

/// The write probe's default rate has one owner, the probe.
pub use crate::probe::writer::DEFAULT_WRITE_RATE;

/// A number above 0 and at most `max` (`default` when unset).
fn number(key: &str, value: Option<f64>, default: f64, max: f64) -> Result<f64, ConfigError> {
    match value.unwrap_or(default) {
        x if x.is_finite() && x > 0.0 && x <= max => Ok(x),
        x => Err(invalid(
            key,
            format!("{x} must be a number above 0 and at most {max}, e.g. {default}"),
        )),
    }
}

fn probe(raw: RawProbe) -> Result<Probe, ConfigError> {
    use bounds::{MAX_INTERVAL, MAX_PROBE_RATE, MAX_TIMEOUT, MAX_WRITE_BYTES, MAX_WRITE_RATE};
    let busy = raw.busy_threshold.unwrap_or(0.9);
    if !(busy > 0.0 && busy <= 1.0) {
        return Err(invalid(
            "probe.busy_threshold",
            format!("{busy} must be a utilisation above 0 and at most 1, e.g. 0.9"),
        ));
    }
    let write = match raw.write.path {
        None => None,
        Some(path) => Some(ProbeWrite {
            path,
            rate: number(
                "probe.write.rate",
                raw.write.rate,
                DEFAULT_WRITE_RATE,
                MAX_WRITE_RATE,
            )?,
            flush: match raw.write.mode.as_deref().unwrap_or("direct") {
                "direct" => false,
                "flush" => true,
                other => {
                    return Err(invalid(
                        "probe.write.mode",
                        format!("{other:?} is not accepted; use direct or flush"),
                    ));
                }
            },
            max_bytes: match raw.write.max_bytes.unwrap_or(64 << 20) {
                n if (bounds::MIN_WRITE_BYTES..=MAX_WRITE_BYTES).contains(&n) => n,
                n => {
                    return Err(invalid(
                        "probe.write.max_bytes",
                        format!(
                            "{n} is not accepted; use 1048576 (1 MiB) to {MAX_WRITE_BYTES} (1 GiB)"
                        ),
                    ));
                }
            },
        }),
    };
    Ok(Probe {
        enabled: !raw.disable.unwrap_or(false),
        rate: number("probe.rate", raw.rate, 5.0, MAX_PROBE_RATE)?,
        window: duration_key("probe.window", raw.window, "10m", MAX_INTERVAL)?,
        timeout: duration_key("probe.timeout", raw.timeout, "5s", MAX_TIMEOUT)?,
        busy_threshold: busy,
        devices: raw.device,
        write,
    })
}

/// Where smartmontools keeps drivedb.h: the updated copy first.
pub const DEFAULT_DRIVEDB: [&str; 2] = [
    "/var/lib/smartmontools/drivedb/drivedb.h",
    "/usr/share/smartmontools/drivedb.h",
];

impl TryFrom<RawFile> for Config {
    type Error = ConfigError;

    fn try_from(raw: RawFile) -> Result<Self, ConfigError> {
        let listen_raw = if raw.web.listen_address.is_empty() {
            vec![format!(":{DEFAULT_PORT}")]
        } else {
            raw.web.listen_address
        };
        let mut listen = Vec::new();
        for a in &listen_raw {
            listen.extend(listen_address(a)?);
        }
        let telemetry_path = raw.web.telemetry_path.unwrap_or_else(|| "/metrics".into());
        if !telemetry_path.starts_with('/') || telemetry_path == "/" {
            return Err(invalid(
                "web.telemetry_path",
                format!(
                    "{telemetry_path:?} must be a path starting with / other than / itself, e.g. /metrics"
                ),
            ));
        }
        let web = match &raw.web.config_file {
            None => crate::http::web::WebConfig::default(),
            Some(path) => crate::http::web::WebConfig::load(path)
                .map_err(|e| invalid("web.config_file", format!("{}: {e}", path.display())))?,
        };
        let max_connections = web_max_connections(raw.web.max_connections)?;
        let demo = raw.demo.unwrap_or(false);
        if demo && !raw.replay.is_empty() {
            return Err(invalid(
                "demo",
                "cannot be combined with replay; use one or the other",
            ));
        }
        // The demo's drives change by the second: poll them often.
        let poll_default = if demo { "2s" } else { "60s" };
        Ok(Config {
            listen,
            telemetry_path,
            web,
            max_connections,
            systemd_socket: raw.web.systemd_socket.unwrap_or(false),
            poll_interval: duration_key(
                "poll.interval",
                raw.poll.interval,
                poll_default,
                bounds::MAX_INTERVAL,
            )?,
            poll_timeout: duration_key(
                "poll.timeout",
                raw.poll.timeout,
                "10s",
                bounds::MAX_TIMEOUT,
            )?,
            wake_standby: raw.poll.wake_standby.unwrap_or(false),
            discovery_interval: duration_key(
                "discovery.interval",
                raw.discovery.interval,
                "30s",
                bounds::MAX_INTERVAL,
            )?,
            include: regex_key("device.include", raw.device.include)?,
            exclude: regex_key("device.exclude", raw.device.exclude)?,
            log_level: log_level(raw.log.level.as_deref().unwrap_or("info"))?,
            log_format: match raw.log.format.as_deref().unwrap_or("logfmt") {
                "logfmt" => LogFormat::Logfmt,
                "json" => LogFormat::Json,
                other => {
                    return Err(invalid(
                        "log.format",
                        format!("{other:?} is not accepted; use logfmt or json"),
                    ));
                }
            },
            replay: raw.replay,
            demo,
            probe: probe(raw.probe)?,
            health: health(raw.health)?,
            sysfs: raw.path.sysfs.unwrap_or_else(|| "/sys".into()),
            dev: raw.path.dev.unwrap_or_else(|| "/dev".into()),
            drivedb: match raw.path.drivedb {
                Some(p) if p.as_os_str() == "none" => Vec::new(),
                Some(p) => vec![p],
                None => DEFAULT_DRIVEDB.iter().map(PathBuf::from).collect(),
            },
        })
    }
}

fn web_max_connections(value: Option<usize>) -> Result<usize, ConfigError> {
    use crate::http::server::{DEFAULT_MAX_CONNECTIONS, MAX_MAX_CONNECTIONS};
    match value.unwrap_or(DEFAULT_MAX_CONNECTIONS) {
        n @ 1..=MAX_MAX_CONNECTIONS => Ok(n),
        n => Err(invalid(
            "web.max_connections",
            format!("{n} must be 1 to {MAX_MAX_CONNECTIONS}, e.g. {DEFAULT_MAX_CONNECTIONS}"),
        )),
    }
}

/// A duration above zero and at most `max` (`default` when unset).
fn duration_key(
    key: &str,
    value: Option<String>,
    default: &str,
    max: Duration,
) -> Result<Duration, ConfigError> {
    let text = value.as_deref().unwrap_or(default);
    match parse_duration(text) {
        Ok(d) if d.is_zero() => Err(invalid(key, format!("{text:?} must be longer than zero"))),
        Ok(d) if d > max => Err(invalid(
            key,
            format!(
                "{text:?} is too long; use at most {}, e.g. {default}",
                format_duration(max)
            ),
        )),
        Ok(d) => Ok(d),
        Err(e) => Err(invalid(key, e)),
    }
}

/// A bound as a Prometheus-style duration in its largest whole unit.
fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        _ if s > 0 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        _ if s > 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        _ if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        _ if d.subsec_millis() == 0 => format!("{s}s"),
        _ => format!("{}ms", d.as_millis()),
    }
}

fn regex_key(key: &str, value: Option<String>) -> Result<Option<Regex>, ConfigError> {
    match value.filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => RegexBuilder::new(&v)
            .size_limit(bounds::MAX_REGEX_BYTES)
            .build()
            .map(Some)
            .map_err(|e| {
                let why = match e {
                    regex::Error::CompiledTooBig(limit) => {
                        format!("compiles to more than {limit} bytes; use a simpler one")
                    }
                    e => e
                        .to_string()
                        .lines()
                        .last()
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                };
                invalid(
                    key,
                    format!("{v:?} is not a valid regular expression ({why})"),
                )
            }),
    }
}

fn log_level(text: &str) -> Result<tracing::Level, ConfigError> {
    match text {
        "error" => Ok(tracing::Level::ERROR),
        "warn" => Ok(tracing::Level::WARN),
        "info" => Ok(tracing::Level::INFO),
        "debug" => Ok(tracing::Level::DEBUG),
        "trace" => Ok(tracing::Level::TRACE),
        other => Err(invalid(
            "log.level",
            format!("{other:?} is not accepted; use error, warn, info, debug or trace"),
        )),
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
