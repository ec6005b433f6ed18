//! Wiring: discovery (or replay folders) → one poll loop and probe per
//! drive → the snapshot store → the HTTP server; one shutdown signal for all
//! of it.

pub mod drives;
mod host;
mod persist;
mod pool;
pub mod reload;
pub mod schedule;
mod selftest;

pub use host::validate;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use tokio::sync::{Notify, watch};
use tracing::{info, warn};

use crate::ata::attributes::Namer;
use crate::config::Config;
use crate::health::history::History;
use crate::http::{self, DriveRow, Exposition};
use crate::metrics::{self, BuildInfo, Encoding, Format};
use crate::probe::busy::BusyPolicy;
use crate::probe::fleet::{Fleet, ProbeView};
use crate::probe::runner::{ProbeConfig, SkipIf, SkipReason, WriteConfig};
use crate::probe::writer::{self, WriteMode};
use crate::snapshot::Judge;
use crate::snapshot::{DriveSnapshot, Store};

/// What the HTTP server reads: the store, the probes and build info.
#[derive(Default)]
pub struct State {
    pub store: Arc<Store>,
    pub build: BuildInfo,
    /// The latency probes, unless disabled.
    pub probes: Option<Arc<Fleet>>,
    /// Every `/metrics` body, and what is kept to make the next cheaply.
    pub bodies: metrics::Bodies,
}

impl State {
    /// The drives, then the probes' views. The drives are listed before
    /// the probes are read: a drive that goes has its probes stopped before
    /// it leaves the store (`drives`), so a probe is never served without
    /// its drive's serial.
    fn views(&self) -> (Vec<Arc<DriveSnapshot>>, Arc<Vec<ProbeView>>) {
        let drives = self.store.list();
        let probes = self
            .probes
            .as_ref()
            .map(|p| p.published())
            .unwrap_or_default();
        (drives, probes)
    }
}

impl Exposition for State {
    fn metrics(&self, format: Format, encoding: Encoding) -> std::io::Result<Vec<u8>> {
        self.bodies
            .body(self.views(), &self.build, format, encoding)
    }

    fn metrics_cached(&self, format: Format, encoding: Encoding) -> Option<Vec<u8>> {
        let drives = self.store.list();
        let probes = match &self.probes {
            Some(p) => p.published_if_fresh()?,
            None => Arc::default(),
        };
        self.bodies
            .body_cached((drives, probes), &self.build, format, encoding)
    }

    fn drives(&self) -> Vec<DriveRow> {
        let now = SystemTime::now();
        let (drives, probes) = self.views();
        drives
            .iter()
            .map(|d| DriveRow::from_snapshot(d, now).with_latency(&probes))
            .collect()
    }
}

/// Everything the drive loops share.
pub(crate) struct Ctx {
    config: Config,
    store: Arc<Store>,
    namer: Arc<Namer>,
    probes: Option<Arc<Fleet>>,
    /// Notified by a poll loop whose device vanished: rescan at once.
    gone: Arc<Notify>,
    /// Judges each drive after each poll.
    judge: Judge,
    /// Where an NVMe poller finds the persistent event log's mark it had
    /// before a restart: the state file's memory (`None` without one).
    pel_marks: Option<crate::poll::nvme::pel::PelMarks>,
    /// The scheduled self-tests (`selftest.*`; idle without a schedule).
    selftests: Arc<selftest::SelfTests>,
    /// The threads every drive's polls run on.
    pool: Arc<pool::Pool>,
}

impl Ctx {
    /// A snapshot for a newly found drive, with the configured history window.
    fn snapshot(
        &self,
        device: &str,
        origin: &str,
        identity: crate::reading::Identity,
    ) -> DriveSnapshot {
        let mut s = DriveSnapshot::new(device, origin, identity);
        s.history = History::new(self.config.health.increase_window);
        s
    }

    /// Skips a probe while the drive's last CHECK POWER MODE said standby.
    fn standby_check(&self, device: &str) -> SkipIf {
        let (store, device) = (self.store.clone(), device.to_string());
        Arc::new(move || {
            // One drive's snapshot, not the whole store, on every probe.
            let standby = store
                .get(&device)
                .is_some_and(|d| d.power_mode == Some("standby"));
            standby.then_some(SkipReason::Standby)
        })
    }

