//! One probe thread per drive: sleep a Poisson gap, check that the drive is
//! neither busy nor asleep, issue one timed I/O, fold it into the stats.
//!
//! Each drive gets its own OS thread (not a tokio task): a read stuck in the
//! kernel stalls only that thread. Nothing waits for it: [`ProbeHandle::stop`]
//! only raises a flag, and a stuck I/O shows up through the in-flight stamp,
//! which [`ProbeHandle::watchdog`] (called by whoever publishes the stats)
//! turns into one `timeout` count.
//!
//! Counting: `ios{op,result}` with `result` = `ok`, `error` or `timeout` (an
//! I/O that took longer than [`ProbeConfig::timeout`], counted once, when it
//! completes or when the watchdog sees it stuck, whichever is first); every
//! completed I/O's latency is recorded, slow ones included. `skipped{reason}`:
//! `busy` (the busy policy said no), what the `skip_if` hook returned (the
//! app's `standby`), `permission` (the device cannot be opened: EPERM/EACCES,
//! logged once, retried at every tick) and `error` (`/sys/block/<dev>/stat`
//! unreadable, or the device could not be reopened). A device that vanishes
//! (ENODEV, ENXIO, ENOENT) ends its thread cleanly; every other I/O error is
//! counted and logged once per distinct error.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tracing::{info, warn};

use super::busy::{BusyPolicy, BusyTracker, Decision, DiskStat};
use super::histogram::LatencyHistogram;
use super::op::{IoCounts, IoResult, ProbeOp};
use super::reader::{ProbeError, ProbeTarget, Reader, is_permission};
use super::schedule::{Arrivals, Poisson};
use super::window::SlidingWindow;
use super::writer::{DEFAULT_MAX_BYTES, DEFAULT_WRITE_RATE, WriteMode, WriteProbe};

/// Default reads per second per drive.
pub const DEFAULT_RATE: f64 = 5.0;
/// Default time after which a probe I/O counts as a timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default length of the sliding quantile window.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(600);

/// Slices of the sliding window (its time resolution is window / slices).
pub const WINDOW_SLICES: u32 = 10;

/// Asked before each probe; `Some(reason)` skips it (the app returns
/// `Some("standby")` for a SATA drive that is spun down / in standby).
pub type SkipIf = Arc<dyn Fn() -> Option<SkipReason> + Send + Sync>;

/// Why a probe was not issued: the `reason` label of `ssd_probe_skipped_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// The drive was busy with a queue (see `busy`).
    Busy,
    /// The drive's stat file or device could not be read.
    Error,
    /// The device could not be opened for lack of permission.
    Permission,
    /// A SATA drive in standby, which a probe would wake.
    Standby,
}

impl SkipReason {
    pub const ALL: [SkipReason; 4] = [
        SkipReason::Busy,
        SkipReason::Error,
        SkipReason::Permission,
        SkipReason::Standby,
    ];

    pub fn as_label(self) -> &'static str {
        match self {
            SkipReason::Busy => "busy",
            SkipReason::Error => "error",
            SkipReason::Permission => "permission",
            SkipReason::Standby => "standby",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// Reads per second (mean of the Poisson process).
    pub rate: f64,
    /// An I/O slower than this counts as `timeout`.
    pub timeout: Duration,
    /// Length of the sliding quantile window.
    pub window: Duration,
    pub busy: BusyPolicy,
    /// Overrides the target's byte range.
    pub range: Option<(u64, u64)>,
    /// The opt-in write probe.
    pub write: Option<WriteConfig>,
    /// sysfs root (`/sys`; a fake tree in tests).
    pub sysfs: PathBuf,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            rate: DEFAULT_RATE,
            timeout: DEFAULT_TIMEOUT,
            window: DEFAULT_WINDOW,
            busy: BusyPolicy::default(),
            range: None,
            write: None,
            sysfs: "/sys".into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct WriteConfig {
    /// A directory on a filesystem on the probed drive (see [`super::writer`]).
    pub dir: PathBuf,
    /// Writes per second, on a Poisson schedule of its own.
    pub rate: f64,
    pub max_bytes: u64,
    pub mode: WriteMode,
}

impl WriteConfig {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            rate: DEFAULT_WRITE_RATE,
            max_bytes: DEFAULT_MAX_BYTES,
            mode: WriteMode::default(),
        }
    }
}

