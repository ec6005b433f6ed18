//! Which drives are watched and how: replay folders, or sysfs discovery
//! with one poll loop (and latency probes) per drive, started when a drive
//! appears and stopped when it goes.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::Ctx;
use super::schedule::{self, Schedule};
use crate::config::Config;
use crate::device::demo;
use crate::device::discovery::{Discovered, Scan, Transport};
use crate::poll::{Poller, factory};
use crate::probe::fleet::blocks_of;

/// Interval jitter: ±10 %.
const JITTER: f64 = 0.1;

fn schedule_of(config: &Config) -> Schedule {
    Schedule {
        interval: config.poll_interval,
        deadline: config.poll_timeout,
        jitter: JITTER,
    }
}

/// Serves each replay folder as a drive; returns a handle owning their loops.
pub(crate) fn start_replays(ctx: &Ctx) -> anyhow::Result<JoinHandle<()>> {
    let mut tasks = Vec::new();
    for dir in &ctx.config.replay {
        let (name, transport, poller) =
            factory::replay_with(dir, &ctx.namer, ctx.pel_marks.as_ref())
                .map_err(anyhow::Error::msg)?;
        let origin = dir.display().to_string();
        let mut snap = ctx.snapshot(&name, &origin, factory::placeholder(transport, "", "", ""));
        snap.place = Arc::new(crate::device::replay::usb::place(dir));
        ctx.store.insert(snap);
        info!(device = name, folder = %dir.display(), "replaying dump");
        tasks.push(spawn_loop(ctx, name, poller, None));
    }
    Ok(owner(tasks))
}

/// Starts `name`'s poll loop.
/// `after` runs after each poll (a drive the self-test schedule covers).
fn spawn_loop(
    ctx: &Ctx,
    name: String,
    poller: Box<dyn Poller>,
    after: Option<schedule::AfterPoll>,
) -> JoinHandle<()> {
    let drive = schedule::Drive {
        device: name,
        poller,
        schedule: schedule_of(&ctx.config),
        judge: ctx.judge.clone(),
        store: ctx.store.clone(),
        gone: ctx.gone.clone(),
        after,
    };
    tokio::spawn(schedule::run(ctx.pool.clone(), drive))
}

/// One task owning `tasks`: aborting it aborts them all.
fn owner(tasks: Vec<JoinHandle<()>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let _guard = AbortOnDrop(tasks);
        std::future::pending::<()>().await
    })
}

/// Probe reads per second of each simulated drive: ten times the real
/// default, so a p99.99 has enough samples behind it within minutes.
pub const DEMO_PROBE_RATE: f64 = 50.0;

/// Serves the simulated fleet (`--demo`): each drive's pages come from its
/// model through the live pollers; its probe draws latencies from the same
/// model. Returns a handle owning the loops.
pub(crate) fn start_demo(ctx: &Ctx) -> JoinHandle<()> {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (i, drive) in demo::FLEET.into_iter().enumerate() {
        let poller = factory::demo(drive, started, &ctx.namer);
        let origin = format!("demo:{}", drive.name);
        let id = factory::placeholder(drive.transport(), "", "", "");
        let mut snap = ctx.snapshot(drive.name, &origin, id);
        snap.place = Arc::new(demo::pcie::place(drive.model, i));
        ctx.store.insert(snap);
        if let Some(p) = &ctx.probes {
            let model = drive.model;
            let draw = Box::new(move |t: f64, rng: &mut fastrand::Rng| {
                let l = demo::latency::latency(model, t);
                l.sample(1.0 - rng.f64(), rng.f64(), rng.f64())
            });
            p.start_simulated(drive.name, drive.block, DEMO_PROBE_RATE, started, draw);
        }
        tasks.push(spawn_loop(ctx, drive.name.to_string(), poller, None));
    }
    owner(tasks)
}

/// Aborts the drive loops when the owning task is aborted.
struct AbortOnDrop(Vec<JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.iter().for_each(JoinHandle::abort);
    }
}

