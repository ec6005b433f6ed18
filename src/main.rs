//! `ssd_exporter`: parse the command line, load the configuration, run.
//! Exit codes: 0 ok, 1 runtime failure, 2 bad command line or configuration
//! (including `--web.systemd-socket` without a socket from systemd);
//! `check` exits 0–3 (Nagios), a bad command line or configuration
//! included (3, UNKNOWN).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use ssd_exporter::cli::{self, Cli, Command};
use ssd_exporter::config::{Config, ConfigError, FileLayer, RawFile};
use ssd_exporter::sys::process::{ActivationError, one_malloc_arena};
use ssd_exporter::{app, check, dump, logging};

fn main() -> ExitCode {
    let cli = match cli::parse(std::env::args_os()) {
        Ok(cli) => cli,
        Err(refused) => {
            // clap's whole message: what is wrong, a similar flag if there
            // is one, the usage line and where to find help.
            let _ = refused.error.print();
            return ExitCode::from(refused.code);
        }
    };
    // Nagios: a check that cannot run at all is UNKNOWN (3), not CRITICAL.
    let bad_config = match cli.command {
        Some(Command::Check { .. }) => 3,
        _ => 2,
    };
    let (config, level_given) = match load(&cli) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(bad_config);
        }
    };
    if cli.flags.check_config {
        println!("configuration ok; {}", config.web.summary());
        return ExitCode::SUCCESS;
    }
    // `check` prints a table for people: only warnings and errors around
    // it, unless a level is asked for.
    let level = match cli.command {
        Some(Command::Check { .. }) if !level_given => tracing::Level::WARN,
        _ => config.log_level,
    };
    logging::init(level, config.log_format);
    let result = match cli.command {
        Some(Command::Dump {
            device,
            folder,
            redact,
        }) => dump(&device, &folder, config.poll_timeout, redact),
        // Nagios: a check that cannot run at all is UNKNOWN (3).
        Some(Command::Check {
            json,
            wide,
            devices,
        }) => Ok(ExitCode::from(
            check::run(&config, &devices, json, wide).unwrap_or_else(|e| {
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

fn load(cli: &Cli) -> Result<(Config, bool), ConfigError> {
    load_from(cli.flags.config_file.as_deref(), cli.flags.to_raw())
}

/// The file (if any) with the flags laid over it, validated, and whether a
/// log level was given: at start, and again on each SIGHUP.
fn load_from(file: Option<&Path>, flags: RawFile) -> Result<(Config, bool), ConfigError> {
    let file = match file {
        Some(path) => {
            let (raw, text) = RawFile::load_with_text(path)?;
            Some(FileLayer { path, raw, text })
        }
        None => None,
    };
    let level_given =
        flags.log.level.is_some() || file.as_ref().is_some_and(|f| f.raw.log.level.is_some());
    let config = Config::from_layers(file, flags)?;
    app::validate(&config)?;
    Ok((config, level_given))
}

fn serve(config: Config, cli: &Cli) -> anyhow::Result<ExitCode> {
    one_malloc_arena();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let (file, flags) = (cli.flags.config_file.clone(), cli.flags.to_raw());
    let reload = Arc::new(move || load_from(file.as_deref(), flags.clone()).map(|(c, _)| c));
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