/// One operation's results.
pub struct OpStats {
    pub op: ProbeOp,
    pub histogram: LatencyHistogram,
    pub window: SlidingWindow,
    pub ios: IoCounts,
}

impl OpStats {
    pub(super) fn new(op: ProbeOp, window: Duration) -> Self {
        Self {
            op,
            histogram: LatencyHistogram::default(),
            window: SlidingWindow::new(window, WINDOW_SLICES),
            ios: IoCounts::default(),
        }
    }

    pub fn count(&self, result: IoResult) -> u64 {
        self.ios.get(result)
    }
}

/// What one drive's probe has seen, shared with the publisher.
pub struct ProbeStats {
    pub device: String,
    pub read: OpStats,
    pub write: Option<OpStats>,
    pub skipped: BTreeMap<SkipReason, u64>,
    /// The probe's own share of the drive's busy time.
    pub busy_ratio: Option<f64>,
    /// The sliding window's length (the `window` label).
    pub window: Duration,
    pub last_error: Option<String>,
    /// The origin of the windows' clock.
    pub started: Instant,
}

impl ProbeStats {
    /// Empty stats of `device`'s probe: reads, and writes as `write_op`
    /// when the write probe runs.
    pub(super) fn new(
        device: &str,
        window: Duration,
        write_op: Option<ProbeOp>,
        started: Instant,
    ) -> Self {
        Self {
            device: device.to_string(),
            read: OpStats::new(ProbeOp::Read, window),
            write: write_op.map(|op| OpStats::new(op, window)),
            skipped: BTreeMap::new(),
            busy_ratio: None,
            window,
            last_error: None,
            started,
        }
    }

    /// Ages the sliding windows to `now` (the probe's own tick; readers
    /// take [`SlidingWindow::at`] instead, which changes nothing).
    pub fn advance(&mut self, now: Instant) {
        let t = now.saturating_duration_since(self.started);
        self.read.window.advance(t);
        if let Some(w) = &mut self.write {
            w.window.advance(t);
        }
    }

    pub fn skipped(&self, reason: SkipReason) -> u64 {
        self.skipped.get(&reason).copied().unwrap_or(0)
    }

    fn op(&mut self, write: bool) -> &mut OpStats {
        match (write, &mut self.write) {
            (true, Some(w)) => w,
            _ => &mut self.read,
        }
    }
}

/// The I/O in flight: 0 when none, else 1 + nanoseconds since
/// `ProbeStats::started` when it was issued, with [`WRITE`] set for a write
/// and [`COUNTED`] once the watchdog has counted it as a timeout. One word,
/// so the watchdog and the completing thread agree on who counts it.
struct InFlight(AtomicU64);

/// How many probes share one open descriptor of the drive's stat file.
const STAT_REOPEN: u32 = 64;
const COUNTED: u64 = 1 << 63;
const WRITE: u64 = 1 << 62;
const NANOS: u64 = WRITE - 1;

fn lock(stats: &Mutex<ProbeStats>) -> MutexGuard<'_, ProbeStats> {
    stats.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running probe.
pub struct ProbeHandle {
    pub stats: Arc<Mutex<ProbeStats>>,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
    in_flight: Arc<InFlight>,
    timeout: Duration,
}

impl ProbeHandle {
    /// Asks the thread to end at its next wake-up; returns at once, even if
    /// the thread is stuck in an I/O (it then ends when the I/O returns).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.thread().unpark();
    }

    /// Whether the thread has ended (stopped, or its device vanished).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// How the thread of a finished probe ended: `Some(message)` if it
    /// panicked. Call only once [`ProbeHandle::is_finished`] is true (it
    /// then does not wait).
    pub fn panic_message(self) -> Option<String> {
        let payload = self.thread.join().err()?;
        Some(
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string()),
        )
    }

    /// Stops the thread and waits up to `wait` for it; false if it is stuck.
    pub fn stop_and_join(self, wait: Duration) -> bool {
        self.stop();
        let deadline = Instant::now() + wait;
        while !self.thread.is_finished() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.thread.join().is_ok()
    }

    /// Counts an I/O in flight for longer than the timeout as one `timeout`
    /// (once per I/O). Returns whether it counted one.
    pub fn watchdog(&self, now: Instant) -> bool {
        let v = self.in_flight.0.load(Ordering::Acquire);
        if v == 0 || v & COUNTED != 0 {
            return false;
        }
        let mut stats = lock(&self.stats);
        let issued = stats.started + Duration::from_nanos((v & NANOS) - 1);
        if now.saturating_duration_since(issued) <= self.timeout
            || self
                .in_flight
                .0
                .compare_exchange(v, v | COUNTED, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
        {
            return false;
        }
        let msg = format!(
            "{}: probe I/O stuck for more than {:?}",
            stats.device, self.timeout
        );
        warn!("{msg}");
        stats.last_error = Some(msg);
        stats.op(v & WRITE != 0).ios.add(IoResult::Timeout);
        true
    }
}

