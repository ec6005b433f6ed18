//! Each drive's poll loop: poll on a worker of the pool (`app::pool`) under a
//! deadline, publish the outcome to the [`Store`], come due again a
//! jittered interval later, repeat.
//!
//! A poll that overruns its deadline is recorded by the pool's watchdog at
//! once: the drive shows `up 0` and a `poll` error, so the scrape never
//! waits for it, and one more `poll` error is counted for every interval it
//! stays stuck, so an `increase()` alert does not resolve itself on a drive
//! that still hangs. The drive is not polled again until the stuck call
//! returns, and the worker stuck in it is written off and replaced: a hung
//! drive holds one thread and delays no other drive.
//!
//! The loop is supervised: a panic anywhere in it (the poll, the store
//! update, the judge, the reset of a restarted poller) serves the drive
//! `up 0`, is logged at error level and counted
//! (`ssd_exporter_task_restarts_total{task="poll"}`), and the drive is
//! polled again with its poller reset, after a back-off of one interval
//! doubling with each panic in a row up to 32.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::Notify;
use tracing::{error, warn};

use super::pool::{Job, Pool, Watched};
use crate::poll::{Poller, Source};
use crate::snapshot::{Claim, DriveSnapshot, Judge, Store, Task};

/// How often and how long a drive is polled.
#[derive(Debug, Clone, Copy)]
pub struct Schedule {
    pub interval: Duration,
    pub deadline: Duration,
    /// Spread of each interval, ± this fraction, so drives on many hosts do
    /// not poll in lockstep.
    pub jitter: f64,
}

/// What a drive's loop runs after each poll it publishes, with the drive's
/// poller (the scheduled self-tests, `app::selftest`). A panic in it is
/// supervised like one in the poll.
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

/// Where a drive's outcomes go: the store, discovery (a drive gone) and
/// the after-poll hook.
struct Ends {
    store: Arc<Store>,
    gone: Arc<Notify>,
    after: Option<AfterPoll>,
}

/// One drive's polls, as a job of the pool.
struct DriveLoop {
    device: String,
    schedule: Schedule,
    judge: Judge,
    ends: Ends,
    /// Locked by the run in flight; a panic poisons it but leaves the
    /// poller here, reset before the next poll.
    poller: Mutex<Box<dyn Poller>>,
    /// The poll in flight: when it started, and whether the watchdog has
    /// recorded it as overrun (then its late outcome is dropped).
    in_flight: Mutex<Option<InFlight>>,
    /// Panics in a row; sets the back-off.
    streak: AtomicU32,
    /// A panic ended the last run: reset the poller first.
    reset: AtomicBool,
    /// The loop was stopped (the drive went): a poll that returns now
    /// publishes nothing.
    stop: AtomicBool,
    /// The right to poll the drive, given back when the last run ends.
    _claim: Claim,
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    started: Instant,
    overran: bool,
    /// When the watchdog last counted this poll (overrun or still stuck).
    counted: Instant,
}

/// The back-off before a drive is polled again after `streak` panics in
/// a row: one interval, doubling up to 32.
fn backoff(interval: Duration, streak: u32) -> Duration {
    interval.saturating_mul(1 << streak.saturating_sub(1).min(5))
}

/// Runs the judge, which is the application's code: a panic in it on the
/// watchdog's side is caught (logged by the panic hook), so the snapshot
/// still shows what the watchdog recorded and the watchdog goes on.
fn judged(judge: &Judge, s: &mut DriveSnapshot) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| judge(s, SystemTime::now())));
}

impl DriveLoop {
    fn flight(&self) -> MutexGuard<'_, Option<InFlight>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// One poll, published; when the next is due.
    fn poll_once(&self, started: Instant) -> Instant {
        let device = self.device.as_str();
        let mut poller = self.poller.lock().unwrap_or_else(|e| e.into_inner());
        if self.reset.load(Ordering::Acquire) {
            #[cfg(test)]
            inject::hit(device, inject::Point::Reset);
            poller.reset();
            self.reset.store(false, Ordering::Release);
        }
        *self.flight() = Some(InFlight {
            started,
            overran: false,
            counted: started,
        });
        let cpu = thread_cpu();
        #[cfg(test)]
        inject::hit(device, inject::Point::Poll);
        let outcome = poller.poll();
        let cpu = thread_cpu().saturating_sub(cpu);
        let ended = Instant::now();
        let elapsed = ended.saturating_duration_since(started);
        let overran = self.flight().take().is_some_and(|f| f.overran);
        let interval = self.schedule.interval;
        if self.stopped() {
            return ended + interval;
        }
        let Ends { store, gone, after } = &self.ends;
        if outcome.gone {
            gone.notify_one();
        }
        // One published copy per poll: its CPU time, and the outcome
        // unless it came too late. A late one the watchdog has not seen
        // yet is recorded as the overrun it was.
        let deadline = self.schedule.deadline;
        store.update(device, |s| {
            #[cfg(test)]
            inject::hit(device, inject::Point::Update);
            s.poll_cpu += cpu;
            let now = SystemTime::now();
            if elapsed <= deadline {
                s.apply(outcome, elapsed, now);
            } else if !overran {
                s.apply_deadline(deadline);
            } else {
                return;
            }
            #[cfg(test)]
            inject::hit(device, inject::Point::Judge);
            (self.judge)(s, now);
        });
        if let Some(after) = after {
            after(device, &mut **poller);
        }
        self.streak.store(0, Ordering::Release);
        ended + jittered(interval, self.schedule.jitter, fastrand::f64())
    }

