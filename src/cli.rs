//! Command line: Prometheus-style dotted flags, each mirroring a config key.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

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

/// The "## Configuration" table of README.md, from the flags above and the
/// key table.
pub fn readme_table() -> String {
    use clap::CommandFactory;
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
