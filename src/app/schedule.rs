//! Each drive's poll loop: poll on a thread of the drive's own under a
//! deadline, publish the outcome to the [`Store`], sleep a jittered
//! interval, repeat.
//!
//! A poll that overruns its deadline is recorded by the loop's watchdog (an
//! async task that looks a few times per deadline) at once: the drive shows
//! `up 0` and a `poll` error, so the scrape never waits for it, and one
//! more `poll` error is counted for every interval it stays stuck, so an
//! `increase()` alert does not resolve itself on a drive that still hangs.
//! The thread is the one blocking call a drive has: a hung drive holds that
//! one thread and delays no other drive.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Notify;
use tracing::{error, warn};

use crate::poll::{Poller, Source};
use crate::snapshot::{Judge, Store, Task};

/// How often and how long a drive is polled.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    pub interval: Duration,
    pub deadline: Duration,
    /// Spread of each interval, ± this fraction, so drives on many hosts do
    /// not poll in lockstep.
    pub jitter: f64,
}

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

/// What the poll thread and its watchdog share.
#[derive(Debug, Default)]
struct Shared {
    /// The poll in flight: when it started, and whether the watchdog has
    /// recorded it as overrun (then its late outcome is dropped).
    in_flight: Mutex<Option<InFlight>>,
    /// Set when the loop is stopped (its task aborted or dropped): the
    /// thread ends at its next wake-up, or when a stuck call returns.
    stop: AtomicBool,
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    started: Instant,
    overran: bool,
    /// When the watchdog last counted this poll (overrun or still stuck).
    counted: Instant,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<InFlight>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

/// Stops the poll thread when the task that owns it goes.
struct StopOnDrop(Arc<Shared>, std::thread::Thread);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Release);
        self.1.unpark();
    }
}

/// How often the watchdog looks at the poll in flight: a quarter of the
/// deadline, between 10 ms and 1 s (so an overrun is seen within a second
/// of the deadline, and an idle drive costs one wake-up a second).
fn watch_tick(deadline: Duration) -> Duration {
    (deadline / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
}

/// Polls `device` until the returned future is dropped or aborted. The
/// polls run on a thread of the drive's own (one wake-up per poll: no hand-off
/// to a blocking pool and back, which cost more CPU than a poll itself);
/// this task is only the watchdog that records an overrun at the deadline
/// and one more `poll` error per interval while the poll stays stuck, so
/// the scrape never waits for a hung drive. `gone` is notified when the
/// device reports it no longer exists, so discovery can rescan at once.
pub async fn run(
    device: String,
    poller: Box<dyn Poller>,
    schedule: Schedule,
    judge: Judge,
    store: Arc<Store>,
    gone: Arc<Notify>,
) {
    let claim = claim(&device, schedule, &judge, &store).await;
    let shared = Arc::new(Shared::default());
    let thread = {
        let (device, judge, store, shared) =
            (device.clone(), judge.clone(), store.clone(), shared.clone());
        std::thread::Builder::new()
            .name(format!("poll {device}"))
            .spawn(move || poll_thread(claim, device, poller, schedule, judge, store, gone, shared))
    };
    let thread = match thread {
        Ok(t) => t,
        Err(e) => {
            error!(device, "cannot start the poll thread: {e}");
            store.update(&device, |s| {
                s.up = false;
                *s.errors.entry(Source::Poll).or_default() += 1;
                s.last_error = Some(format!("cannot start the poll thread: {e}"));
                judge(s, SystemTime::now());
            });
            return;
        }
    };
    let _stop = StopOnDrop(shared.clone(), thread.thread().clone());
    let tick = watch_tick(schedule.deadline);
    loop {
        tokio::time::sleep(tick).await;
        if thread.is_finished() {
            return;
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
            store.update(&device, |s| {
                s.apply_deadline(schedule.deadline);
                judge(s, SystemTime::now());
            });
        } else if f.overran && now.saturating_duration_since(f.counted) >= schedule.interval {
            f.counted = now;
            store.update(&device, |s| {
                s.apply_still_stuck(age);
                judge(s, SystemTime::now());
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
            judge(s, SystemTime::now());
        });
        first = false;
    }
}

/// The drive's poll loop, on its own thread, which holds the drive's
/// `claim` for its whole life.
#[allow(clippy::too_many_arguments)]
fn poll_thread(
    claim: crate::snapshot::Claim,
    device: String,
    mut poller: Box<dyn Poller>,
    schedule: Schedule,
    judge: Judge,
    store: Arc<Store>,
    gone: Arc<Notify>,
    shared: Arc<Shared>,
) {
    let _claim = claim;
    let mut panics = 0u32;
    loop {
        let started = Instant::now();
        *shared.lock() = Some(InFlight {
            started,
            overran: false,
            counted: started,
        });
        let cpu = thread_cpu();
        // A panic in a poller is a bug, but it must not stop the drive
        // being watched: it is caught here, and the poll restarts.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poller.poll()))
            .map_err(|p| panic_message(p.as_ref()));
        let cpu = thread_cpu().saturating_sub(cpu);
        let elapsed = started.elapsed();
        let overran = shared.lock().take().is_some_and(|f| f.overran);
        if shared.stopped() {
            return;
        }
        match outcome {
            Err(panic) => {
                // Supervision: logged with the drive, counted, and the
                // poller starts over after a back-off that doubles with each
                // panic in a row (one interval, up to 32).
                poller.reset();
                panics = panics.saturating_add(1);
                error!(
                    device,
                    restarts = panics,
                    "poller panicked, restarting it: {panic}"
                );
                store.update(&device, |s| {
                    s.up = false;
                    s.polls += 1;
                    *s.errors.entry(Source::Poll).or_default() += 1;
                    *s.restarts.entry(Task::Poll).or_default() += 1;
                    s.last_error = Some(format!("{}: poller panicked: {panic}", s.origin));
                    judge(s, SystemTime::now());
                });
                let backoff = schedule.interval.saturating_mul(1 << (panics - 1).min(5));
                if !nap(&shared, started + elapsed, backoff) {
                    return;
                }
                continue;
            }
            Ok(outcome) => {
                panics = 0;
                if outcome.gone {
                    gone.notify_one();
                }
                // One published copy per poll: its CPU time, and the outcome
                // unless it came too late. A late one the watchdog has not
                // seen yet is recorded as the overrun it was.
                store.update(&device, |s| {
                    s.poll_cpu += cpu;
                    let now = SystemTime::now();
                    if elapsed <= schedule.deadline {
                        s.apply(outcome, elapsed, now);
                    } else if !overran {
                        s.apply_deadline(schedule.deadline);
                    } else {
                        return;
                    }
                    judge(s, now);
                });
            }
        }
        let interval = jittered(schedule.interval, schedule.jitter, fastrand::f64());
        if !nap(&shared, started + elapsed, interval) {
            return;
        }
    }
}

/// The text of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-text panic payload".to_string())
}

#[cfg(test)]
mod tests;
