//! `ssd_exporter check`: poll every drive once, judge it, print the table
//! (or JSON), and exit with the Nagios convention — 0 ok, 1 warning,
//! 2 critical, 3 unknown. For people, cron and monitoring checks.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::{Arc, mpsc};
use std::time::{Instant, SystemTime};

use crate::config::Config;
use crate::device::demo;
use crate::health::history::History;
use crate::health::verdict::Status;
use crate::poll::Poller;
use crate::poll::factory::{self, placeholder};
use crate::reading::Identity;
use crate::report::{self, Layout, Row};
use crate::snapshot::{self, DriveSnapshot};

/// A drive to check: its name, where it is read from, its identity before
/// the poll, and its poller.
type Candidate = (String, String, Identity, Box<dyn Poller>);

/// Every drive `check` could poll: the demo fleet, the replay folders or
/// the drives sysfs shows.
fn candidates(config: &Config) -> anyhow::Result<Vec<Candidate>> {
    let namer = Arc::new(config.namer());
    let mut drives: Vec<Candidate> = Vec::new();
    if config.demo {
        let started = Instant::now();
        for d in demo::FLEET {
            let identity = placeholder(d.transport(), "", "", "");
            let poller = factory::demo(d, started, &namer);
            drives.push((d.name.into(), format!("demo:{}", d.name), identity, poller));
        }
    } else if config.replay.is_empty() {
        for d in config.scan(namer.usb_bridges()) {
            let mut identity = placeholder(d.transport, &d.model, &d.serial, &d.firmware);
            identity.kind = d.kind;
            let poller = config.live_poller(&d, &namer, None);
            drives.push((d.name, d.dev_path.display().to_string(), identity, poller));
        }
    } else {
        for dir in &config.replay {
            let (name, transport, poller) =
                factory::replay(dir, &namer).map_err(anyhow::Error::msg)?;
            let identity = placeholder(transport, "", "", "");
            drives.push((name, dir.display().to_string(), identity, poller));
        }
    }
    Ok(drives)
}

/// Polls and judges the drives (`devices` by kernel name or /dev path,
/// every drive when empty; the replay folders or the demo fleet when
/// configured), returning the rows in the order they were found. A device
/// asked for and not found is an error naming what was found.
pub fn rows(config: &Config, devices: &[String]) -> anyhow::Result<Vec<Row>> {
    let mut drives = candidates(config)?;
    let found: Vec<String> = drives.iter().map(|d| d.0.clone()).collect();
    let wanted = |name: &str| {
        devices.is_empty()
            || devices
                .iter()
                .any(|d| Path::new(d).file_name().is_some_and(|n| n == name))
    };
    if let Some(missing) = devices.iter().find(|d| {
        let name = Path::new(d).file_name().unwrap_or_default();
        !found.iter().any(|f| name == f.as_str())
    }) {
        anyhow::bail!("no drive {missing} (found: {})", found_list(config, &found));
    }
    drives.retain(|d| wanted(&d.0));
    let now = SystemTime::now();
    let deadline = config.poll_timeout;
    // serve's judge, without probes (check runs none).
    let judge = snapshot::judge(Arc::new(config.health.clone()), None);
    // Each drive on its own thread: a hung drive costs its deadline, not
    // everyone's.
    let pending: Vec<_> = drives
        .into_iter()
        .map(|(name, origin, identity, mut poller)| {
            let (tx, rx) = mpsc::channel();
            std::thread::spawn(move || {
                let started = Instant::now();
                let outcome = poller.poll();
                let _ = tx.send((outcome, started.elapsed()));
            });
            (DriveSnapshot::new(&name, &origin, identity), rx)
        })
        .collect();
    let mut rows = Vec::new();
    for (mut snap, rx) in pending {
        match rx.recv_timeout(deadline) {
            Ok((outcome, took)) => snap.apply(outcome, took, now),
            Err(_) => snap.apply_deadline(deadline),
        }
        snap.history = History::new(config.health.increase_window);
        judge(&mut snap, now);
        rows.push(Row::from_snapshot(&snap, now));
    }
    Ok(rows)
}

/// What was found, for the error that names a drive that was not.
fn found_list(config: &Config, found: &[String]) -> String {
    match found {
        [] => format!("none; {}", nothing_found(config)),
        found => found.join(", "),
    }
}

/// Why there may be no drive, and what to try.
fn nothing_found(config: &Config) -> String {
    format!(
        "no NVMe, SATA, SAS or SCSI drive under {}{}; to try the exporter without drives: ssd_exporter check --demo",
        config.sysfs.join("block").display(),
        match (&config.include, &config.exclude) {
            (None, None) => String::new(),
            _ => " that device.include and device.exclude let through".into(),
        }
    )
}

/// Runs the command; the exit code. `wide` prints every line whole even
/// on a terminal.
pub fn run(config: &Config, devices: &[String], json: bool, wide: bool) -> anyhow::Result<u8> {
    let rows = rows(config, devices)?;
    let code = report::exit_code(&rows);
    let stdout = std::io::stdout();
    if json {
        let status = Status::ALL[usize::from(code)].as_str();
        let doc = serde_json::json!({ "status": status, "exit_code": code, "drives": rows });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if rows.is_empty() {
        println!("{}", nothing_found(config));
    } else {
        let terminal = stdout.is_terminal();
        let width = match terminal && !wide {
            true => Some(crate::sys::process::stdout_columns().unwrap_or(80)),
            false => None,
        };
        if config.demo {
            println!("{}", demo::NOTICE);
        }
        let layout = Layout {
            width,
            color: terminal,
        };
        print!("{}", report::text_table(&rows, layout));
    }
    Ok(code)
}
