//! `ssd_exporter check`: poll every drive once, judge it, print the table
//! (or JSON), and exit with the Nagios convention — 0 ok, 1 warning,
//! 2 critical, 3 unknown. For people, cron and monitoring checks.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::{Arc, mpsc};
use std::time::{Instant, SystemTime};

use crate::config::Config;
use crate::health::Identity;
use crate::health::history::History;
use crate::poll::Poller;
use crate::poll::factory::{self, placeholder};
use crate::report::{self, Row};
use crate::snapshot::{self, DriveSnapshot};

/// Polls and judges the drives (`devices` by kernel name or /dev path,
/// every drive when empty; the replay folders when configured), returning
/// the rows in device order.
pub fn rows(config: &Config, devices: &[String]) -> anyhow::Result<Vec<Row>> {
    let namer = Arc::new(config.namer());
    let wanted = |name: &str| {
        devices.is_empty()
            || devices
                .iter()
                .any(|d| Path::new(d).file_name().is_some_and(|n| n == name))
    };
    let mut drives: Vec<(String, String, Identity, Box<dyn Poller>)> = Vec::new();
    if config.replay.is_empty() {
        for d in config.scan().into_iter().filter(|d| wanted(&d.name)) {
            let mut identity = placeholder(d.transport, &d.model, &d.serial, &d.firmware);
            identity.kind = d.kind;
            let poller = config.live_poller(&d, &namer);
            drives.push((d.name, d.dev_path.display().to_string(), identity, poller));
        }
    } else {
        for dir in &config.replay {
            let (name, transport, poller) =
                factory::replay(dir, &namer).map_err(anyhow::Error::msg)?;
            if wanted(&name) {
                let identity = placeholder(transport, "", "", "");
                drives.push((name, dir.display().to_string(), identity, poller));
            }
        }
    }
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

/// Runs the command; the exit code.
pub fn run(config: &Config, devices: &[String], json: bool) -> anyhow::Result<u8> {
    let rows = rows(config, devices)?;
    let code = report::exit_code(&rows);
    if json {
        let status = ["ok", "warning", "critical", "unknown"][usize::from(code)];
        let doc = serde_json::json!({ "status": status, "exit_code": code, "drives": rows });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if rows.is_empty() {
        println!("no drives found");
    } else {
        print!(
            "{}",
            report::text_table(&rows, std::io::stdout().is_terminal())
        );
    }
    Ok(code)
}
