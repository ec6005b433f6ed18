//! Wiring: discovery (or replay folders) → one poll loop per drive → the
//! snapshot store → the HTTP server; one shutdown signal for all of it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::ata::attributes::Namer;
use crate::config::Config;
use crate::device::discovery::{self, Discovered, Filter, Transport};
use crate::device::nvme_live::NvmeLive;
use crate::device::replay::{self, DumpKind, NvmeReplay, SataReplay};
use crate::device::sata_live::SataLive;
use crate::health::Identity;
use crate::http::{self, DriveRow, Exposition, Format};
use crate::metrics::{self, BuildInfo, TextFormat};
use crate::poll::Poller;
use crate::poll::nvme::{NvmePoller, PollPolicy};
use crate::poll::sata::{SataPolicy, SataPoller};
use crate::poll::schedule::{self, Schedule};
use crate::snapshot::{DriveSnapshot, Store};

/// Interval jitter: ±10 %.
const JITTER: f64 = 0.1;

/// What the HTTP server reads: the store and build info.
#[derive(Debug, Default)]
pub struct State {
    pub store: Arc<Store>,
    pub build: BuildInfo,
}

impl Exposition for State {
    fn metrics(&self, format: Format) -> String {
        let f = match format {
            Format::OpenMetrics => TextFormat::OpenMetrics,
            Format::PrometheusText => TextFormat::Prometheus,
        };
        metrics::encode(self.store.list(), &self.build, f)
    }

    fn drives(&self) -> Vec<DriveRow> {
        let now = SystemTime::now();
        self.store
            .list()
            .iter()
            .map(|d| DriveRow {
                device: d.device.clone(),
                transport: d.identity.transport.as_str().to_string(),
                model: d.identity.model.clone(),
                serial: d.identity.serial.clone(),
                firmware: d.identity.firmware.clone(),
                up: d.up,
                last_poll_age: d.last_success.and_then(|t| now.duration_since(t).ok()),
                state: drive_state(d),
            })
            .collect()
    }
}

fn drive_state(d: &DriveSnapshot) -> String {
    match (&d.last_error, d.polls, d.up) {
        (_, 0, _) => "waiting for the first poll".to_string(),
        (None, _, true) => "ok".to_string(),
        (Some(e), _, true) => format!("ok, but a page failed: {e}"),
        (Some(e), _, false) => format!("poll failing: {e}"),
        (None, _, false) => "poll failing".to_string(),
    }
}

