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
use crate::snapshot::{DriveSnapshot, Store, Task};

/// Judges a drive's snapshot after each poll (health verdict, forecast);
/// supplied by the app, which knows the rules and the probes.
pub type Judge = Arc<dyn Fn(&mut DriveSnapshot, SystemTime) + Send + Sync>;

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
mod tests {
    use super::*;
    use crate::device::discovery::Transport;
    use crate::health::{Identity, Reading};
    use crate::poll::{PollError, PollOutcome};
    use std::sync::mpsc;

    fn identity() -> Identity {
        Identity {
            transport: Transport::Nvme,
            model: "M".into(),
            serial: "S".into(),
            firmware: "F".into(),
            wwn: String::new(),
            capacity_bytes: None,
        }
    }

    struct Fake {
        gate: Option<mpsc::Receiver<()>>,
        fail: bool,
    }

    impl Poller for Fake {
        fn origin(&self) -> String {
            "fake".into()
        }
        fn reset(&mut self) {}
        fn poll(&mut self) -> PollOutcome {
            if let Some(gate) = &self.gate {
                let _ = gate.recv();
            }
            let mut out = PollOutcome::default();
            if self.fail {
                out.errors.push(PollError {
                    source: Source::SmartLog,
                    message: "boom".into(),
                });
            } else {
                out.reading = Some(Reading::default());
                out.up = true;
            }
            out
        }
    }

    fn store_with(names: &[&str]) -> Arc<Store> {
        let store = Arc::new(Store::default());
        for n in names {
            store.insert(DriveSnapshot::new(n, "fake", identity()));
        }
        store
    }