impl ProbeHandle {
    /// A probe whose thread records latencies it is given rather than
    /// measures (the demo's simulated drives): nothing is ever in flight.
    pub(super) fn simulated(
        stats: Arc<Mutex<ProbeStats>>,
        stop: Arc<AtomicBool>,
        thread: JoinHandle<()>,
    ) -> Self {
        Self {
            stats,
            stop,
            thread,
            in_flight: Arc::new(InFlight(AtomicU64::new(0))),
            timeout: Duration::MAX,
        }
    }
}

/// Starts probing `target` on a thread of its own. Nothing here touches
/// the device: the thread opens it (an open can block on a sick disk, and
/// must not block the caller, which runs on the async runtime), counting
/// `permission` or `error` skips and retrying while it cannot, and ending
/// when the device is gone. The opt-in write probe's file is created there
/// too; if that fails, it is logged and the read probe goes on without it.
/// A bad rate is an error.
pub fn spawn(
    mut target: ProbeTarget,
    config: ProbeConfig,
    skip_if: Option<SkipIf>,
) -> Result<ProbeHandle, ProbeError> {
    let bad = |reason: String| ProbeError::Config {
        device: target.device.clone(),
        reason,
    };
    if !(config.rate.is_finite() && config.rate > 0.0) {
        return Err(bad(format!("probe rate {} must be above 0", config.rate)));
    }
    if let Some(w) = &config.write
        && !(w.rate.is_finite() && w.rate > 0.0)
    {
        return Err(bad(format!("write probe rate {} must be above 0", w.rate)));
    }
    if config.range.is_some() {
        target.range = config.range;
    }
    let logged = HashSet::new();
    let started = Instant::now();
    let write_op = config.write.as_ref().map(|w| w.mode.op());
    let stats = Arc::new(Mutex::new(ProbeStats::new(
        &target.device,
        config.window,
        write_op,
        started,
    )));
    let stop = Arc::new(AtomicBool::new(false));
    let in_flight = Arc::new(InFlight(AtomicU64::new(0)));
    let worker = Worker {
        stat_path: config.sysfs.join("block").join(&target.device).join("stat"),
        stat_file: None,
        stat_reads: 0,
        stat_buf: vec![0; 512],
        read_schedule: Poisson::new(config.rate),
        tracker: BusyTracker::new(config.busy),
        timeout: config.timeout,
        target,
        reader: None,
        writer: None,
        write_config: config.write.clone(),
        sysfs: config.sysfs.clone(),
        skip_if,
        stats: stats.clone(),
        stop: stop.clone(),
        in_flight: in_flight.clone(),
        started,
        logged,
    };
    let device = worker.target.device.clone();
    let thread = std::thread::Builder::new()
        .name(format!("probe {device}"))
        .spawn(move || worker.run())
        .map_err(|source| ProbeError::Spawn { device, source })?;
    Ok(ProbeHandle {
        stats,
        stop,
        thread,
        in_flight,
        timeout: config.timeout,
    })
}

/// The probe thread's own state.
struct Worker {
    target: ProbeTarget,
    reader: Option<Reader>,
    writer: Option<(WriteProbe, WriteMode, Poisson)>,
    /// The write probe to set up when the thread starts, if any.
    write_config: Option<WriteConfig>,
    sysfs: PathBuf,
    read_schedule: Poisson,
    tracker: BusyTracker,
    skip_if: Option<SkipIf>,
    stat_path: PathBuf,
    /// `stat_path` kept open: sysfs regenerates an attribute on every read
    /// at offset 0, so one pread per probe replaces open + read + close.
    /// Reopened every [`STAT_REOPEN`] reads, so a stat file that vanished
    /// without an error on the open descriptor (outside sysfs) is noticed.
    stat_file: Option<std::fs::File>,
    stat_reads: u32,
    stat_buf: Vec<u8>,
    timeout: Duration,
    stats: Arc<Mutex<ProbeStats>>,
    stop: Arc<AtomicBool>,
    in_flight: Arc<InFlight>,
    started: Instant,
    /// Errors already logged (each distinct one is logged once).
    logged: HashSet<String>,
}