    /// The block devices named with `--probe.device`, probed as themselves
    /// unless discovery already probes them for a drive.
    fn start_extra_probes(&self) {
        if let Some(p) = &self.probes {
            for dev in &self.config.probe.devices {
                let name = Path::new(dev)
                    .file_name()
                    .map_or(dev.clone(), |n| n.to_string_lossy().into_owned());
                p.start(&name, &name, None);
            }
        }
    }
}

/// What the landing page must say first when its drives are not live ones.
fn banner(config: &Config) -> Option<String> {
    if config.demo {
        return Some(crate::device::demo::NOTICE.to_string());
    }
    let n = config.replay.len();
    (n > 0).then(|| {
        format!(
            "REPLAY: these {n} drives are dump folders (--replay), not live drives; each poll re-reads the files"
        )
    })
}

fn fleet(config: &Config) -> anyhow::Result<Option<Arc<Fleet>>> {
    let p = &config.probe;
    if !p.enabled {
        return Ok(None);
    }
    let probe = ProbeConfig {
        rate: p.rate,
        timeout: p.timeout,
        window: p.window,
        busy: BusyPolicy {
            max_utilisation: p.busy_threshold,
            ..BusyPolicy::default()
        },
        range: None,
        write: None,
        sysfs: config.sysfs.clone(),
    };
    let write = match &p.write {
        None => None,
        Some(w) => {
            let disk = writer::disk_of(&w.path, &config.sysfs)?;
            info!(dir = %w.path.display(), disk, rate = w.rate, "write probe enabled");
            let mode = if w.flush {
                WriteMode::Flush
            } else {
                WriteMode::Direct
            };
            Some((
                disk,
                WriteConfig {
                    dir: w.path.clone(),
                    rate: w.rate,
                    max_bytes: w.max_bytes,
                    mode,
                },
            ))
        }
    };
    Ok(Some(Arc::new(Fleet::new(probe, config.dev.clone(), write))))
}