/// Runs the exporter until SIGINT or SIGTERM.
pub async fn run(config: Config) -> anyhow::Result<()> {
    let mut signals = Signals::install().context("install signal handlers")?;
    let mut listeners = Vec::new();
    for addr in &config.listen {
        let l = bind(*addr)
            .await
            .with_context(|| format!("listen on {addr}"))?;
        info!(address = %l.local_addr()?, "listening");
        listeners.push(l);
    }
    let state = Arc::new(State::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    let namer = Arc::new(load_namer(&config));
    let drives = if config.replay.is_empty() {
        tokio::spawn(discover(config.clone(), state.store.clone(), namer))
    } else {
        start_replays(&config, &state.store, &namer)?
    };
    let mut servers = Vec::new();
    for l in listeners {
        let cfg = http::ServerConfig {
            telemetry_path: config.telemetry_path.clone(),
            version: state.build.version.clone(),
            banner: None,
        };
        let mut rx = stop_rx.clone();
        let shutdown = async move {
            let _ = rx.wait_for(|&stop| stop).await;
        };
        servers.push(tokio::spawn(http::serve(l, state.clone(), cfg, shutdown)));
    }
    signals.wait().await;
    info!("shutting down");
    let _ = stop_tx.send(true);
    drives.abort();
    for s in servers {
        s.await??;
    }
    Ok(())
}

/// `[::]:port` falls back to `0.0.0.0:port` on hosts without IPv6.
async fn bind(addr: std::net::SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    match tokio::net::TcpListener::bind(addr).await {
        Err(e) if addr.ip().is_unspecified() && addr.is_ipv6() => {
            let v4 = std::net::SocketAddr::from(([0, 0, 0, 0], addr.port()));
            tokio::net::TcpListener::bind(v4).await.map_err(|_| e)
        }
        other => other,
    }
}

/// SIGTERM and SIGINT handlers, installed before anything is served so a
/// signal that arrives early still shuts down cleanly.
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    async fn wait(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

fn schedule_of(config: &Config) -> Schedule {
    Schedule {
        interval: config.poll_interval,
        deadline: config.poll_timeout,
        jitter: JITTER,
    }
}

/// Serves each replay folder as a drive; returns a handle owning their loops.
pub fn start_replays(
    config: &Config,
    store: &Arc<Store>,
    namer: &Arc<Namer>,
) -> anyhow::Result<JoinHandle<()>> {
    let gone = Arc::new(Notify::new());
    let mut tasks = Vec::new();
    for dir in &config.replay {
        let kind = replay::dump_kind(dir).map_err(anyhow::Error::msg)?;
        let name = replay::device_name(dir);
        let (poller, transport): (Box<dyn Poller>, _) = match kind {
            DumpKind::Nvme => {
                let src = Box::new(NvmeReplay::new(dir));
                (
                    Box::new(NvmePoller::new(src, PollPolicy::EVERY_PAGE)),
                    Transport::Nvme,
                )
            }
            DumpKind::Sata => {
                let src = Box::new(SataReplay::new(dir));
                let poller = SataPoller::new(src, namer.clone(), SataPolicy::EVERY_PAGE);
                (Box::new(poller), Transport::Sata)
            }
        };
        store.insert(DriveSnapshot::new(
            &name,
            &dir.display().to_string(),
            placeholder(transport, "", "", ""),
        ));
        info!(device = name, folder = %dir.display(), "replaying dump");
        tasks.push(tokio::spawn(schedule::run(
            name,
            poller,
            schedule_of(config),
            store.clone(),
            gone.clone(),
        )));
    }
    Ok(tokio::spawn(async move {
        let _guard = AbortOnDrop(tasks);
        std::future::pending::<()>().await
    }))
}

/// Aborts the drive loops when the owning task is aborted.
struct AbortOnDrop(Vec<JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.iter().for_each(JoinHandle::abort);
    }
}

fn placeholder(transport: Transport, model: &str, serial: &str, firmware: &str) -> Identity {
    Identity {
        transport,
        model: model.to_string(),
        serial: serial.to_string(),
        firmware: firmware.to_string(),
        wwn: String::new(),
        capacity_bytes: None,
    }
}

/// Rescans sysfs every `discovery_interval` (and at once when a drive
/// reports it is gone): new drives get a poll loop, vanished ones lose
/// their loop and their series.
pub async fn discover(config: Config, store: Arc<Store>, namer: Arc<Namer>) {
    let filter = Filter {
        include: config.include.clone(),
        exclude: config.exclude.clone(),
    };
    let gone = Arc::new(Notify::new());
    let mut running = Drives(HashMap::new());
    let mut warned_empty = false;
    loop {
        let (sysfs, dev, f) = (config.sysfs.clone(), config.dev.clone(), filter.clone());
        let scan = tokio::task::spawn_blocking(move || {
            let mut found = discovery::nvme_controllers(&sysfs, &dev, &f);
            found.extend(discovery::sata_disks(&sysfs, &dev, &f));
            found
        });
        match tokio::time::timeout(Duration::from_secs(10), scan).await {
            Ok(Ok(found)) => {
                if found.is_empty() && !warned_empty {
                    warn!(sysfs = %config.sysfs.display(), "no NVMe or SATA drives found; serving exporter metrics and rescanning every {:?}", config.discovery_interval);
                    warned_empty = true;
                }
                reconcile(&mut running, found, &config, &store, &gone, &namer);
            }
            _ => warn!("sysfs scan did not finish within 10s; keeping the current drives"),
        }
        tokio::select! {
            _ = tokio::time::sleep(config.discovery_interval) => {}
            _ = gone.notified() => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The poller of a discovered drive, for its transport.
fn live_poller(d: &Discovered, config: &Config, namer: &Arc<Namer>) -> Box<dyn Poller> {
    match d.transport {
        Transport::Nvme => {
            let src = Box::new(NvmeLive::new(&d.dev_path, config.poll_timeout));
            Box::new(NvmePoller::new(src, PollPolicy::LIVE))
        }
        Transport::Sata => {
            let src = Box::new(SataLive::new(&d.dev_path, config.poll_timeout));
            let policy = SataPolicy {
                wake_standby: config.wake_standby,
                ..SataPolicy::LIVE
            };
            Box::new(SataPoller::new(src, namer.clone(), policy))
        }
    }
}

/// Attribute names: the built-in table, overridden by the host's
/// smartmontools drivedb.h when there is one (a malformed file is reported
/// and the built-in table used).
pub fn load_namer(config: &Config) -> Namer {
    let paths: Vec<&std::path::Path> = config.drivedb.iter().map(|p| p.as_path()).collect();
    let (namer, errors) = Namer::load(&paths);
    for e in errors.iter().take(5) {
        warn!("drivedb: {e}");
    }
    if errors.len() > 5 {
        warn!("drivedb: {} more problems not shown", errors.len() - 5);
    }
    namer
}

/// Running drive loops by kernel name; aborted when dropped.
struct Drives(HashMap<String, (std::path::PathBuf, JoinHandle<()>)>);

impl Drop for Drives {
    fn drop(&mut self) {
        self.0.values().for_each(|(_, h)| h.abort());
    }
}

fn reconcile(
    running: &mut Drives,
    found: Vec<Discovered>,
    config: &Config,
    store: &Arc<Store>,
    gone: &Arc<Notify>,
    namer: &Arc<Namer>,
) {
    let started = Instant::now();
    running.0.retain(|name, (path, handle)| {
        let keep = found.iter().any(|d| &d.name == name && &d.dev_path == path);
        if !keep {
            info!(device = name, "drive gone; removing its series");
            handle.abort();
            store.remove(name);
        }
        keep
    });
    for d in found {
        if running.0.contains_key(&d.name) {
            continue;
        }
        info!(
            device = d.name,
            model = d.model,
            serial = d.serial,
            "drive found"
        );
        let identity = placeholder(d.transport, &d.model, &d.serial, &d.firmware);
        store.insert(DriveSnapshot::new(
            &d.name,
            &d.dev_path.display().to_string(),
            identity,
        ));
        let poller = live_poller(&d, config, namer);
        let h = tokio::spawn(schedule::run(
            d.name.clone(),
            poller,
            schedule_of(config),
            store.clone(),
            gone.clone(),
        ));
        running.0.insert(d.name, (d.dev_path, h));
    }
    tracing::debug!(took = ?started.elapsed(), drives = running.0.len(), "discovery reconciled");
}