/// Whether the thread goes on after a tick.
enum Flow {
    Continue,
    End,
}

fn gone(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENODEV | libc::ENXIO | libc::ENOENT)
    )
}

/// Stamps the I/O about to be issued (see [`InFlight`]).
fn issue(in_flight: &InFlight, started: Instant, write: bool, now: Instant) {
    let nanos = (now - started).as_nanos().min(u128::from(NANOS - 1)) as u64 + 1;
    let tag = if write { WRITE } else { 0 };
    in_flight.0.store(nanos | tag, Ordering::Release);
}

impl Worker {
    /// Opens the device and creates the write probe's file, on this thread.
    fn open(&mut self) {
        match Reader::open(&self.target) {
            Ok(r) => self.reader = Some(r),
            Err(e) if e.is_permission() => {
                let msg = format!("{e}; counting skipped probes until it can be opened");
                self.note("open:permission".to_string(), msg);
            }
            // Retried before each probe, and logged once, by `tick`.
            Err(_) => {}
        }
        if let Some(w) = self.write_config.take() {
            match WriteProbe::create(&w.dir, &self.target.device, &self.sysfs, w.max_bytes) {
                Ok(probe) => self.writer = Some((probe, w.mode, Poisson::new(w.rate))),
                Err(e) => warn!(
                    device = %self.target.device,
                    "write probe not started, reads go on: {e}"
                ),
            }
        }
    }

    fn run(mut self) {
        self.open();
        let mut read = Arrivals::starting(self.read_schedule.next_gap());
        let mut write = self
            .writer
            .as_mut()
            .map(|w| Arrivals::starting(w.2.next_gap()));
        loop {
            let is_write = write.is_some_and(|w| w.due() < read.due());
            let due = match write {
                Some(w) if is_write => w.due(),
                _ => read.due(),
            };
            if !self.sleep_until(due) {
                return;
            }
            if let Flow::End = self.tick(is_write) {
                return;
            }
            let now = self.started.elapsed();
            if is_write {
                if let (Some(w), Some(a)) = (self.writer.as_mut(), write.as_mut()) {
                    a.advance(now, w.2.next_gap());
                }
            } else {
                read.advance(now, self.read_schedule.next_gap());
            }
        }
    }