    /// After a panic anywhere in a run: the drive is served `up 0`, the
    /// restart logged and counted, and the next poll, with the poller
    /// reset, comes after the back-off.
    fn panicked(&self, p: &(dyn std::any::Any + Send)) -> Instant {
        self.flight().take();
        self.reset.store(true, Ordering::Release);
        let device = self.device.as_str();
        let why = format!("poll loop panicked: {}", panic_message(p));
        let streak = self.streak.fetch_add(1, Ordering::AcqRel) + 1;
        let wait = backoff(self.schedule.interval, streak);
        error!(device, restarts = streak, backoff = ?wait, "{why}; restarting it");
        self.ends.store.update(device, |s| {
            s.up = false;
            s.polls += 1;
            *s.errors.entry(Source::Poll).or_default() += 1;
            *s.restarts.entry(Task::Poll).or_default() += 1;
            s.last_error = Some(format!("{}: {why}", s.origin));
            judged(&self.judge, s);
        });
        Instant::now() + wait
    }
}

impl Job for DriveLoop {
    fn deadline(&self) -> Duration {
        self.schedule.deadline
    }

    fn run(&self, started: Instant) -> Instant {
        if self.stopped() {
            return started + self.schedule.interval;
        }
        let run = || self.poll_once(started);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(next) => next,
            Err(p) => self.panicked(p.as_ref()),
        }
    }

    /// Records a poll that overran its deadline, and one more error for
    /// every interval it stays stuck, holding the poll's record so that
    /// its own end (which takes the record) waits for the store update.
    fn watch(&self, now: Instant) -> Watched {
        let Schedule {
            interval, deadline, ..
        } = self.schedule;
        let device = self.device.as_str();
        let (judge, store) = (&self.judge, &self.ends.store);
        let mut in_flight = self.flight();
        let Some(f) = in_flight.as_mut() else {
            return Watched {
                overran: false,
                next: None,
            };
        };
        let age = now.saturating_duration_since(f.started);
        if !f.overran && age >= deadline {
            f.overran = true;
            f.counted = now;
            warn!(device, deadline = ?deadline, "poll overran its deadline; waiting for it before polling again");
            store.update(device, |s| {
                s.apply_deadline(deadline);
                judged(judge, s);
            });
        } else if f.overran && now.saturating_duration_since(f.counted) >= interval {
            f.counted = now;
            store.update(device, |s| {
                s.apply_still_stuck(age);
                judged(judge, s);
            });
        }
        let next = match f.overran {
            true => f.counted + interval,
            false => f.started + deadline,
        };
        Watched {
            overran: f.overran,
            next: Some(next),
        }
    }
}

/// Stops the drive's loop when the task that owns it goes.
struct StopOnDrop(Arc<DriveLoop>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::Release);
    }
}

/// What a drive's loop is made of.
pub struct Drive {
    pub device: String,
    pub poller: Box<dyn Poller>,
    pub schedule: Schedule,
    pub judge: Judge,
    pub store: Arc<Store>,
    /// Notified when the device reports it no longer exists, so discovery
    /// can rescan at once.
    pub gone: Arc<Notify>,
    /// Run after each poll the loop publishes.
    pub after: Option<AfterPoll>,
}

/// Polls `drive` on `pool` until the returned future is dropped or
/// aborted. A drive whose earlier loop's poll still hangs (the drive was
/// removed and has come back) waits for it first ([`claim`]).
pub(crate) async fn run(pool: Arc<Pool>, drive: Drive) {
    let Drive {
        device,
        poller,
        schedule,
        judge,
        store,
        gone,
        after,
    } = drive;
    let claim = claim(&device, schedule, &judge, &store).await;
    let job = Arc::new(DriveLoop {
        device,
        schedule,
        judge,
        ends: Ends { store, gone, after },
        poller: Mutex::new(poller),
        in_flight: Mutex::new(None),
        streak: AtomicU32::new(0),
        reset: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        _claim: claim,
    });
    let _stop = StopOnDrop(Arc::clone(&job));
    let _registered = pool.add(job);
    std::future::pending::<()>().await
}

/// Waits until `device` has no loop polling it (an earlier loop's poll can
/// still hang in a call after its loop ended: the drive was removed and has
/// come back) and claims it for this loop. Meanwhile the drive shows the
/// overrun, and one more `poll` error per interval, as if this loop's own
/// poll hung; it is not polled until then.
async fn claim(device: &str, schedule: Schedule, judge: &Judge, store: &Store) -> Claim {
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
