//! Every running probe, by block device: started when discovery finds a
//! drive, stopped when it goes, watched for stuck I/O, and read by the
//! metrics encoder as [`ProbeView`]s (computed under each probe's lock,
//! never touching a device).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::{debug, error, info, warn};

use super::op::{IoCounts, ProbeOp};
use super::reader::ProbeTarget;
use super::runner::{self, OpStats, ProbeConfig, ProbeHandle, SkipIf, SkipReason, WriteConfig};
use super::window::QUANTILES;

/// What the metrics encoder needs of one probe.
#[derive(Debug, Clone)]
pub struct ProbeView {
    /// The drive the probed block device belongs to (`nvme0`, `sda`), or the
    /// block device itself for a `--probe.device` that is no known drive.
    pub drive: String,
    /// The block device probed (`nvme0n1`, `sda`).
    pub block: String,
    pub ops: Vec<OpView>,
    pub skipped: Vec<(SkipReason, u64)>,
    pub busy_ratio: Option<f64>,
    /// The window label, e.g. `10m`.
    pub window: String,
    /// Times this block device's probe ended (a panic, or its device gone
    /// while the drive stayed discovered) and was started again.
    pub restarts: u64,
}

#[derive(Debug, Clone)]
pub struct OpView {
    pub op: ProbeOp,
    /// Non-cumulative counts per bucket bound, ending with `+Inf` (the
    /// encoder accumulates).
    pub buckets: Vec<(f64, u64)>,
    pub sum: f64,
    pub count: u64,
    /// The same latencies in the native histogram's buckets.
    pub native: super::native::NativeView,
    pub ios: IoCounts,
    /// `(quantile label, seconds)` over the window.
    pub quantiles: Vec<(&'static str, f64)>,
    /// Samples in the window behind the quantiles.
    pub window_samples: u64,
}

struct Entry {
    drive: String,
    handle: ProbeHandle,
}

/// The first restart of a probe is at once (the next discovery pass); each
/// further one in a row waits twice as long as the one before, from this
/// up to 32 times it.
pub const RESTART_BACKOFF: Duration = Duration::from_secs(10);

/// A probe that ran this long since its last restart starts its back-off
/// from the beginning again.
const RESTART_CALM: Duration = Duration::from_secs(600);

/// One block device's restarts.
#[derive(Debug, Default)]
struct Restarts {
    total: u64,
    in_a_row: u32,
    last: Option<Instant>,
}

impl Restarts {
    /// Whether a probe that ended may start again at `now`.
    fn due(&mut self, now: Instant) -> bool {
        let Some(last) = self.last else { return true };
        let since = now.saturating_duration_since(last);
        if since >= RESTART_CALM {
            self.in_a_row = 0;
        }
        let wait = match self.in_a_row {
            0 => Duration::ZERO,
            n => RESTART_BACKOFF.saturating_mul(1 << (n - 1).min(5)),
        };
        since >= wait
    }

    fn count(&mut self, now: Instant) {
        self.total += 1;
        self.in_a_row = self.in_a_row.saturating_add(1);
        self.last = Some(now);
    }
}

/// The running probes.
pub struct Fleet {
    config: ProbeConfig,
    dev: PathBuf,
    /// The block device the write probe's directory lives on, with its
    /// configuration: only that device's probe writes.
    write: Option<(String, WriteConfig)>,
    running: Mutex<BTreeMap<String, Entry>>,
    /// Block devices that could not be probed, so each is warned about once
    /// while discovery keeps offering it.
    refused: Mutex<BTreeSet<String>>,
    /// Supervision: restarts by block device, kept while its drive is.
    restarts: Mutex<BTreeMap<String, Restarts>>,
    /// Probes stopped while their thread was stuck (in an open or a read
    /// of a device that hangs): a block device here gets no new probe
    /// until that thread ends, so a drive removed and re-added while its
    /// device hangs does not take another thread each time.
    stopping: Mutex<BTreeMap<String, ProbeHandle>>,
    /// The views [`Fleet::published`] last read, and when.
    published: Mutex<Option<(Instant, Arc<Vec<ProbeView>>)>>,
}

/// How stale the probes' figures a scrape sees may be: scrapes within this
/// of each other share one read of the probes (and one encode of it).
pub const PUBLISH_EVERY: Duration = Duration::from_secs(1);

impl Fleet {
    pub fn new(config: ProbeConfig, dev: PathBuf, write: Option<(String, WriteConfig)>) -> Self {
        Self {
            config,
            dev,
            write,
            running: Mutex::new(BTreeMap::new()),
            refused: Mutex::new(BTreeSet::new()),
            restarts: Mutex::new(BTreeMap::new()),
            stopping: Mutex::new(BTreeMap::new()),
            published: Mutex::new(None),
        }
    }

