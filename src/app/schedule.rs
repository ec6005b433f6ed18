//! Each drive's poll loop: poll on a thread of the drive's own under a
//! deadline, publish the outcome to the [`Store`], sleep a jittered
//! interval, repeat.
//!
//! A poll that overruns its deadline is recorded by the loop's watchdog (an
//! async task woken at the deadline of the poll in flight) at once: the drive shows
//! `up 0` and a `poll` error, so the scrape never waits for it, and one
//! more `poll` error is counted for every interval it stays stuck, so an
//! `increase()` alert does not resolve itself on a drive that still hangs.
//! The thread is the one blocking call a drive has: a hung drive holds that
//! one thread and delays no other drive.
//!
//! The thread is supervised like a probe: when it dies (a panic anywhere in
//! its loop), the drive is served `up 0`, the restart is logged at error
//! level and counted (`ssd_exporter_task_restarts_total{task="poll"}`), and
//! a new thread starts with the poller reset, after a back-off of one
//! interval doubling with each panic in a row up to 32.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Notify;
use tracing::{error, warn};

use crate::poll::{Poller, Source};
use crate::snapshot::{DriveSnapshot, Judge, Store, Task};

/// How often and how long a drive is polled.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    pub interval: Duration,
    pub deadline: Duration,
    /// Spread of each interval, ± this fraction, so drives on many hosts do
    /// not poll in lockstep.
    pub jitter: f64,
}

/// What a drive's poll thread runs after each poll it publishes, with the
/// drive's poller (the scheduled self-tests, `app::selftest`). A panic in
/// it ends the thread like one in the poll, and the loop restarts it.
pub type AfterPoll = Arc<dyn Fn(&str, &mut dyn Poller) + Send + Sync>;

/// CPU time of the calling thread (user + system), for
/// `ssd_poll_cpu_seconds_total`; zero if the clock is unavailable.
fn thread_cpu() -> Duration {
    use nix::time::{ClockId, clock_gettime};
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(Duration::ZERO, Duration::from)
}

/// The next sleep: `interval` scaled by a uniform factor in `1 ± jitter`.
pub fn jittered(interval: Duration, jitter: f64, unit: f64) -> Duration {
    let factor = 1.0 + jitter * (2.0 * unit.clamp(0.0, 1.0) - 1.0);
    interval.mul_f64(factor.max(0.0))
}

/// What the poll thread and its supervisor share.
struct Shared {
    /// The drive's poller. A poll thread holds the lock for its whole life;
    /// a panic anywhere on the thread poisons it but leaves the poller
    /// here, so the supervisor can reset it and start the next thread.
    poller: Mutex<Box<dyn Poller>>,
    /// The poll in flight: when it started, and whether the watchdog has
    /// recorded it as overrun (then its late outcome is dropped).
    in_flight: Mutex<Option<InFlight>>,
    /// Panics in a row: raised by the supervisor on each, cleared by the
    /// thread after each poll it publishes. Sets the back-off.
    streak: AtomicU32,
    /// The poll thread now, so that stopping wakes it.
    thread: Mutex<Option<std::thread::Thread>>,
    /// Set when the loop is stopped (its task aborted or dropped): the
    /// thread ends at its next wake-up, or when a stuck call returns.
    stop: AtomicBool,
    /// Wakes the watchdog: a poll started, or the thread is ending.
    wake: Notify,
    /// Set by the poll thread as it ends (returning or unwinding), cleared
    /// before each new thread starts.
    ending: AtomicBool,
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    started: Instant,
    overran: bool,
    /// When the watchdog last counted this poll (overrun or still stuck).
    counted: Instant,
}

impl Shared {
    fn new(poller: Box<dyn Poller>) -> Self {
        Shared {
            poller: Mutex::new(poller),
            in_flight: Mutex::new(None),
            streak: AtomicU32::new(0),
            thread: Mutex::new(None),
            stop: AtomicBool::new(false),
            wake: Notify::new(),
            ending: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<InFlight>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

/// Stops the poll thread when the task that owns it goes.
struct StopOnDrop(Arc<Shared>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Release);
        let thread = self.0.thread.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = thread.as_ref() {
            t.unpark();
        }
    }
}

/// Tells the watchdog that the poll thread is ending, however it ends.
struct EndingOnDrop<'a>(&'a Shared);

impl Drop for EndingOnDrop<'_> {
    fn drop(&mut self) {
        self.0.ending.store(true, Ordering::Release);
        self.0.wake.notify_one();
    }
}

/// The back-off before the poll thread starts again after `streak` panics
/// in a row: one interval, doubling up to 32.
fn backoff(interval: Duration, streak: u32) -> Duration {
    interval.saturating_mul(1 << streak.saturating_sub(1).min(5))
}

/// Runs the judge, which is the application's code: a panic in it on the
/// supervisor's side is caught (logged by the panic hook), so the snapshot
/// still shows what the supervisor recorded and the supervisor goes on.
fn judged(judge: &Judge, s: &mut DriveSnapshot) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| judge(s, SystemTime::now())));
}