    async fn wait_for(store: &Store, device: &str, f: impl Fn(&DriveSnapshot) -> bool) {
        for _ in 0..500 {
            if store.list().iter().any(|s| s.device == device && f(s)) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!(
            "{device} never reached the expected state: {:?}",
            store.list()
        );
    }

    /// Counts its polls; the first one blocks until `gate` is released.
    struct Counting {
        gate: Option<mpsc::Receiver<()>>,
        polls: Arc<std::sync::atomic::AtomicU32>,
    }

    impl Poller for Counting {
        fn origin(&self) -> String {
            "counting".into()
        }
        fn reset(&mut self) {}
        fn poll(&mut self) -> PollOutcome {
            self.polls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if let Some(gate) = self.gate.take() {
                let _ = gate.recv();
            }
            PollOutcome {
                reading: Some(Reading::default()),
                up: true,
                ..PollOutcome::default()
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_drive_re_added_while_its_old_poll_hangs_gets_no_second_blocking_call() {
        let store = store_with(&["sdz"]);
        let judge: Judge = Arc::new(|_, _| {});
        let gone = Arc::new(Notify::new());
        let fast = Schedule {
            interval: Duration::from_millis(20),
            deadline: Duration::from_millis(100),
            jitter: 0.0,
        };
        let polls = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let (release, gate) = mpsc::channel();
        let first = tokio::spawn(run(
            "sdz".into(),
            Box::new(Counting {
                gate: Some(gate),
                polls: polls.clone(),
            }),
            fast,
            judge.clone(),
            store.clone(),
            gone.clone(),
        ));
        wait_for(&store, "sdz", |s| s.errors.get(&Source::Poll) == Some(&1)).await;
        // The drive is removed (its loop aborted; the blocked call goes on)
        // and comes back, three times.
        first.abort();
        let mut loops = Vec::new();
        for _ in 0..3 {
            store.remove("sdz");
            store.insert(DriveSnapshot::new("sdz", "fake", identity()));
            let polls2 = Arc::new(std::sync::atomic::AtomicU32::new(0));
            loops.push((
                polls2.clone(),
                tokio::spawn(run(
                    "sdz".into(),
                    Box::new(Counting {
                        gate: None,
                        polls: polls2,
                    }),
                    fast,
                    judge.clone(),
                    store.clone(),
                    gone.clone(),
                )),
            ));
            // The new loop waits for the old call: it shows the overrun
            // and counts one poll error per interval, and never polls.
            wait_for(&store, "sdz", |s| {
                !s.up && s.errors.get(&Source::Poll).is_some_and(|&n| n >= 2)
            })
            .await;
            let (_, h) = loops.last().unwrap();
            assert_eq!(
                loops
                    .last()
                    .unwrap()
                    .0
                    .load(std::sync::atomic::Ordering::SeqCst),
                0
            );
            h.abort();
        }
        assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 1);
        // The hung call returns: the next loop claims the drive and polls.
        release.send(()).unwrap();
        store.remove("sdz");
        store.insert(DriveSnapshot::new("sdz", "fake", identity()));
        let polls3 = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let last = tokio::spawn(run(
            "sdz".into(),
            Box::new(Counting {
                gate: None,
                polls: polls3.clone(),
            }),
            fast,
            judge,
            store.clone(),
            gone,
        ));
        wait_for(&store, "sdz", |s| s.up && s.polls >= 2).await;
        assert!(polls3.load(std::sync::atomic::Ordering::SeqCst) >= 2);
        last.abort();
    }

    #[test]
    fn jitter_stays_within_its_band() {
        let i = Duration::from_secs(60);
        assert_eq!(jittered(i, 0.1, 0.0), Duration::from_secs(54));
        assert_eq!(jittered(i, 0.1, 1.0), Duration::from_secs(66));
        assert_eq!(jittered(i, 0.1, 0.5), i);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_hung_drive_delays_neither_its_deadline_nor_other_drives() {
        // Counts judgements: every applied poll and overrun is judged.
        let judgements = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = judgements.clone();
        let judged: Judge = Arc::new(move |_, _| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        let store = store_with(&["hung", "ok", "bad"]);
        let gone = Arc::new(Notify::new());
        let fast = Schedule {
            interval: Duration::from_millis(20),
            deadline: Duration::from_millis(200),
            jitter: 0.0,
        };
        let (release, gate) = mpsc::channel();
        let hung = tokio::spawn(run(
            "hung".into(),
            Box::new(Fake {
                gate: Some(gate),
                fail: false,
            }),
            fast,
            judged.clone(),
            store.clone(),
            gone.clone(),
        ));
        let ok = tokio::spawn(run(
            "ok".into(),
            Box::new(Fake {
                gate: None,
                fail: false,
            }),
            fast,
            judged.clone(),
            store.clone(),
            gone.clone(),
        ));
        let bad = tokio::spawn(run(
            "bad".into(),
            Box::new(Fake {
                gate: None,
                fail: true,
            }),
            fast,
            judged.clone(),
            store.clone(),
            gone.clone(),
        ));
        wait_for(&store, "ok", |s| s.polls >= 3 && s.up).await;
        wait_for(&store, "bad", |s| {
            s.polls >= 3 && !s.up && s.errors[&Source::SmartLog] >= 3
        })
        .await;
        wait_for(&store, "hung", |s| {
            s.errors.get(&Source::Poll).is_some_and(|&n| n >= 3) && !s.up
        })
        .await;
        // Released, the hung drive recovers on its next poll.
        release.send(()).unwrap();
        drop(release);
        wait_for(&store, "hung", |s| s.up).await;
        let polls: u64 = store.list().iter().map(|s| s.polls).sum();
        assert!(judgements.load(std::sync::atomic::Ordering::Relaxed) >= polls.saturating_sub(3));
        for t in [hung, ok, bad] {
            t.abort();
        }
    }

    /// A FIFO as the SMART log file of a replay folder stands in for a hung
    /// drive: the poll blocks in `open`. Each interval it stays stuck
    /// counts one more `poll` error, so `increase()` keeps seeing it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_hung_replay_counts_a_poll_error_every_interval_until_it_answers() {
        use crate::device::replay::NvmeReplay;
        use crate::poll::nvme::{NvmePoller, PollPolicy};
        use std::io::Write;
        let tmp = tempfile::tempdir().unwrap();
        let src = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
        ));
        for f in ["id-ctrl.bin", "smart-log.bin"] {
            std::fs::copy(src.join(f), tmp.path().join(f)).unwrap();
        }
        let smart = tmp.path().join("smart-log.bin");
        let page = std::fs::read(&smart).unwrap();
        std::fs::remove_file(&smart).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&smart)
            .status()
            .unwrap();
        assert!(made.success());
        let store = store_with(&["nvme0"]);
        let poller = NvmePoller::new(
            Box::new(NvmeReplay::new(tmp.path())),
            PollPolicy::EVERY_PAGE,
        );
        let schedule = Schedule {
            interval: Duration::from_millis(30),
            deadline: Duration::from_millis(100),
            jitter: 0.0,
        };
        let judge: Judge = Arc::new(|_, _| {});
        let task = tokio::spawn(run(
            "nvme0".into(),
            Box::new(poller),
            schedule,
            judge,
            store.clone(),
            Arc::new(Notify::new()),
        ));
        wait_for(&store, "nvme0", |s| {
            !s.up && s.errors.get(&Source::Poll).is_some_and(|&n| n >= 4)
        })
        .await;
        // Answer: the stuck open returns once a writer opens the FIFO; the
        // next poll then reads a regular file again.
        let fifo = smart.clone();
        let writer = std::thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            std::fs::remove_file(&fifo).unwrap();
            std::fs::write(&fifo, &page).unwrap();
            w.write_all(&page).unwrap();
        });
        wait_for(&store, "nvme0", |s| s.up).await;
        writer.join().unwrap();
        task.abort();
    }

    /// Panics on polls 2 and 3, answers otherwise; counts resets.
    struct Panicky {
        polls: u32,
        resets: Arc<std::sync::atomic::AtomicU32>,
    }

    impl Poller for Panicky {
        fn origin(&self) -> String {
            "panicky".into()
        }
        fn poll(&mut self) -> PollOutcome {
            self.polls += 1;
            if (2..=3).contains(&self.polls) {
                panic!("injected panic in poll {}", self.polls);
            }
            PollOutcome {
                reading: Some(Reading::default()),
                up: true,
                ..PollOutcome::default()
            }
        }
        fn reset(&mut self) {
            self.resets
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_poller_is_restarted_counted_and_polled_again() {
        let store = store_with(&["p"]);
        let resets = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let schedule = Schedule {
            interval: Duration::from_millis(10),
            deadline: Duration::from_secs(5),
            jitter: 0.0,
        };
        let task = tokio::spawn(run(
            "p".into(),
            Box::new(Panicky {
                polls: 0,
                resets: resets.clone(),
            }),
            schedule,
            Arc::new(|_, _| {}),
            store.clone(),
            Arc::new(Notify::new()),
        ));
        wait_for(&store, "p", |s| {
            s.restarts.get(&Task::Poll) == Some(&2) && s.up && s.polls >= 5
        })
        .await;
        let s = store.list().into_iter().find(|s| s.device == "p").unwrap();
        assert_eq!(s.errors.get(&Source::Poll), Some(&2));
        assert_eq!(resets.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert!(!task.is_finished());
        task.abort();
    }
}