    /// The probes' figures for a scrape: [`Fleet::views`] read at most once
    /// per [`PUBLISH_EVERY`]; the same `Arc` until the next read.
    pub fn published(&self) -> Arc<Vec<ProbeView>> {
        let now = Instant::now();
        let mut last = self.published.lock().unwrap_or_else(|e| e.into_inner());
        match &*last {
            Some((at, views)) if now.saturating_duration_since(*at) < PUBLISH_EVERY => {
                Arc::clone(views)
            }
            _ => {
                let views = Arc::new(self.views());
                *last = Some((now, Arc::clone(&views)));
                views
            }
        }
    }

    /// What [`Fleet::published`] would return if that needs no new read of
    /// the probes; `None` when one is due (or the lock is busy), so a
    /// caller that must not do that work can hand it to one that may.
    pub fn published_if_fresh(&self) -> Option<Arc<Vec<ProbeView>>> {
        let last = self.published.try_lock().ok()?;
        match &*last {
            Some((at, views)) if at.elapsed() < PUBLISH_EVERY => Some(Arc::clone(views)),
            _ => None,
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn restarts(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Restarts>> {
        self.restarts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts probing `block` for `drive` unless it already runs. Called on
    /// every discovery pass, so a namespace that shows up after its
    /// controller (the kernel scans them asynchronously) is picked up on the
    /// next pass; a device that cannot be probed is warned about once and
    /// tried again on each pass.
    pub fn start(&self, drive: &str, block: &str, skip_if: Option<SkipIf>) {
        {
            let mut stopping = self.stopping.lock().unwrap_or_else(|e| e.into_inner());
            stopping.retain(|_, h| !h.is_finished());
            if stopping.contains_key(block) {
                debug!(
                    device = drive,
                    block, "the stopped probe's thread is still stuck; not starting another"
                );
                return;
            }
        }
        {
            let mut running = self.running();
            match running.get(block) {
                Some(e) if !e.handle.is_finished() => return,
                // Supervision: a probe that ended (a panic; its device
                // vanished and came back; a namespace detached and
                // re-attached) starts again while its drive is discovered,
                // after a back-off when it keeps ending.
                Some(_) => {
                    let now = Instant::now();
                    let mut restarts = self.restarts();
                    let r = restarts.entry(block.to_string()).or_default();
                    if !r.due(now) {
                        return;
                    }
                    r.count(now);
                    let n = r.total;
                    drop(restarts);
                    let ended = running.remove(block).map(|e| e.handle.panic_message());
                    match ended.flatten() {
                        Some(panic) => error!(
                            device = drive,
                            block,
                            restarts = n,
                            "latency probe panicked, restarting it: {panic}"
                        ),
                        None => info!(
                            device = drive,
                            block,
                            restarts = n,
                            "latency probe had ended; starting it again"
                        ),
                    }
                }
                None => {}
            }
        }
        let target = match ProbeTarget::from_sysfs(&self.config.sysfs, &self.dev, block) {
            Ok(t) => t,
            Err(e) => return self.refuse(drive, block, &e),
        };
        let mut config = self.config.clone();
        config.write = self
            .write
            .as_ref()
            .filter(|(disk, _)| disk == block)
            .map(|(_, w)| w.clone());
        match runner::spawn(target, config, skip_if) {
            Ok(handle) => self.started(drive, block, handle, "latency probe started"),
            Err(e) => self.refuse(drive, block, &e),
        }
    }

    fn refuse(&self, drive: &str, block: &str, e: &dyn std::fmt::Display) {
        let first = self
            .refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(block.to_string());
        if first {
            warn!(device = drive, block, "not probing: {e}");
        } else {
            debug!(device = drive, block, "still not probing: {e}");
        }
    }

    fn started(&self, drive: &str, block: &str, handle: ProbeHandle, what: &str) {
        info!(device = drive, block, "{what}");
        self.refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(block);
        let drive = drive.to_string();
        self.running()
            .insert(block.to_string(), Entry { drive, handle });
        self.unpublish();
    }

    /// Starts a simulated probe of `block` for the demo's `drive`: reads at
    /// `rate` per second whose latencies `model` draws (see
    /// [`super::simulated`]).
    pub fn start_simulated(
        &self,
        drive: &str,
        block: &str,
        rate: f64,
        demo_started: Instant,
        model: super::simulated::LatencyModel,
    ) {
        match super::simulated::spawn(block, &self.config, rate, demo_started, model) {
            Ok(handle) => self.started(drive, block, handle, "simulated latency probe started"),
            Err(e) => warn!(device = drive, block, "not probing: {e}"),
        }
    }

    /// Stops every probe of `drive` (without waiting for a stuck thread).
    pub fn stop_drive(&self, drive: &str) {
        // Lock order everywhere: `running`, then `restarts`.
        let mut running = self.running();
        let mut restarts = self.restarts();
        let (gone, kept): (BTreeMap<_, _>, BTreeMap<_, _>) = std::mem::take(&mut *running)
            .into_iter()
            .partition(|(_, e)| e.drive == drive);
        *running = kept;
        drop(running);
        let mut stopping = self.stopping.lock().unwrap_or_else(|e| e.into_inner());
        for (block, e) in gone {
            info!(device = drive, block, "latency probe stopped");
            e.handle.stop();
            // The drive's series go with it; its counts start again.
            restarts.remove(&block);
            if !e.handle.is_finished() {
                stopping.insert(block, e.handle);
            }
        }
        drop((stopping, restarts));
        self.unpublish();
    }

    /// Drops the published views, so the next scrape reads them afresh: a
    /// probe that stopped or started shows at once, not up to
    /// [`PUBLISH_EVERY`] later (a stopped drive's probe would otherwise be
    /// served without its drive, and so without its serial).
    fn unpublish(&self) {
        *self.published.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Counts I/O stuck past its deadline; call periodically.
    pub fn watchdog(&self) {
        let now = Instant::now();
        for e in self.running().values() {
            e.handle.watchdog(now);
        }
    }

    /// The highest `q` quantile of `op` over `drive`'s probes, with the
    /// samples behind it: `(seconds, samples)`.
    pub fn quantile(&self, drive: &str, op: ProbeOp, q: f64) -> Option<(f64, u64)> {
        let now = Instant::now();
        self.running()
            .values()
            .filter(|e| e.drive == drive)
            .filter_map(|e| {
                let s = e.handle.stats.lock().unwrap_or_else(|e| e.into_inner());
                let stats = if op == s.read.op {
                    Some(&s.read)
                } else {
                    s.write.as_ref().filter(|w| w.op == op)
                }?;
                let live = stats.window.at(now.saturating_duration_since(s.started));
                live.quantile(q).map(|v| (v, live.count()))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// The probes' current figures, for one scrape: quantiles as of now,
    /// read without ageing the probes' windows (the probe does that).
    pub fn views(&self) -> Vec<ProbeView> {
        let now = Instant::now();
        let window = label_duration(self.config.window);
        let running = self.running();
        let restarts = self.restarts();
        running
            .iter()
            .map(|(block, e)| {
                let s = e.handle.stats.lock().unwrap_or_else(|e| e.into_inner());
                let t = now.saturating_duration_since(s.started);
                let mut ops = vec![op_view(&s.read, t)];
                ops.extend(s.write.as_ref().map(|w| op_view(w, t)));
                ProbeView {
                    drive: e.drive.clone(),
                    block: block.clone(),
                    ops,
                    skipped: s.skipped.iter().map(|(&k, &v)| (k, v)).collect(),
                    busy_ratio: s.busy_ratio,
                    window: window.clone(),
                    restarts: restarts.get(block).map_or(0, |r| r.total),
                }
            })
            .collect()
    }
}

/// One operation's figures; `t` is now on the probe's clock.
fn op_view(s: &OpStats, t: Duration) -> OpView {
    let live = s.window.at(t);
    let quantiles = live.quantiles(&QUANTILES);
    OpView {
        op: s.op,
        buckets: s.histogram.buckets(),
        sum: s.histogram.sum(),
        count: s.histogram.count(),
        native: s.histogram.native(),
        ios: s.ios,
        quantiles,
        window_samples: live.count(),
    }
}

/// A duration as a Prometheus-style label: `10m`, `90s`, `1h`.
pub fn label_duration(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => format!("{}ms", d.as_millis()),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// The block devices to probe for a drive: an NVMe controller's namespaces
/// (`nvme0c0n1`, a multipath path, is probed as `nvme0n1`), a SATA disk
/// itself.
pub fn blocks_of(namespaces: &[String]) -> Vec<String> {
    let mut out: Vec<String> = namespaces
        .iter()
        .map(|n| match (n.find('c'), n.rfind('n')) {
            (Some(c), Some(last)) if n.starts_with("nvme") && c < last => {
                format!("{}{}", &n[..c], &n[last..])
            }
            _ => n.clone(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
