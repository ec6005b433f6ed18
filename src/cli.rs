//! Command line: Prometheus-style dotted flags, each mirroring a config key.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::{
    RawDevice, RawDiscovery, RawFile, RawLog, RawPath, RawPoll, RawProbe, RawProbeWrite, RawWeb,
};

#[derive(Debug, Parser)]
#[command(
    name = "ssd_exporter",
    version,
    about = "SSD health and latency as Prometheus metrics, read through the exporter's own NVMe, SATA and SAS/SCSI ioctls."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub flags: Flags,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Poll every drive once, judge it and print a table; exit 0 ok, 1 warning, 2 critical, 3 unknown.
    Check {
        /// Print JSON instead of the table (schema in README.md).
        #[arg(long)]
        json: bool,
        /// Only these drives (kernel names or /dev paths); all when none.
        devices: Vec<String>,
    },
    /// Write what a drive answers into a replay folder (see --replay).
    Dump {
        /// The drive: /dev/nvme0 (or a namespace such as /dev/nvme0n1).
        device: PathBuf,
        /// Folder to write; its base name becomes the `device` label on replay.
        folder: PathBuf,
        /// Replace the serial number and namespace identifiers with fixed values.
        #[arg(long)]
        redact: bool,
    },
}

/// Serving flags; every one has a config-file key of the same dotted name.
#[derive(Debug, Default, clap::Args)]
pub struct Flags {
    /// YAML configuration file (examples/config.yml lists every key).
    #[arg(long = "config.file", value_name = "PATH", global = true)]
    pub config_file: Option<PathBuf>,
    /// Validate the configuration and exit.
    #[arg(long = "check-config")]
    pub check_config: bool,
    /// Address to listen on (repeatable): :port, host:port, `[ipv6]:port` [default: :10049].
    #[arg(long = "web.listen-address", value_name = "ADDR")]
    pub listen_address: Vec<String>,
    /// Path under which to expose metrics [default: /metrics].
    #[arg(long = "web.telemetry-path", value_name = "PATH")]
    pub telemetry_path: Option<String>,
    /// Exporter-toolkit web config file: TLS, basic auth, security headers (same format as node_exporter's).
    #[arg(long = "web.config.file", value_name = "PATH", global = true)]
    pub web_config_file: Option<PathBuf>,
    /// Open HTTP connections at most; at the cap the oldest idle one is closed [default: 256].
    #[arg(long = "web.max-connections", value_name = "N")]
    pub max_connections: Option<usize>,
    /// Serve on the socket systemd passes (socket activation, systemd/socket-activation/ssd_exporter.socket) instead of --web.listen-address.
    #[arg(long = "web.systemd-socket")]
    pub systemd_socket: bool,
    /// How often each drive is polled, e.g. 60s, 5m [default: 60s].
    #[arg(long = "poll.interval", value_name = "DURATION")]
    pub poll_interval: Option<String>,
    /// Poll SATA drives in standby too (spins them up); by default a drive in standby is skipped that round.
    #[arg(long = "poll.wake-standby")]
    pub wake_standby: bool,
    /// How long a poll may take before the drive is reported down; also each command's kernel timeout [default: 10s].
    #[arg(long = "poll.timeout", value_name = "DURATION", global = true)]
    pub poll_timeout: Option<String>,
    /// How often sysfs is rescanned for drives that came or went [default: 30s].
    #[arg(long = "discovery.interval", value_name = "DURATION")]
    pub discovery_interval: Option<String>,
    /// Only watch drives whose kernel name (nvme0, sda) matches this regex.
    #[arg(long = "device.include", value_name = "REGEX")]
    pub include: Option<String>,
    /// Do not watch drives whose kernel name matches this regex.
    #[arg(long = "device.exclude", value_name = "REGEX")]
    pub exclude: Option<String>,
    /// error, warn, info, debug or trace [default: info].
    #[arg(long = "log.level", value_name = "LEVEL", global = true)]
    pub log_level: Option<String>,
    /// logfmt or json [default: logfmt].
    #[arg(long = "log.format", value_name = "FORMAT", global = true)]
    pub log_format: Option<String>,
    /// Serve a dump folder as a drive instead of live drives (repeatable).
    #[arg(long = "replay", value_name = "FOLDER", global = true)]
    pub replay: Vec<PathBuf>,
    /// Serve a simulated fleet (five drives, time-compressed) instead of real drives: see dashboards and alerts work with no hardware.
    #[arg(long = "demo")]
    pub demo: bool,
    /// Turn the latency probe off.
    #[arg(long = "probe.disable")]
    pub probe_disable: bool,
    /// Probe reads per second per drive, Poisson-distributed [default: 5].
    #[arg(long = "probe.rate", value_name = "PER_SECOND")]
    pub probe_rate: Option<f64>,
    /// Sliding window of the exported quantiles, e.g. 10m [default: 10m].
    #[arg(long = "probe.window", value_name = "DURATION")]
    pub probe_window: Option<String>,
    /// A probe I/O slower than this counts as a timeout [default: 5s].
    #[arg(long = "probe.timeout", value_name = "DURATION")]
    pub probe_timeout: Option<String>,
    /// Skip a probe while the drive's utilisation is at or above this, 0-1, with 2+ other I/Os queued on average [default: 0.9].
    #[arg(long = "probe.busy-threshold", value_name = "RATIO")]
    pub probe_busy: Option<f64>,
    /// Also probe this block device (repeatable): nvme0n1, sdb, loop0.
    #[arg(long = "probe.device", value_name = "NAME")]
    pub probe_device: Vec<String>,
    /// Opt-in write probe: a directory on a filesystem of a monitored drive; the exporter writes only its own file there.
    #[arg(long = "probe.write.path", value_name = "DIR")]
    pub probe_write_path: Option<PathBuf>,
    /// Write probe operations per second [default: 0.2].
    #[arg(long = "probe.write.rate", value_name = "PER_SECOND")]
    pub probe_write_rate: Option<f64>,
    /// direct (O_DIRECT|O_DSYNC writes) or flush (write + fdatasync) [default: direct].
    #[arg(long = "probe.write.mode", value_name = "MODE")]
    pub probe_write_mode: Option<String>,
    /// Size of the write probe's file in bytes [default: 67108864].
    #[arg(long = "probe.write.max-bytes", value_name = "BYTES")]
    pub probe_write_max: Option<u64>,
    /// sysfs mount point [default: /sys].
    #[arg(long = "path.sysfs", value_name = "PATH")]
    pub sysfs: Option<PathBuf>,
    /// Device node folder [default: /dev].
    #[arg(long = "path.dev", value_name = "PATH")]
    pub dev: Option<PathBuf>,
    /// smartmontools drivedb.h for attribute names; `none` = the built-in table only [default: /var/lib/smartmontools/drivedb/drivedb.h, then /usr/share/smartmontools/drivedb.h].
    #[arg(long = "path.drivedb", value_name = "PATH", global = true)]
    pub drivedb: Option<PathBuf>,
}

