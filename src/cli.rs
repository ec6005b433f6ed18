//! Command line: Prometheus-style dotted flags, each mirroring a config key.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::RawFile;

#[derive(Debug, Parser)]
#[command(
    name = "ssd_exporter",
    version,
    about = "SSD health and latency as Prometheus metrics, read through the exporter's own NVMe, SATA and SAS/SCSI ioctls.",
    mut_args = crate::config::with_defaults
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
        /// Print JSON instead of the table (schema in docs/verdict.md).
        #[arg(long)]
        json: bool,
        /// Print every line whole, as when piped: no wrapping to the
        /// terminal's width.
        #[arg(long)]
        wide: bool,
        /// Only these drives (kernel names or /dev paths); all when none.
        devices: Vec<String>,
    },
    /// Write what a drive answers into a replay folder (see --replay).
    Dump {
        /// The drive: an NVMe controller (/dev/nvme0, or a namespace such as
        /// /dev/nvme0n1) or a SATA, SAS or SCSI disk (/dev/sda).
        device: PathBuf,
        /// Folder to write; its base name becomes the `device` label on replay.
        folder: PathBuf,
        /// Replace the serial number and namespace identifiers with fixed values.
        #[arg(long)]
        redact: bool,
    },
}

/// Flags that a subcommand accepts (they are global) but does not use, left
/// out of its `--help`: `check` serves nothing, `dump` reads one live drive.
const UNUSED: [(&str, &[&str]); 2] = [
    ("check", &["web.config.file"]),
    (
        "dump",
        &["replay", "demo", "web.config.file", "path.drivedb"],
    ),
];

/// The command line's definition, as `--help` shows it.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    for (sub, unused) in UNUSED {
        // A subcommand's own copy of a global flag, hidden, stands in for
        // the one clap would propagate; the value lands in the same place.
        let hidden: Vec<clap::Arg> = cmd
            .get_arguments()
            .filter(|a| unused.contains(&a.get_id().as_str()))
            .map(|a| a.clone().hide(true))
            .collect();
        cmd = cmd.mut_subcommand(sub, |s| s.args(hidden));
    }
    cmd
}

/// A command line clap refused (or `--help`, `--version`): what to print
/// and the exit code.
#[derive(Debug)]
pub struct Refused {
    pub error: clap::Error,
    pub code: u8,
}

/// Parses `args` (the program name first). A refused command line exits 2,
/// or 3 (Nagios UNKNOWN) for `check`, so that a monitoring system does not
/// read a typo in its command as a critical drive; `--help` and
/// `--version` exit 0.
pub fn parse<I, T>(args: I) -> Result<Cli, Refused>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let refused = |error: clap::Error| {
        let code = match error.use_stderr() {
            false => 0,
            true if subcommand(&args) == Some("check".into()) => 3,
            true => 2,
        };
        Refused { error, code }
    };
    let matches = command().try_get_matches_from(&args).map_err(refused)?;
    Cli::from_arg_matches(&matches).map_err(refused)
}

/// The subcommand named on a command line that may not parse.
fn subcommand(args: &[OsString]) -> Option<String> {
    let matches = command()
        .ignore_errors(true)
        .try_get_matches_from(args)
        .ok()?;
    matches.subcommand_name().map(str::to_string)
}

/// Serving flags: the two below, and one per config key of the same dotted
/// name (defined once, in the key table `config::keys`).
#[derive(Debug, Default, clap::Args)]
pub struct Flags {
    /// YAML configuration file (examples/config.yml lists every key).
    #[arg(long = "config.file", value_name = "PATH", global = true)]
    pub config_file: Option<PathBuf>,
    /// Validate the configuration and exit.
    #[arg(long = "check-config")]
    pub check_config: bool,
    #[command(flatten)]
    pub keys: RawFile,
}

impl Flags {
    /// The flags as a raw config layer, to overlay on the file.
    pub fn to_raw(&self) -> RawFile {
        self.keys.clone()
    }
}

/// The configuration table of docs/configuration.md, from the flags above and the
/// key table.
pub fn readme_table() -> String {
    let cmd = Cli::command();
    let own: Vec<[String; 3]> = cmd
        .get_arguments()
        .filter(|a| matches!(a.get_id().as_str(), "config_file" | "check_config"))
        .map(|a| {
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            let help = help.trim_end_matches('.');
            // "Validate …" reads as "validate …" in the table; "YAML" stays.
            let lower = help.chars().nth(1).is_some_and(char::is_lowercase);
            let help = match help.split_at_checked(1) {
                Some((first, rest)) if lower => first.to_lowercase() + rest,
                _ => help.to_string(),
            };
            let default = if a.get_action().takes_values() {
                "none"
            } else {
                ""
            };
            let flag = a.get_long().unwrap_or_default();
            [flag.to_string(), default.to_string(), help]
        })
        .collect();
    let own: Vec<[&str; 3]> = own
        .iter()
        .map(|[f, d, m]| [f.as_str(), d.as_str(), m.as_str()])
        .collect();
    crate::config::readme_table(&own)
}

#[cfg(test)]
mod tests;
