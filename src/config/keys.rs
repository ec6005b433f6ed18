//! Every configuration key, once. Each row names the key's field (the
//! YAML name), its raw type, what it accepts ([`super::spec`]: default and
//! bound, the default taken from the module that uses it), its flag and
//! what it means. From the table come the YAML sections (serde,
//! `deny_unknown_fields`), the flags (the same structs derive
//! `clap::Args`), the overlay (flag beats file beats default), the key
//! descriptors validation reads (`RawPoll::interval` is the `Key` of
//! `poll.interval`) and the README table ([`readme_table`]).
//!
//! A row ends `=> ["flag.name" "VALUE"]` (a flag taking a value; `global`
//! after it to accept it after a subcommand too), `=> ["flag.name"]` (a
//! switch) or `=> []` (config file only).

use std::path::PathBuf;
use std::time::Duration;

use super::field::Field;
use super::spec::{
    Bool, Choice, Count, Dur, FlagShape, Key, KeyDoc, OptDur, Pattern, Ratio, Switch, Text,
};
use super::{LogFormat, bounds};
use crate::probe::writer::WriteMode;

/// A value given in the later layer wins; an empty list is not given.
trait Pick {
    fn pick(self, later: Self) -> Self;
}

impl<T> Pick for Option<T> {
    fn pick(self, later: Self) -> Self {
        later.or(self)
    }
}

impl<T> Pick for Vec<T> {
    fn pick(self, later: Self) -> Self {
        if later.is_empty() { self } else { later }
    }
}