/// Rescans sysfs every `discovery_interval` (and at once when a drive
/// reports it is gone): new drives get a poll loop and probes, vanished ones
/// lose them and their series.
pub(crate) async fn discover(ctx: Arc<Ctx>) {
    let c = &ctx.config;
    let mut running = Drives(HashMap::new());
    let mut warned_empty = false;
    // At most one scan at a time: a scan stuck in sysfs is waited for on the
    // next pass instead of being abandoned for a new one, so a hung scan
    // holds one blocking thread, not one per pass.
    let mut stuck: Option<JoinHandle<Scan>> = None;
    // Controllers left alone on purpose (fabrics), logged once each.
    let mut noted = HashSet::new();
    // Probe starts read sysfs (the block device's size and sector size), so
    // they run on a blocking thread too, one batch at a time.
    let mut starting: Option<JoinHandle<()>> = None;
    loop {
        let mut scanned = stuck.take().unwrap_or_else(|| {
            let (config, bridges) = (c.clone(), Arc::clone(ctx.namer.usb_bridges()));
            tokio::task::spawn_blocking(move || config.scan_noting(&bridges))
        });
        match tokio::time::timeout(Duration::from_secs(10), &mut scanned).await {
            Err(_) => {
                warn!(
                    "sysfs scan did not finish within 10s; keeping the current drives and waiting for it"
                );
                stuck = Some(scanned);
            }
            Ok(Ok(Scan {
                drives: found,
                skipped,
            })) => {
                note_skipped(&mut noted, skipped);
                if found.is_empty() && !warned_empty {
                    warn!(sysfs = %c.sysfs.display(), "no NVMe, SATA, SAS or SCSI drives found; serving exporter metrics and rescanning every {:?} (to try the exporter without drives: --demo)", c.discovery_interval);
                    warned_empty = true;
                }
                let starts = reconcile(&mut running, found, &ctx);
                if starting.as_ref().is_some_and(|h| !h.is_finished()) {
                    warn!(
                        "probe starts of the last pass have not finished; trying again next pass"
                    );
                } else {
                    let ctx = ctx.clone();
                    starting = Some(tokio::task::spawn_blocking(move || {
                        start_probes(&ctx, starts);
                        ctx.start_extra_probes();
                    }));
                }
            }
            Ok(Err(e)) => warn!("sysfs scan failed: {e}; keeping the current drives"),
        }
        tokio::select! {
            _ = tokio::time::sleep(c.discovery_interval) => {}
            _ = ctx.gone.notified() => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Logs each controller discovery leaves alone once, while it stays so
/// (one that comes back later is logged again).
fn note_skipped(noted: &mut HashSet<String>, skipped: Vec<(String, String)>) {
    noted.retain(|name| skipped.iter().any(|(n, _)| n == name));
    for (name, why) in skipped {
        if noted.insert(name.clone()) {
            info!(device = name, "{why}");
        }
    }
}

/// Running drive loops by kernel name; aborted when dropped.
struct Drives(HashMap<String, (PathBuf, JoinHandle<()>)>);

impl Drop for Drives {
    fn drop(&mut self) {
        self.0.values().for_each(|(_, h)| h.abort());
    }
}

/// A probe to start (or leave running): drive, block device, standby hook.
type ProbeStart = (String, String, Option<crate::probe::runner::SkipIf>);

/// Starts loops for new drives and stops vanished ones (in memory only:
/// nothing here reads a file or a device, as it runs on the async
/// runtime). Returns the probes to start, for [`start_probes`] on a
/// blocking thread.
fn reconcile(running: &mut Drives, found: Vec<Discovered>, ctx: &Ctx) -> Vec<ProbeStart> {
    let mut starts = Vec::new();
    let started = Instant::now();
    running.0.retain(|name, (path, handle)| {
        let keep = found.iter().any(|d| &d.name == name && d.key() == path);
        if !keep {
            info!(device = name, "drive gone; removing its series");
            handle.abort();
            // The probes first, then the drive: a scrape lists the drives
            // before it reads the probes (`app::State::metrics`), so one
            // that no longer sees the drive cannot see its probes either
            // (they were served for a moment with an empty serial).
            if let Some(p) = &ctx.probes {
                p.stop_drive(name);
            }
            ctx.store.remove(name);
            ctx.selftests.forget(name);
        }
        keep
    });
    for d in found {
        if !running.0.contains_key(&d.name) {
            info!(
                device = d.name,
                model = d.model,
                serial = d.serial,
                transport = d.transport.as_str(),
                kind = d.kind.as_label(),
                "drive found: {}",
                d.basis
            );
            let mut identity = factory::placeholder(d.transport, &d.model, &d.serial, &d.firmware);
            identity.kind = d.kind;
            let mut snap = ctx.snapshot(&d.name, &d.dev_path.display().to_string(), identity);
            snap.place = Arc::new(d.place.clone());
            ctx.store.insert(snap);
            let poller = ctx
                .config
                .live_poller(&d, &ctx.namer, ctx.pel_marks.as_ref());
            // Only a physical drive on this host (`app::selftest` says why).
            let after = d.probed().then(|| {
                let stat = blocks_of(&d.namespaces)
                    .first()
                    .map(|b| ctx.config.sysfs.join("block").join(b).join("stat"));
                ctx.selftests.cover(&d.name, stat)
            });
            let h = spawn_loop(ctx, d.name.clone(), poller, after);
            running.0.insert(d.name.clone(), (d.key().to_path_buf(), h));
        } else if ctx.store.get(&d.name).is_some_and(|s| *s.place != d.place) {
            // A by-path link udev made after the drive was found, a
            // failover to another controller of the subsystem.
            let place = Arc::new(d.place.clone());
            ctx.store.update(&d.name, |s| s.place = place);
        }
        // Every pass, not only when the drive is new: a hot-plugged
        // controller's namespaces appear a moment after the controller, and
        // namespaces can be created and attached later. Already running
        // probes are left as they are.
        // A virtual volume or a fabric namespace is probed only when
        // `probe.device` names it (`start_extra_probes`; `Discovered::probed`).
        if ctx.probes.is_some() && d.probed() {
            let skip = (d.transport == Transport::Sata).then(|| ctx.standby_check(&d.name));
            for block in blocks_of(&d.namespaces) {
                starts.push((d.name.clone(), block, skip.clone()));
            }
        }
    }
    tracing::debug!(took = ?started.elapsed(), drives = running.0.len(), "discovery reconciled");
    starts
}

/// Starts the probes [`reconcile`] listed (each reads the block device's
/// sysfs attributes; a running probe is left alone). Blocking.
fn start_probes(ctx: &Ctx, starts: Vec<ProbeStart>) {
    if let Some(p) = &ctx.probes {
        for (drive, block, skip) in starts {
            p.start(&drive, &block, skip);
        }
    }
}

#[cfg(test)]
mod tests;
