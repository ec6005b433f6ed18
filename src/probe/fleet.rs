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
    let quantiles = QUANTILES
        .iter()
        .filter_map(|&(q, label)| live.quantile(q).map(|v| (label, v)))
        .collect();
    OpView {
        op: s.op,
        buckets: s.histogram.buckets(),
        sum: s.histogram.sum(),
        count: s.histogram.count(),
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
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_namespace_that_appears_later_is_probed_on_a_later_pass() {
        // The hot-plug race: discovery sees the controller before the kernel
        // has created its namespace's block device.
        let dir = tempfile::tempdir().unwrap();
        let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
        std::fs::create_dir_all(&dev).unwrap();
        let config = ProbeConfig {
            sysfs: sys.clone(),
            rate: 1.0,
            ..ProbeConfig::default()
        };
        let fleet = Fleet::new(config, dev.clone(), None);
        fleet.start("nvme9", "nvme9n1", None);
        assert!(
            fleet.views().is_empty(),
            "probing a block device that does not exist"
        );
        assert!(fleet.refused.lock().unwrap().contains("nvme9n1"));
        // A second pass with it still missing: still refused, nothing started.
        fleet.start("nvme9", "nvme9n1", None);
        assert!(fleet.views().is_empty());
        // The namespace appears.
        super::super::fake_block_device(&sys, &dev, "nvme9n1");
        fleet.start("nvme9", "nvme9n1", None);
        let views = fleet.views();
        assert_eq!(views.len(), 1);
        assert_eq!(
            (views[0].drive.as_str(), views[0].block.as_str()),
            ("nvme9", "nvme9n1")
        );
        assert!(fleet.refused.lock().unwrap().is_empty());
        // A further pass leaves the running probe alone.
        fleet.start("nvme9", "nvme9n1", None);
        assert_eq!(fleet.views().len(), 1);
        fleet.stop_drive("nvme9");
        assert!(fleet.views().is_empty());
    }

    #[test]
    fn scrapes_within_a_second_share_one_read_of_the_probes() {
        let dir = tempfile::tempdir().unwrap();
        let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
        std::fs::create_dir_all(&dev).unwrap();
        super::super::fake_block_device(&sys, &dev, "nvme8n1");
        let config = ProbeConfig {
            sysfs: sys.clone(),
            rate: 1.0,
            ..ProbeConfig::default()
        };
        let fleet = Fleet::new(config, dev.clone(), None);
        fleet.start("nvme8", "nvme8n1", None);
        let read = Instant::now();
        let first = fleet.published();
        assert_eq!(first.len(), 1);
        // Within PUBLISH_EVERY: the same read (not asserted if this machine
        // stalled for that long).
        let again = fleet.published();
        if read.elapsed() < PUBLISH_EVERY {
            assert!(Arc::ptr_eq(&first, &again));
        }
        std::thread::sleep(PUBLISH_EVERY);
        let later = fleet.published();
        assert!(!Arc::ptr_eq(&first, &later));
        assert_eq!(later.len(), 1);
        // A drive that goes takes its probe out of the next scrape at once
        // (served without its drive it would have no serial).
        fleet.stop_drive("nvme8");
        assert!(fleet.published().is_empty());
        // And a probe that starts is in the next scrape at once (once the
        // stopped one's thread has ended: until then no new one starts).
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            fleet.start("nvme8", "nvme8n1", None);
            if !fleet.running().is_empty() {
                break;
            }
            assert!(Instant::now() < deadline, "the stopped probe never ended");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(fleet.published().len(), 1);
        fleet.stop_drive("nvme8");
    }

    #[test]
    fn a_probe_that_ended_is_started_again_while_its_drive_is_discovered() {
        let dir = tempfile::tempdir().unwrap();
        let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
        super::super::fake_block_device(&sys, &dev, "nvme8n1");
        let config = ProbeConfig {
            sysfs: sys.clone(),
            rate: 200.0,
            ..ProbeConfig::default()
        };
        let fleet = Fleet::new(config, dev.clone(), None);
        // The device node goes away right after discovery saw it: the probe
        // thread finds it gone and ends.
        std::fs::remove_file(dev.join("nvme8n1")).unwrap();
        fleet.start("nvme8", "nvme8n1", None);
        let ended = || {
            fleet
                .running()
                .get("nvme8n1")
                .is_some_and(|e| e.handle.is_finished())
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !ended() {
            assert!(
                std::time::Instant::now() < deadline,
                "the probe never ended"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        // It comes back; the next discovery pass starts the probe again.
        std::fs::write(dev.join("nvme8n1"), vec![1u8; 1 << 20]).unwrap();
        fleet.start("nvme8", "nvme8n1", None);
        assert!(!ended());
        assert_eq!(fleet.views().len(), 1);
        fleet.stop_drive("nvme8");
    }

    /// Waits (bounded) until `block`'s probe thread has ended.
    fn wait_ended(fleet: &Fleet, block: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !fleet
            .running()
            .get(block)
            .is_some_and(|e| e.handle.is_finished())
        {
            assert!(Instant::now() < deadline, "the probe never ended");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_probe_that_panics_is_restarted_counted_and_backs_off_when_it_keeps_panicking() {
        let dir = tempfile::tempdir().unwrap();
        let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
        super::super::fake_block_device(&sys, &dev, "nvme7n1");
        let config = ProbeConfig {
            sysfs: sys.clone(),
            rate: 500.0,
            ..ProbeConfig::default()
        };
        let fleet = Fleet::new(config, dev.clone(), None);
        // The hook runs on the probe's thread before each read: a test-only
        // way into that thread.
        let panics: SkipIf = Arc::new(|| panic!("injected probe panic"));
        let restarts = |f: &Fleet| f.views().first().map(|v| v.restarts);

        fleet.start("nvme7", "nvme7n1", Some(panics.clone()));
        wait_ended(&fleet, "nvme7n1");
        assert_eq!(restarts(&fleet), Some(0));
        // The first end in a row: started again on the next pass.
        fleet.start("nvme7", "nvme7n1", Some(panics.clone()));
        assert_eq!(restarts(&fleet), Some(1));
        wait_ended(&fleet, "nvme7n1");
        // The second in a row waits for the back-off: not on this pass.
        fleet.start("nvme7", "nvme7n1", Some(panics.clone()));
        assert_eq!(restarts(&fleet), Some(1));
        assert!(fleet.running()["nvme7n1"].handle.is_finished());
        // Once the back-off has passed (moved back in time here), it is.
        {
            let mut r = fleet.restarts();
            let last = r.get_mut("nvme7n1").unwrap();
            last.last = last.last.unwrap().checked_sub(RESTART_BACKOFF);
            assert!(last.last.is_some(), "machine up for less than 10 s");
        }
        fleet.start("nvme7", "nvme7n1", None);
        assert_eq!(restarts(&fleet), Some(2));
        assert!(!fleet.running()["nvme7n1"].handle.is_finished());

        // Served per drive, beside the poll loop's count.
        use crate::metrics::{BuildInfo, TextFormat, encode};
        use crate::snapshot::DriveSnapshot;
        let identity = crate::poll::factory::placeholder(
            crate::device::discovery::Transport::Nvme,
            "model",
            "serial",
            "fw",
        );
        let mut drive = DriveSnapshot::new("nvme7", "/dev/nvme7", identity);
        drive.polls = 1;
        let text = encode(
            vec![Arc::new(drive)],
            fleet.views(),
            &BuildInfo::default(),
            TextFormat::Prometheus,
        );
        let line = |task: &str| {
            text.lines()
                .find(|l| {
                    l.starts_with("ssd_exporter_task_restarts_total{")
                        && l.contains(&format!("task=\"{task}\""))
                })
                .map(|l| l.rsplit(' ').next().unwrap().to_string())
        };
        assert_eq!(line("probe").as_deref(), Some("2"), "{text}");
        assert_eq!(line("poll").as_deref(), Some("0"), "{text}");

        // A drive that goes away takes its count with it.
        fleet.stop_drive("nvme7");
        assert!(fleet.restarts().is_empty());
    }

    /// Threads of this process whose name is `name`.
    fn threads_named(name: &str) -> usize {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .flatten()
            .filter(|t| {
                std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim_end() == name)
            })
            .count()
    }

    fn wait_threads(name: &str, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while threads_named(name) != n {
            assert!(
                Instant::now() < deadline,
                "{} threads named {name:?}, waited for {n}",
                threads_named(name)
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_drive_re_added_while_its_probe_hangs_in_open_gets_no_second_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (sys, dev) = (dir.path().join("sys"), dir.path().join("dev"));
        super::super::fake_block_device(&sys, &dev, "nvme6n1");
        // A FIFO with no writer: opening it for reading blocks, as an open
        // of a sick disk can.
        let fifo = dev.join("nvme6n1");
        std::fs::remove_file(&fifo).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let config = ProbeConfig {
            sysfs: sys.clone(),
            rate: 100.0,
            ..ProbeConfig::default()
        };
        let fleet = Fleet::new(config, dev.clone(), None);
        fleet.start("nvme6", "nvme6n1", None);
        wait_threads("probe nvme6n1", 1);
        for _ in 0..3 {
            fleet.stop_drive("nvme6");
            fleet.start("nvme6", "nvme6n1", None);
        }
        assert_eq!(threads_named("probe nvme6n1"), 1);
        assert!(fleet.views().is_empty(), "a second probe was started");
        // The open returns (a writer appears); the stopped thread ends, and
        // the next pass starts the probe again.
        let _writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        wait_threads("probe nvme6n1", 0);
        fleet.start("nvme6", "nvme6n1", None);
        assert_eq!(fleet.views().len(), 1);
        fleet.stop_drive("nvme6");
    }

    #[test]
    fn histogram_ends_with_one_inf_bucket_and_skips_start_at_zero() {
        use crate::metrics::{BuildInfo, TextFormat, encode};
        let mut stats = OpStats::new(ProbeOp::Read, Duration::from_secs(600));
        stats.histogram.record(50e-6);
        stats.histogram.record(20.0); // above the last bound (10 s)
        let view = ProbeView {
            drive: "nvme0".into(),
            block: "nvme0n1".into(),
            ops: vec![op_view(&stats, Duration::ZERO)],
            skipped: vec![],
            busy_ratio: None,
            window: "10m".into(),
            restarts: 0,
        };
        for format in [TextFormat::OpenMetrics, TextFormat::Prometheus] {
            let text = encode(vec![], vec![view.clone()], &BuildInfo::default(), format);
            let inf: Vec<_> = text
                .lines()
                .filter(|l| l.starts_with("ssd_probe_latency_seconds_bucket") && l.contains("+Inf"))
                .collect();
            assert_eq!(inf.len(), 1, "{format:?}: {text}");
            assert!(inf[0].ends_with(" 2"), "{format:?}: {}", inf[0]);
            let ten = text
                .lines()
                .find(|l| {
                    l.starts_with("ssd_probe_latency_seconds_bucket") && l.contains("le=\"10")
                })
                .unwrap();
            assert!(ten.ends_with(" 1"), "{format:?}: {ten}");
            // no skips yet: every reason is served, at 0
            let skips = text
                .lines()
                .filter(|l| l.starts_with("ssd_probe_skipped_total{") && l.ends_with(" 0"))
                .count();
            assert_eq!(skips, 4, "{format:?}: {text}");
        }
    }

    #[test]
    fn a_probe_is_served_only_once_its_drive_is_with_the_drive_serial() {
        use crate::metrics::{BuildInfo, TextFormat, encode};
        use crate::snapshot::DriveSnapshot;
        let view = ProbeView {
            drive: "nvme1".into(),
            block: "nvme1n1".into(),
            ops: vec![op_view(
                &OpStats::new(ProbeOp::Read, Duration::from_secs(600)),
                Duration::ZERO,
            )],
            skipped: vec![],
            busy_ratio: None,
            window: "10m".into(),
            restarts: 0,
        };
        let identity = crate::poll::factory::placeholder(
            crate::device::discovery::Transport::Nvme,
            "model",
            "SERIAL1",
            "fw",
        );
        // Hot-plugged: found and probing, not polled yet.
        let mut drive = DriveSnapshot::new("nvme1", "/dev/nvme1", identity);
        let probe_lines = |d: &DriveSnapshot| -> Vec<String> {
            encode(
                vec![Arc::new(d.clone())],
                vec![view.clone()],
                &BuildInfo::default(),
                TextFormat::Prometheus,
            )
            .lines()
            .filter(|l| l.starts_with("ssd_probe_") && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
        };
        assert_eq!(probe_lines(&drive), Vec::<String>::new());
        drive.polls = 1;
        let lines = probe_lines(&drive);
        assert!(!lines.is_empty());
        assert!(
            lines.iter().all(|l| l.contains("serial=\"SERIAL1\"")),
            "{lines:#?}"
        );
        // A --probe.device that is no drive is served as itself.
        let extra = ProbeView {
            drive: "sdz".into(),
            block: "sdz".into(),
            ..view.clone()
        };
        let text = encode(
            vec![],
            vec![extra],
            &BuildInfo::default(),
            TextFormat::Prometheus,
        );
        assert!(
            text.contains(
                "ssd_probe_latency_seconds_bucket{device=\"sdz\",serial=\"\",block=\"sdz\""
            ),
            "{text}"
        );
    }

    #[test]
    fn window_labels() {
        assert_eq!(label_duration(Duration::from_secs(600)), "10m");
        assert_eq!(label_duration(Duration::from_secs(3600)), "1h");
        assert_eq!(label_duration(Duration::from_secs(90)), "90s");
        assert_eq!(label_duration(Duration::from_millis(500)), "500ms");
    }

    #[test]
    fn multipath_namespace_paths_map_to_the_block_device() {
        let ns = ["nvme0c0n1", "nvme0n1", "nvme0n2", "sda"].map(String::from);
        assert_eq!(blocks_of(&ns), ["nvme0n1", "nvme0n2", "sda"]);
    }
}