/// Runs the exporter until SIGINT or SIGTERM; on SIGHUP, `load` reads the
/// configuration again ([`reload`]).
pub async fn run(config: Config, load: reload::Loader) -> anyhow::Result<()> {
    let mut signals = Signals::install().context("install signal handlers")?;
    nofile_limit(&config);
    let mut listeners = Vec::new();
    if config.systemd_socket {
        let l = crate::sys::process::systemd_listener().context("--web.systemd-socket")?;
        let l = tokio::net::TcpListener::from_std(l).context("--web.systemd-socket")?;
        info!(address = %l.local_addr()?, "listening on the socket systemd passed");
        listeners.push(l);
    }
    for addr in config.listen.iter().filter(|_| !config.systemd_socket) {
        let l = bind(*addr)
            .await
            .with_context(|| format!("listen on {addr}"))?;
        info!(address = %l.local_addr()?, "listening");
        listeners.push(l);
    }
    let probes = fleet(&config)?;
    // Off the runtime: this reads (and may create) the state directory.
    let persist = {
        let c = config.clone();
        tokio::task::spawn_blocking(move || persist::open(&c).map(Arc::new)).await?
    };
    let reloads = Arc::new(metrics::ConfigReloads::loaded(SystemTime::now()));
    let mut state = State {
        probes: probes.clone(),
        build: BuildInfo {
            state: persist.as_ref().map(|p| p.counters.clone()),
            detail: config.metrics,
            ..BuildInfo::default()
        },
        ..State::default()
    };
    state.build.config = Some(reloads.clone());
    let workers = Arc::new(metrics::PollWorkers::default());
    state.build.workers = Some(workers.clone());
    let state = Arc::new(state);
    let health = Arc::new(reload::LiveHealth::new(config.health.clone()));
    // Off the runtime: parsing drivedb.h (up to 16 MiB) takes a while.
    let namer = {
        let c = config.clone();
        Arc::new(tokio::task::spawn_blocking(move || c.namer()).await?)
    };
    let saves = persist.as_ref().is_some_and(|p| p.saves());
    if let Some(warning) = selftest::unremembered(&config.selftest, saves) {
        warn!("{warning}");
    }
    let selftests = Arc::new(selftest::SelfTests::new(
        config.selftest.clone(),
        persist.as_ref().map(|p| p.memory()),
        state.store.clone(),
    ));
    let ctx = Arc::new(Ctx {
        config: config.clone(),
        store: state.store.clone(),
        namer,
        probes: probes.clone(),
        gone: Arc::new(Notify::new()),
        judge: {
            let judge = crate::snapshot::judge(health.clone(), probes.clone());
            match &persist {
                Some(p) => p.judge(judge),
                None => judge,
            }
        },
        pel_marks: persist.as_ref().map(|p| p.pel_marks()),
        selftests: selftests.clone(),
        pool: Arc::new(pool::Pool::new(pool::CORE, workers)),
    });
    let saver = persist
        .clone()
        .map(|p| tokio::spawn(p.save_loop(config.poll_interval)));
    let drives = if config.demo {
        warn!("{}", crate::device::demo::NOTICE);
        drives::start_demo(&ctx)
    } else if config.replay.is_empty() {
        tokio::spawn(drives::discover(ctx.clone()))
    } else {
        let c = ctx.clone();
        // Off the runtime: a probe start reads the device's sysfs files.
        tokio::task::spawn_blocking(move || c.start_extra_probes());
        drives::start_replays(&ctx)?
    };
    // Only with probes: an idle exporter should not wake for nothing (each
    // wake-up is a context switch, and costly under emulation).
    let watchdog = probes.map(|p| {
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                p.watchdog();
            }
        })
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut servers = Vec::new();
    let server_config = http::ServerConfig {
        telemetry_path: config.telemetry_path.clone(),
        version: state.build.version.clone(),
        banner: banner(&config),
        max_connections: config.max_connections,
        max_requests: config.max_requests,
        ..http::ServerConfig::default()
    };
    // Off the runtime: this reads the certificate, key and client CA files.
    let web = config.web.clone();
    let server_config = tokio::task::spawn_blocking(move || server_config.with_web(&web))
        .await?
        .context("start TLS")?;
    info!("{}", config.web.summary());
    for l in listeners {
        let cfg = server_config.clone();
        let mut rx = stop_rx.clone();
        let shutdown = async move {
            let _ = rx.wait_for(|&stop| stop).await;
        };
        servers.push(tokio::spawn(http::serve(l, state.clone(), cfg, shutdown)));
    }
    let reloader = reload::Reloader {
        load,
        started: config.clone(),
        health,
        selftests: selftests.clone(),
        status: reloads,
    };
    while let Signal::Reload = signals.next().await {
        tokio::select! {
            _ = reloader.reload() => {}
            _ = signals.stop() => break,
        }
    }
    info!("shutting down");
    let _ = stop_tx.send(true);
    selftests.shutdown(config.poll_timeout).await;
    drives.abort();
    if let Some(w) = watchdog {
        w.abort();
    }
    if let Some(saver) = saver {
        saver.abort();
    }
    if let Some(p) = persist {
        p.final_save().await;
    }
    for s in servers {
        s.await??;
    }
    Ok(())
}

/// Raises the soft open-file limit to the hard one, and warns if even that
/// is below what the connection cap may need.
fn nofile_limit(config: &Config) {
    match crate::sys::process::raise_nofile_limit() {
        Ok((soft, hard)) => {
            // Drives, probes, the log and a margin besides the connections.
            let want = (config.max_connections * config.listen.len().max(1)) as u64 + 128;
            if soft < want {
                warn!(
                    soft,
                    hard,
                    want,
                    "open-file limit is below what web.max_connections may need; raise LimitNOFILE="
                );
            }
        }
        Err(e) => warn!(error = %e, "could not raise the open-file limit"),
    }
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

/// SIGTERM, SIGINT and SIGHUP handlers, installed before anything is
/// served so a signal that arrives early still shuts down cleanly (or is
/// taken as a reload, not as the default "terminate").
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

/// What a signal asks for.
enum Signal {
    Stop,
    Reload,
}

impl Signals {
    fn install() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    async fn next(&mut self) -> Signal {
        tokio::select! {
            _ = self.term.recv() => Signal::Stop,
            _ = self.int.recv() => Signal::Stop,
            _ = self.hup.recv() => Signal::Reload,
        }
    }

    async fn stop(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}