/// Polls `device` until the returned future is dropped or aborted. The
/// polls run on a thread of the drive's own (one wake-up per poll: no hand-off
/// to a blocking pool and back, which cost more CPU than a poll itself);
/// this task supervises it: it records an overrun at the deadline and one
/// more `poll` error per interval while the poll stays stuck, so the scrape
/// never waits for a hung drive, and when the thread dies — a panic
/// anywhere in its loop: the poll, the store update, the judge, the reset —
/// it serves the drive `up 0`, logs and counts the restart, and starts a
/// new thread with the reset poller after a back-off. `gone` is notified
/// when the device reports it no longer exists, so discovery can rescan at
/// once.
pub async fn run(
    device: String,
    poller: Box<dyn Poller>,
    schedule: Schedule,
    judge: Judge,
    store: Arc<Store>,
    gone: Arc<Notify>,
) {
    run_with(device, poller, schedule, judge, store, gone, None).await
}

/// [`run`], with `after` run on the poll thread after each poll.
pub async fn run_with(
    device: String,
    poller: Box<dyn Poller>,
    schedule: Schedule,
    judge: Judge,
    store: Arc<Store>,
    gone: Arc<Notify>,
    after: Option<AfterPoll>,
) {
    let shared = Arc::new(Shared::new(poller));
    let _stop = StopOnDrop(shared.clone());
    let mut fresh = true;
    loop {
        let claim = claim(&device, schedule, &judge, &store).await;
        shared.ending.store(false, Ordering::Release);
        let thread = {
            let (device, judge, store, shared, gone, after) = (
                device.clone(),
                judge.clone(),
                store.clone(),
                shared.clone(),
                gone.clone(),
                after.clone(),
            );
            std::thread::Builder::new()
                .name(format!("poll {device}"))
                .spawn(move || {
                    let ends = Ends { store, gone, after };
                    poll_thread(claim, device, !fresh, schedule, judge, ends, shared)
                })
        };
        fresh = false;
        let why = match thread {
            Ok(thread) => {
                *shared.thread.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(thread.thread().clone());
                watch(&device, &thread, &shared, schedule, &judge, &store).await;
                if shared.stopped() {
                    return;
                }
                shared.lock().take();
                match thread.join() {
                    Err(p) => format!("poll loop panicked: {}", panic_message(p.as_ref())),
                    Ok(()) => "poll loop ended".to_string(),
                }
            }
            Err(e) => format!("cannot start the poll thread: {e}"),
        };
        let streak = shared.streak.fetch_add(1, Ordering::AcqRel) + 1;
        let wait = backoff(schedule.interval, streak);
        error!(device, restarts = streak, backoff = ?wait, "{why}; restarting it");
        store.update(&device, |s| {
            s.up = false;
            s.polls += 1;
            *s.errors.entry(Source::Poll).or_default() += 1;
            *s.restarts.entry(Task::Poll).or_default() += 1;
            s.last_error = Some(format!("{}: {why}", s.origin));
            judged(&judge, s);
        });
        tokio::time::sleep(wait).await;
    }
}

/// Watches the poll thread: records a poll that overruns its deadline at
/// once (a millisecond after it), and one more error for every interval it
/// stays stuck. It wakes only for that: at the deadline of the poll in
/// flight, or when a poll starts or the thread ends (the thread tells it),
/// so a drive between polls costs no wake-ups (at 1,000 drives a tick per
/// second each was 1,000 wake-ups a second). Returns when the thread has
/// ended.
async fn watch(
    device: &str,
    thread: &std::thread::JoinHandle<()>,
    shared: &Shared,
    schedule: Schedule,
    judge: &Judge,
    store: &Store,
) {
    loop {
        if shared.ending.load(Ordering::Acquire) {
            // It is unwinding or returning: done in a moment.
            while !thread.is_finished() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            return;
        }
        // The next moment this poll needs looking at: its deadline, or an
        // interval after it was last counted while it stays stuck.
        let next = shared.lock().map(|f| {
            let at = if f.overran {
                f.counted + schedule.interval
            } else {
                f.started + schedule.deadline
            };
            at + Duration::from_millis(1)
        });
        match next {
            Some(at) => tokio::select! {
                () = tokio::time::sleep_until(at.into()) => {}
                () = shared.wake.notified() => {}
            },
            None => shared.wake.notified().await,
        }
        let now = Instant::now();
        let mut in_flight = shared.lock();
        let Some(f) = in_flight.as_mut() else {
            continue;
        };
        let age = now.saturating_duration_since(f.started);
        if !f.overran && age > schedule.deadline {
            f.overran = true;
            f.counted = now;
            warn!(device, deadline = ?schedule.deadline, "poll overran its deadline; waiting for it before polling again");
            store.update(device, |s| {
                s.apply_deadline(schedule.deadline);
                judged(judge, s);
            });
        } else if f.overran && now.saturating_duration_since(f.counted) >= schedule.interval {
            f.counted = now;
            store.update(device, |s| {
                s.apply_still_stuck(age);
                judged(judge, s);
            });
        }
    }
}