impl Flags {
    /// The flags as a raw config layer, to overlay on the file.
    pub fn to_raw(&self) -> RawFile {
        RawFile {
            web: RawWeb {
                listen_address: self.listen_address.clone(),
                telemetry_path: self.telemetry_path.clone(),
                config_file: self.web_config_file.clone(),
                max_connections: self.max_connections,
                systemd_socket: self.systemd_socket.then_some(true),
            },
            poll: RawPoll {
                interval: self.poll_interval.clone(),
                timeout: self.poll_timeout.clone(),
                wake_standby: self.wake_standby.then_some(true),
            },
            discovery: RawDiscovery {
                interval: self.discovery_interval.clone(),
            },
            device: RawDevice {
                include: self.include.clone(),
                exclude: self.exclude.clone(),
            },
            log: RawLog {
                level: self.log_level.clone(),
                format: self.log_format.clone(),
            },
            replay: self.replay.clone(),
            demo: self.demo.then_some(true),
            probe: RawProbe {
                disable: self.probe_disable.then_some(true),
                rate: self.probe_rate,
                window: self.probe_window.clone(),
                timeout: self.probe_timeout.clone(),
                busy_threshold: self.probe_busy,
                device: self.probe_device.clone(),
                write: RawProbeWrite {
                    path: self.probe_write_path.clone(),
                    rate: self.probe_write_rate,
                    mode: self.probe_write_mode.clone(),
                    max_bytes: self.probe_write_max,
                },
            },
            health: Default::default(),
            path: RawPath {
                sysfs: self.sysfs.clone(),
                dev: self.dev.clone(),
                drivedb: self.drivedb.clone(),
            },
        }
    }
}
