//! `ssd_exporter`: parse the command line, load the configuration, run.
//! Exit codes: 0 ok, 1 runtime failure, 2 bad command line or configuration
//! (including `--web.systemd-socket` without a socket from systemd).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use ssd_exporter::cli::{Cli, Command};
use ssd_exporter::config::{Config, ConfigError, RawFile};
use ssd_exporter::sys::process::{ActivationError, one_malloc_arena};
use ssd_exporter::{app, check, dump, logging};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line: clap's first, naming the flag and what it accepts.
            let text = e.render().to_string();
            eprintln!("{}", text.lines().next().unwrap_or("invalid command line"));
            return ExitCode::from(2);
        }
    };
    let config = match load(&cli) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.flags.check_config {
        println!("configuration ok; {}", config.web.summary());
        return ExitCode::SUCCESS;
    }
    logging::init(config.log_level, config.log_format);
    let result = match cli.command {
        Some(Command::Dump {
            device,
            folder,
            redact,
        }) => dump(&device, &folder, config.poll_timeout, redact),
        // Nagios: a check that cannot run at all is UNKNOWN (3).
        Some(Command::Check { json, devices }) => Ok(ExitCode::from(
            check::run(&config, &devices, json).unwrap_or_else(|e| {
                eprintln!("error: {e:#}");
                3
            }),
        )),
        None => serve(config, &cli),
    };
    match result {
        Ok(code) => code,
        // Started with --web.systemd-socket but not by a socket unit: how
        // the exporter was started is wrong, as with a bad flag (2).
        Err(e) if e.downcast_ref::<ActivationError>().is_some() => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn load(cli: &Cli) -> Result<Config, ConfigError> {
    load_from(cli.flags.config_file.as_deref(), cli.flags.to_raw())
}

/// The file (if any) with the flags laid over it, validated: at start,
/// and again on each SIGHUP.
fn load_from(file: Option<&Path>, flags: RawFile) -> Result<Config, ConfigError> {
    let file = match file {
        Some(path) => RawFile::load(path)?,
        None => RawFile::default(),
    };
    let config = Config::try_from(file.overlay(flags))?;
    app::validate(&config)?;
    Ok(config)
}

fn serve(config: Config, cli: &Cli) -> anyhow::Result<ExitCode> {
    one_malloc_arena();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (file, flags) = (cli.flags.config_file.clone(), cli.flags.to_raw());
    let reload = Arc::new(move || load_from(file.as_deref(), flags.clone()));
    rt.block_on(app::run(config, reload))?;
    // Blocking threads stuck in an ioctl must not hold the process open.
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}

fn dump(
    device: &std::path::Path,
    folder: &std::path::Path,
    timeout: Duration,
    redact: bool,
) -> anyhow::Result<ExitCode> {
    let report = dump::dump(device, folder, timeout, redact)?;
    println!("{}: wrote {}", folder.display(), report.files.join(", "));
    for e in &report.errors {
        eprintln!("failed: {e}");
    }
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