/// Sleeps on the poll thread until `d` after `from` (an instant the caller
/// already read, so that the clock is read once per nap: in a guest
/// without a TSC each read is a system call), or less if the loop is
/// stopped; false when stopped.
fn nap(shared: &Shared, from: Instant, d: Duration) -> bool {
    let until = from + d;
    let mut left = d;
    loop {
        if shared.stopped() {
            return false;
        }
        std::thread::park_timeout(left);
        if shared.stopped() {
            return false;
        }
        match until.checked_duration_since(Instant::now()) {
            Some(rest) if !rest.is_zero() => left = rest,
            _ => return true,
        }
    }
}

/// Waits until `device` has no poll thread (an earlier loop's can still
/// hang in a call after its loop ended: the drive was removed and has come
/// back) and claims it for this loop's thread. Meanwhile the drive shows the
/// overrun, and one more `poll` error per interval, as if this loop's own
/// poll hung; no thread is started for it until then.
async fn claim(
    device: &str,
    schedule: Schedule,
    judge: &Judge,
    store: &Store,
) -> crate::snapshot::Claim {
    if let Some(c) = store.claim(device) {
        return c;
    }
    warn!(
        device,
        "an earlier poll of this drive is still stuck; waiting for it before polling"
    );
    let waiting = Instant::now();
    let mut first = true;
    loop {
        let wait = if first {
            schedule.deadline
        } else {
            schedule.interval
        };
        tokio::time::sleep(wait).await;
        if let Some(c) = store.claim(device) {
            return c;
        }
        store.update(device, |s| {
            if first {
                s.apply_deadline(schedule.deadline);
            } else {
                s.apply_still_stuck(waiting.elapsed());
            }
            judged(judge, s);
        });
        first = false;
    }
}

/// Where a poll thread's outcomes go: the store, discovery (a drive gone)
/// and the after-poll hook.
struct Ends {
    store: Arc<Store>,
    gone: Arc<Notify>,
    after: Option<AfterPoll>,
}

/// The drive's poll loop, on its own thread, which holds the drive's
/// `claim` and its poller for its whole life. Nothing here catches a
/// panic: one anywhere ends the thread, and [`run`] restarts it (with
/// `restarted`, the poller is reset first).
#[allow(clippy::too_many_arguments)]
fn poll_thread(
    claim: crate::snapshot::Claim,
    device: String,
    restarted: bool,
    schedule: Schedule,
    judge: Judge,
    ends: Ends,
    shared: Arc<Shared>,
) {
    let Ends { store, gone, after } = ends;
    let _ending = EndingOnDrop(&shared);
    let _claim = claim;
    let mut poller = shared.poller.lock().unwrap_or_else(|e| e.into_inner());
    if restarted {
        #[cfg(test)]
        inject::hit(&device, inject::Point::Reset);
        poller.reset();
    }
    loop {
        let started = Instant::now();
        *shared.lock() = Some(InFlight {
            started,
            overran: false,
            counted: started,
        });
        shared.wake.notify_one();
        let cpu = thread_cpu();
        #[cfg(test)]
        inject::hit(&device, inject::Point::Poll);
        let outcome = poller.poll();
        let cpu = thread_cpu().saturating_sub(cpu);
        let elapsed = started.elapsed();
        let overran = shared.lock().take().is_some_and(|f| f.overran);
        if shared.stopped() {
            return;
        }
        if outcome.gone {
            gone.notify_one();
        }
        // One published copy per poll: its CPU time, and the outcome
        // unless it came too late. A late one the watchdog has not seen
        // yet is recorded as the overrun it was.
        store.update(&device, |s| {
            #[cfg(test)]
            inject::hit(&device, inject::Point::Update);
            s.poll_cpu += cpu;
            let now = SystemTime::now();
            if elapsed <= schedule.deadline {
                s.apply(outcome, elapsed, now);
            } else if !overran {
                s.apply_deadline(schedule.deadline);
            } else {
                return;
            }
            #[cfg(test)]
            inject::hit(&device, inject::Point::Judge);
            judge(s, now);
        });
        if let Some(after) = &after {
            after(&device, &mut **poller);
        }
        shared.streak.store(0, Ordering::Release);
        let interval = jittered(schedule.interval, schedule.jitter, fastrand::f64());
        if !nap(&shared, started + elapsed, interval) {
            return;
        }
    }
}

/// Test hook: a panic injected at one point of a drive's poll loop.
/// Compiled only into the crate's own tests: a release binary has no way
/// to reach it.
#[cfg(test)]
pub(crate) mod inject;

/// The text of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-text panic payload".to_string())
}

#[cfg(test)]
mod tests;