    /// Sleeps until `due` after the start; false if asked to stop. A due
    /// time beyond what an `Instant` can hold (a vanishingly small rate)
    /// is simply never reached.
    fn sleep_until(&self, due: Duration) -> bool {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return false;
            }
            let elapsed = self.started.elapsed();
            if elapsed >= due {
                return true;
            }
            std::thread::park_timeout((due - elapsed).min(Duration::from_secs(3600)));
        }
    }

    fn skip(&self, reason: SkipReason) -> Flow {
        *lock(&self.stats).skipped.entry(reason).or_default() += 1;
        Flow::Continue
    }

    /// Logs `msg` once per `key`, and keeps it as the last error.
    fn note(&mut self, key: String, msg: String) {
        if self.logged.insert(key) {
            warn!("{msg}");
        }
        lock(&self.stats).last_error = Some(msg);
    }

    /// Reads `/sys/block/<dev>/stat` into `stat_buf`; the byte count.
    fn read_stat(&mut self) -> io::Result<usize> {
        use std::os::unix::fs::FileExt;
        self.stat_reads = self.stat_reads.wrapping_add(1);
        if self.stat_reads % STAT_REOPEN == 0 {
            self.stat_file = None;
        }
        if self.stat_file.is_none() {
            self.stat_file = Some(std::fs::File::open(&self.stat_path)?);
        }
        let file = self.stat_file.as_ref().expect("just opened");
        match file.read_at(&mut self.stat_buf, 0) {
            Ok(n) => Ok(n),
            Err(e) => {
                self.stat_file = None;
                Err(e)
            }
        }
    }

    fn tick(&mut self, write: bool) -> Flow {
        let now = Instant::now();
        lock(&self.stats).advance(now);
        let stat = match self.read_stat() {
            Ok(n) => std::str::from_utf8(&self.stat_buf[..n])
                .ok()
                .and_then(DiskStat::parse),
            // A removed device's open sysfs file reads as ENODEV.
            Err(e)
                if e.kind() == io::ErrorKind::NotFound
                    || e.raw_os_error() == Some(libc::ENODEV) =>
            {
                info!(device = %self.target.device, "device is gone; its probe ends");
                lock(&self.stats).last_error = Some(format!(
                    "{}: device vanished; probe stopped",
                    self.target.path.display()
                ));
                return Flow::End;
            }
            Err(e) => {
                let msg = format!("read {}: {e}", self.stat_path.display());
                self.note(format!("stat:{:?}", e.kind()), msg);
                None
            }
        };
        let Some(stat) = stat else {
            return self.skip(SkipReason::Error);
        };
        if let Decision::SkipBusy { .. } = self.tracker.decide(now - self.started, stat) {
            return self.skip(SkipReason::Busy);
        }
        if let Some(reason) = self.skip_if.as_ref().and_then(|f| f()) {
            return self.skip(reason);
        }
        if write {
            return self.write_once();
        }
        if self.reader.is_none() {
            match Reader::open(&self.target) {
                Ok(r) => {
                    info!(device = %self.target.device, "probe opened {}", self.target.path.display());
                    self.reader = Some(r);
                }
                Err(e) => {
                    let reason = if e.is_permission() {
                        SkipReason::Permission
                    } else {
                        SkipReason::Error
                    };
                    let vanished = matches!(&e, ProbeError::Open { source, .. } if gone(source));
                    self.note(format!("open:{}", reason.as_label()), e.to_string());
                    return if vanished {
                        Flow::End
                    } else {
                        self.skip(reason)
                    };
                }
            }
        }
        let Some(reader) = self.reader.as_mut() else {
            return Flow::Continue;
        };
        let offset = reader.random_offset(fastrand::u64(..));
        issue(&self.in_flight, self.started, false, now);
        let result = reader.read_once(offset);
        self.complete(false, offset, result)
    }

    fn write_once(&mut self) -> Flow {
        let Some((probe, mode, _)) = self.writer.as_mut() else {
            return Flow::Continue;
        };
        let (mode, offset) = (*mode, probe.random_offset(fastrand::u64(..)));
        issue(&self.in_flight, self.started, true, Instant::now());
        let result = probe.write(mode, offset);
        self.complete(true, offset, result)
    }

    fn complete(&mut self, write: bool, offset: u64, result: io::Result<Duration>) -> Flow {
        let counted = self.in_flight.0.swap(0, Ordering::AcqRel) & COUNTED != 0;
        let now = Instant::now();
        let latency = match result {
            Ok(latency) => latency,
            Err(e) => {
                let op = lock(&self.stats).op(write).op;
                let path = if write {
                    self.writer.as_ref().map(|w| w.0.path().to_path_buf())
                } else {
                    Some(self.target.path.clone())
                };
                let path = path.unwrap_or_default();
                let vanished = gone(&e);
                let mut msg = format!("{op} {} at offset {offset}: {e}", path.display());
                if vanished {
                    msg.push_str("; device vanished, probe stopped");
                } else if is_permission(&e) {
                    msg.push_str(" (the probe needs read access to the device)");
                }
                self.note(format!("{op}:{:?}:{:?}", e.kind(), e.raw_os_error()), msg);
                if !counted {
                    lock(&self.stats).op(write).ios.add(IoResult::Error);
                }
                return if vanished { Flow::End } else { Flow::Continue };
            }
        };
        self.tracker.add_probe_busy(latency);
        let mut stats = lock(&self.stats);
        stats.busy_ratio = self.tracker.probe_share();
        let t = now.saturating_duration_since(stats.started);
        let op = stats.op(write);
        op.histogram.record(latency.as_secs_f64());
        op.window.record(t, latency.as_secs_f64());
        if !counted {
            let result = if latency > self.timeout {
                IoResult::Timeout
            } else {
                IoResult::Ok
            };
            op.ios.add(result);
        }
        Flow::Continue
    }
}

#[cfg(test)]
mod tests;