/// Builds one section's struct: a flag row becomes a clap argument, a file
/// row is skipped by clap.
macro_rules! section_struct {
    (@munch [$($m:tt)*] $Section:ident [$($done:tt)*]) => {
        $($m)*
        #[derive(Debug, Default, Clone, serde::Deserialize, clap::Args)]
        #[serde(deny_unknown_fields, default)]
        pub struct $Section { $($done)* }
    };
    (@munch $m:tt $Section:ident [$($done:tt)*]
        $(#[doc = $d:literal])+ $field:ident : $ty:ty = $Spec:ident $(<$G:ty>)? { $($spec:tt)* }
        => [$flag:literal $($vn:literal)? $($global:ident)?]; $($rest:tt)*) => {
        section_struct!(@munch $m $Section [$($done)*
            $(#[doc = $d])+
            #[serde(deserialize_with = "Field::de")]
            #[arg(
                id = $flag, long = $flag, $(value_name = $vn,)?
                global = section_struct!(@global $($global)?),
                num_args = <$Spec $(<$G>)? as FlagShape>::num_args(),
                default_missing_value = <$Spec $(<$G>)? as FlagShape>::missing(),
            )]
            pub $field: $ty,
        ] $($rest)*);
    };
    (@munch $m:tt $Section:ident [$($done:tt)*]
        $(#[doc = $d:literal])+ $field:ident : $ty:ty = $Spec:ident $(<$G:ty>)? { $($spec:tt)* }
        => []; $($rest:tt)*) => {
        section_struct!(@munch $m $Section [$($done)*
            $(#[doc = $d])+
            #[serde(deserialize_with = "Field::de")]
            #[arg(skip)]
            pub $field: $ty,
        ] $($rest)*);
    };
    (@munch $m:tt $Section:ident [$($done:tt)*] + $sub:ident : $Sub:ident; $($rest:tt)*) => {
        section_struct!(@munch $m $Section [$($done)*
            #[command(flatten)]
            pub $sub: $Sub,
        ] $($rest)*);
    };
    (@global) => { false };
    (@global global) => { true };
}

macro_rules! sections {
    (@flag) => { None };
    (@flag $flag:literal $($vn:literal)? $($global:ident)?) => { Some($flag) };
    ($(
        $(#[$sm:meta])*
        $Section:ident $prefix:literal {
            $(
                $(#[doc = $d:literal])+
                $field:ident : $ty:ty = $Spec:ident $(<$G:ty>)? { $($spec:tt)* } => [$($how:tt)*];
            )*
            $( + $sub:ident : $Sub:ident; )*
        }
    )*) => {$(
        section_struct!(@munch [$(#[$sm])*] $Section []
            $( $(#[doc = $d])+ $field : $ty = $Spec $(<$G>)? { $($spec)* } => [$($how)*]; )*
            $( + $sub : $Sub; )*
        );

        #[allow(non_upper_case_globals)]
        impl $Section {
            $(
                pub const $field: Key<$Spec $(<$G>)?> = Key {
                    name: concat!($prefix, stringify!($field)),
                    flag: sections!(@flag $($how)*),
                    meaning: concat!($($d),+),
                    spec: $Spec { $($spec)* },
                };
            )*

            /// The file's names of this section's own keys.
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Deserializes `value` into the key called `name` (one of
            /// [`Self::FIELDS`]); `false` when there is none of that name.
            /// For a section embedded in a hand-written one (`health`).
            pub fn set_field<'de, D: serde::Deserializer<'de>>(
                &mut self,
                name: &str,
                value: D,
            ) -> Result<bool, D::Error> {
                match name {
                    $( stringify!($field) => self.$field = serde::Deserialize::deserialize(value)?, )*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            /// Overlays `later` (the flags) on `self` (the file): a value
            /// set in `later` wins.
            pub fn overlay(self, later: Self) -> Self {
                Self {
                    $( $field: Pick::pick(self.$field, later.$field), )*
                    $( $sub: self.$sub.overlay(later.$sub), )*
                }
            }

            /// This section's keys, then its subsections', in table order.
            pub fn docs(out: &mut Vec<KeyDoc>) {
                $( out.push(Self::$field.doc()); )*
                $( $Sub::docs(out); )*
            }
        }
    )*};
}

sections! {
    /// The YAML file, every section optional; also every flag that sets a key.
    RawFile "" {
        /// serve dump folders instead of live drives (see `ssd_exporter dump`)
        replay: Vec<PathBuf> = Text {
            default: &[],
            list: true,
            example: "/var/lib/ssd_exporter/dumps/nvme0",
        } => ["replay" "FOLDER" global];
        /// serve five simulated drives instead of real ones (no hardware
        /// needed; their serials start with `DEMO`); polls every `2s` unless
        /// `poll.interval` is set; not with `replay`
        demo: Option<bool> = Switch {} => ["demo" global];
        + web: RawWeb;
        + poll: RawPoll;
        + discovery: RawDiscovery;
        + device: RawDevice;
        + log: RawLog;
        + probe: RawProbe;
        + health: RawHealthSection;
        + path: RawPath;
        + state: RawState;
        + metrics: RawMetrics;
        + selftest: RawSelfTest;
    }

    RawWeb "web." {
        /// address to listen on: `:port` (all interfaces), `host:port`, `[::1]:port`
        listen_address: Vec<String> = Text {
            default: &[crate::http::server::DEFAULT_LISTEN_ADDRESS],
            list: true,
            example: crate::http::server::DEFAULT_LISTEN_ADDRESS,
        } => ["web.listen-address" "ADDR"];
        /// where metrics are served: a path starting with `/`, not `/` itself
        telemetry_path: Option<String> = Text {
            default: &[crate::http::DEFAULT_TELEMETRY_PATH],
            list: false,
            example: crate::http::DEFAULT_TELEMETRY_PATH,
        } => ["web.telemetry-path" "PATH"];
        /// exporter-toolkit web config file (`examples/web-config.yml`): TLS,
        /// client certificates, basic auth, security headers; plain HTTP
        /// without
        config_file: Option<PathBuf> = Text {
            default: &[],
            list: false,
            example: "/etc/ssd_exporter/web-config.yml",
        }
            => ["web.config.file" "PATH" global];
        /// open HTTP connections at most; at the cap the oldest connection
        /// not in a request is closed
        max_connections: Option<usize> = Count {
            default: crate::http::server::DEFAULT_MAX_CONNECTIONS as u64,
            min: 1,
            max: crate::http::server::MAX_MAX_CONNECTIONS as u64,
            bytes: false,
        } => ["web.max-connections" "N"];
        /// requests for metrics or the landing page in flight at most, from
        /// arrival until the response is sent; beyond it 503 (a response
        /// stuck on a peer that does not read gives way first)
        max_requests: Option<usize> = Count {
            default: crate::http::DEFAULT_MAX_REQUESTS as u64,
            min: 1,
            max: crate::http::MAX_MAX_REQUESTS as u64,
            bytes: false,
        } => ["web.max-requests" "N"];
        /// serve on the socket systemd passes (socket activation,
        /// systemd/socket-activation/) instead of `web.listen_address`
        systemd_socket: Option<bool> = Switch {} => ["web.systemd-socket"];
    }

    RawPoll "poll." {
        /// how often each drive is polled (±10 % jitter)
        interval: Option<String> = Dur {
            default: crate::poll::DEFAULT_INTERVAL,
            max: bounds::MAX_INTERVAL,
        } => ["poll.interval" "DURATION"];
        /// deadline of one poll, after which the drive is reported down;
        /// also each command's kernel timeout
        timeout: Option<String> = Dur {
            default: crate::poll::DEFAULT_TIMEOUT,
            max: bounds::MAX_TIMEOUT,
        } => ["poll.timeout" "DURATION" global];
        /// poll SATA drives in standby too (spins them up); by default a
        /// drive in standby is skipped that round
        wake_standby: Option<bool> = Switch {} => ["poll.wake-standby"];
        /// after this many polls in a row skipped because the SATA drive
        /// was in standby, poll it once anyway (waking it), so that a drive
        /// that is always asleep is still checked; 0 = never (smartd's
        /// `-n standby,N`)
        standby_max_skips: Option<u64> = Count {
            default: crate::poll::sata::DEFAULT_STANDBY_MAX_SKIPS as u64,
            min: 0,
            max: bounds::MAX_STANDBY_SKIPS,
            bytes: false,
        } => ["poll.standby-max-skips" "N"];
    }

    RawDiscovery "discovery." {
        /// how often sysfs is rescanned for drives that came or went (a
        /// drive reporting itself gone triggers a rescan at once)
        interval: Option<String> = Dur {
            default: crate::device::discovery::DEFAULT_INTERVAL,
            max: bounds::MAX_INTERVAL,
        } => ["discovery.interval" "DURATION"];
        /// also watch the physical drives behind MegaRAID controllers
        /// (`megaraid_sas`), through the controller's pass-through; makes
        /// `/dev/megaraid_sas_ioctl_node` when absent or not the driver's
        megaraid: Option<bool> = Switch {} => ["discovery.megaraid"];
        /// also watch NVMe over fabrics controllers (transport `tcp`,
        /// `rdma`, `fc`, `loop`: remote targets), without spare and
        /// temperature judgement and never probed unless `probe.device`
        /// names a namespace; by default they are logged once and left alone
        fabrics: Option<bool> = Switch {} => ["discovery.fabrics"];
        /// also watch disks behind USB bridges: SATA through SAT and NVMe
        /// through JMicron, ASMedia and Realtek bridges, as drivedb.h's
        /// USB section names the bridge; a bridge it does not know, or
        /// lists as unsupported, is sent nothing and served from sysfs, not
        /// judged; never probed, never self-tested (docs/transports.md, "USB disks")
        usb: Option<bool> = Bool {
            default: crate::device::discovery::usb::DEFAULT_ON,
        } => ["discovery.usb"];
    }

    RawDevice "device." {
        /// only watch drives whose kernel name (`nvme0`, `sda`; a
        /// multipath NVMe drive's subsystem, `nvme-subsys0`) matches
        include: Option<String> = Pattern { max_bytes: bounds::MAX_REGEX_BYTES }
            => ["device.include" "REGEX"];
        /// do not watch drives whose kernel name matches
        exclude: Option<String> = Pattern { max_bytes: bounds::MAX_REGEX_BYTES }
            => ["device.exclude" "REGEX"];
    }

    RawLog "log." {
        /// least severe log level written
        level: Option<String> = Choice<tracing::Level> {
            default: "info",
            accepted: &[
                ("error", tracing::Level::ERROR),
                ("warn", tracing::Level::WARN),
                ("info", tracing::Level::INFO),
                ("debug", tracing::Level::DEBUG),
                ("trace", tracing::Level::TRACE),
            ],
        } => ["log.level" "LEVEL" global];
        /// log line format
        format: Option<String> = Choice<LogFormat> {
            default: "logfmt",
            accepted: &[("logfmt", LogFormat::Logfmt), ("json", LogFormat::Json)],
        } => ["log.format" "FORMAT" global];
    }

    RawProbe "probe." {
        /// turn the latency probe off
        disable: Option<bool> = Switch {} => ["probe.disable"];
        /// probe reads per second per drive, Poisson-distributed
        rate: Option<f64> = Ratio {
            default: crate::probe::runner::DEFAULT_RATE,
            max: bounds::MAX_PROBE_RATE,
            noun: "number",
        } => ["probe.rate" "PER_SECOND"];
        /// sliding window of the exported quantiles
        window: Option<String> = Dur {
            default: crate::probe::runner::DEFAULT_WINDOW,
            max: bounds::MAX_INTERVAL,
        } => ["probe.window" "DURATION"];
        /// a probe I/O slower than this counts as a timeout
        timeout: Option<String> = Dur {
            default: crate::probe::runner::DEFAULT_TIMEOUT,
            max: bounds::MAX_TIMEOUT,
        } => ["probe.timeout" "DURATION"];
        /// skip a probe while the drive's utilisation is at or above this
        /// with 2+ other I/Os queued on average
        busy_threshold: Option<f64> = Ratio {
            default: crate::probe::busy::DEFAULT_MAX_UTILISATION,
            max: 1.0,
            noun: "utilisation",
        } => ["probe.busy-threshold" "RATIO"];
        /// also probe this block device: `nvme0n1`, `sdb`, `loop0`
        device: Vec<String> = Text { default: &[], list: true, example: "nvme0n1" }
            => ["probe.device" "NAME"];
        + write: RawProbeWrite;
    }

    RawProbeWrite "probe.write." {
        /// opt-in write probe: a directory on a filesystem of a monitored
        /// drive; the exporter writes only its own file there
        path: Option<PathBuf> = Text {
            default: &[],
            list: false,
            example: "/var/lib/ssd_exporter/probe",
        } => ["probe.write.path" "DIR"];
        /// write probe operations per second
        rate: Option<f64> = Ratio {
            default: crate::probe::writer::DEFAULT_WRITE_RATE,
            max: bounds::MAX_WRITE_RATE,
            noun: "number",
        } => ["probe.write.rate" "PER_SECOND"];
        /// which write the probe issues: `direct` = O_DIRECT|O_DSYNC writes,
        /// `flush` = buffered write + fdatasync
        mode: Option<String> = Choice<WriteMode> {
            default: "direct",
            accepted: &[("direct", WriteMode::Direct), ("flush", WriteMode::Flush)],
        } => ["probe.write.mode" "MODE"];
        /// size of the write probe's file, in bytes
        max_bytes: Option<u64> = Count {
            default: crate::probe::writer::DEFAULT_MAX_BYTES,
            min: bounds::MIN_WRITE_BYTES,
            max: crate::probe::writer::MAX_BYTES,
            bytes: true,
        } => ["probe.write.max-bytes" "BYTES"];
    }

    /// Health verdict thresholds (config file only).
    RawHealth "health." {
        /// percentage used (ratio) from which `wear_high` warns
        wear_warning: Option<f64> = Ratio {
            default: crate::health::verdict::Rules::WEAR_WARNING,
            max: bounds::MAX_WEAR_RATIO,
            noun: "number",
        } => [];
        /// percentage used (ratio) from which `wear_out` is critical
        wear_critical: Option<f64> = Ratio {
            default: crate::health::verdict::Rules::WEAR_CRITICAL,
            max: bounds::MAX_WEAR_RATIO,
            noun: "number",
        } => [];
        /// `spare_low` warns when available spare is at most this times the
        /// drive's own threshold
        spare_warning_factor: Option<f64> = Ratio {
            default: crate::health::verdict::Rules::SPARE_WARNING_FACTOR,
            max: bounds::MAX_SPARE_FACTOR,
            noun: "number",
        } => [];
        /// power-loss-protection health (ratio) below this is critical
        plp_health_critical: Option<f64> = Ratio {
            default: crate::health::verdict::Rules::PLP_HEALTH_CRITICAL,
            max: bounds::MAX_PLP_RATIO,
            noun: "number",
        } => [];
        /// throttling seen this recently is a warning
        throttle_recent: Option<String> = Dur {
            default: crate::health::verdict::Rules::THROTTLE_RECENT,
            max: bounds::MAX_HISTORY,
        } => [];
        /// "increasing" error counts compare with what was seen within this
        /// window; unset = since the exporter started
        increase_window: Option<String> = OptDur {
            example: Duration::from_secs(24 * 3600),
            min: Duration::ZERO,
            why_min: "",
            max: bounds::MAX_HISTORY,
        } => [];
        /// warn when the probe's tail latency exceeds the datasheet QoS
        latency_qos: Option<bool> = Bool {
            default: crate::health::verdict::Rules::LATENCY_QOS,
        } => [];
    }

    RawPath "path." {
        /// sysfs mount point
        sysfs: Option<PathBuf> = Text {
            default: &[crate::device::discovery::DEFAULT_SYSFS],
            list: false,
            example: crate::device::discovery::DEFAULT_SYSFS,
        } => ["path.sysfs" "PATH"];
        /// device node folder
        dev: Option<PathBuf> = Text {
            default: &[crate::device::discovery::DEFAULT_DEV],
            list: false,
            example: crate::device::discovery::DEFAULT_DEV,
        } => ["path.dev" "PATH"];
        /// smartmontools' drive database for SATA attribute names (read as
        /// data; a malformed file is reported and the built-in table used),
        /// first existing wins; `none` = the built-in table only
        drivedb: Option<PathBuf> = Text {
            default: &crate::ata::attributes::drivedb::DEFAULT_PATHS,
            list: false,
            example: crate::ata::attributes::drivedb::DEFAULT_PATHS[1],
        } => ["path.drivedb" "PATH" global];
    }

    /// How much detail `/metrics` serves (docs/metrics.md, "Series per drive").
    RawMetrics "metrics." {
        /// classic buckets of the probe latency histogram on text scrapes:
        /// `coarse` = 1, 2, 3, 5 × each decade from 10 µs to 10 s (26
        /// buckets), `full` = 10 per decade (62); a protobuf scrape gets
        /// the native histogram, and these too only with `+protobuf`
        /// (for Prometheus' `scrape_classic_histograms`)
        probe_buckets: Option<String> = Choice<crate::probe::histogram::Classic> {
            default: "coarse",
            accepted: &crate::probe::histogram::Classic::CHOICES,
        } => ["metrics.probe-buckets" "BUCKETS"];
        /// also serve the diagnostic families no shipped alert, rule or
        /// dashboard reads (`ssd_page_supported`, the temperature range
        /// seen, a SATA attribute's worst,
        /// threshold and raw value, the endurance group detail, the OCP
        /// page's die, block, version, system area and throttling level
        /// detail) and the lazily served
        /// counters and warning conditions from 0
        diagnostics: Option<bool> = Switch {} => ["metrics.diagnostics"];
    }

    /// The file of what the exporter saw of each drive, kept across restarts.
    RawState "state." {
        /// directory of the state file (counter baselines, wear samples,
        /// temperature range per drive: docs/state.md); `none` = keep nothing;
        /// with `replay`, only when set; never with `demo`
        path: Option<PathBuf> = Text {
            default: &[crate::state::DEFAULT_PATH],
            list: false,
            example: "/var/lib/ssd_exporter",
        } => ["state.path" "DIR"];
    }

    /// Scheduled self-tests: opt-in, the one thing the exporter does that
    /// changes what a drive does (docs/state.md, "Self-tests").
    RawSelfTest "selftest." {
        /// drives running a scheduled self-test at a time on this host, so
        /// that a RAID set is never tested all at once (a test already
        /// running on a drive, whoever started it, takes a slot too)
        concurrency: Option<u64> = Count {
            default: crate::poll::selftest::DEFAULT_CONCURRENCY,
            min: 1,
            max: crate::poll::selftest::MAX_CONCURRENCY,
            bytes: false,
        } => ["selftest.concurrency" "N"];
        /// at shutdown, abort the scheduled self-tests still running
        abort_on_shutdown: Option<bool> = Switch {} => ["selftest.abort-on-shutdown"];
        /// accept `selftest.schedule` intervals below their minimums (`1h`
        /// short, `1d` extended), down to any above zero: for test rigs,
        /// never for a fleet (warned at start)
        allow_short_intervals: Option<bool> = Switch {} => ["selftest.allow-short-intervals"];
        /// transports whose drives get scheduled self-tests: `nvme`,
        /// `sata`, `sas`, `scsi`
        transports: Vec<String> = Text {
            default: &["nvme", "sata", "sas", "scsi"],
            list: true,
            example: "nvme",
        } => [];
        + schedule: RawSelfTestSchedule;
    }

    RawSelfTestSchedule "selftest.schedule." {
        /// start a short self-test on each drive this long after the last
        /// one (a drive never tested: at its own point of the first
        /// interval, from its serial); unset = never
        short: Option<String> = OptDur {
            example: Duration::from_secs(24 * 3600),
            min: crate::poll::selftest::MIN_SHORT,
            why_min: crate::poll::selftest::WHY_MIN,
            max: crate::poll::selftest::MAX_INTERVAL,
        } => ["selftest.schedule.short" "DURATION"];
        /// start an extended self-test on each drive this long after the
        /// last one (it counts as a short one too; a drive never tested: at
        /// its own point of the first interval, from its serial); unset =
        /// never
        extended: Option<String> = OptDur {
            example: Duration::from_secs(30 * 24 * 3600),
            min: crate::poll::selftest::MIN_EXTENDED,
            why_min: crate::poll::selftest::WHY_MIN,
            max: crate::poll::selftest::MAX_INTERVAL,
        } => ["selftest.schedule.extended" "DURATION"];
    }
}

/// The `health` section of the file: the table's keys and the overrides
/// (read, validated and documented in `overrides.rs`).
#[derive(Debug, Default, Clone, clap::Args)]
pub struct RawHealthSection {
    #[arg(skip)]
    pub overrides: Vec<RawOverride>,
    #[command(flatten)]
    pub keys: RawHealth,
}

/// One raw entry of `health.overrides`.
#[derive(Debug, Default, Clone)]
pub struct RawOverride {
    pub serial: Option<String>,
    pub model: Option<String>,
    pub device: Option<String>,
    pub mute: Vec<super::mutes::RawMute>,
    /// When the entry's mutes end (`config::mutes`), as written.
    pub until: Option<String>,
    /// TBW in bytes: `600e12` or `600000000000000`.
    pub rated_endurance_bytes: Option<f64>,
    pub keys: RawHealth,
}

/// Every key, in table order.
pub fn all() -> Vec<KeyDoc> {
    let mut out = Vec::new();
    RawFile::docs(&mut out);
    out
}

/// Adds each key flag's default and bound to its `--help` line.
pub fn with_defaults(arg: clap::Arg) -> clap::Arg {
    let Some(key) = all()
        .into_iter()
        .find(|k| k.flag.is_some() && k.flag == arg.get_long())
    else {
        return arg;
    };
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    let extra = match key.accepts {
        Some(a) => format!("{}; {a}", key.default),
        None => key.default,
    };
    arg.help(format!("{help} [default: {}]", extra.replace('`', "")))
}

/// The configuration table of docs/configuration.md: `extra` rows (flags that
/// are not keys: `[flag, default, meaning]`) first, then one row per key.
pub fn readme_table(extra: &[[&str; 3]]) -> String {
    let mut out = String::from("| flag | key | default | meaning |\n|---|---|---|---|\n");
    for [flag, default, meaning] in extra {
        let row = format!("| `--{flag}` | – | {default} | {meaning} |\n");
        out += &row.replace("|  |", "| |");
    }
    for k in all() {
        let list = |s: &str| {
            if k.list {
                format!("{s} (list)")
            } else {
                s.to_string()
            }
        };
        let flag = match k.flag {
            Some(f) if k.list => format!("`--{f}` (repeatable)"),
            Some(f) => format!("`--{f}`"),
            None => "–".into(),
        };
        let meaning = k.meaning.split_whitespace().collect::<Vec<_>>().join(" ");
        let meaning = match &k.accepts {
            Some(a) => format!("{meaning}; {a}"),
            None => meaning,
        };
        // A `|` in a cell would end it.
        let meaning = meaning.replace('|', "\\|");
        out += &format!(
            "| {flag} | {} | {} | {meaning} |\n",
            list(&format!("`{}`", k.name)),
            k.default
        );
    }
    out
}
