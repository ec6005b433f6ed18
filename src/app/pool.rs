//! The poll workers: a few threads run every drive's polls as they come
//! due, instead of a thread per drive, so the exporter's threads do not
//! grow with the drives it watches.
//!
//! One idle worker, the leader, sleeps until the earliest due job and takes
//! it, handing its place to another idle worker; the others sleep until
//! then. A job that runs is out of the queue until its run returns, so a
//! poll stuck in the kernel is never sent to its drive a second time.
//!
//! A stuck poll costs one worker and delays no other drive. The watchdog,
//! a thread of its own, wakes at the deadline of each run in flight and
//! lets the job say what that means (the drive's `up 0` and counted
//! error); a run past its deadline has its worker written off: left to
//! finish, or to end with the process while it waits in the kernel, and no
//! longer counted in the pool. When work waits with no worker idle and
//! fewer than `core` runs younger than [`STALL`], the watchdog starts
//! workers: as many as are stalled, so a queue of hung drives is reached in
//! a few steps of [`STALL`], each doubling the workers; at least enough to
//! make `core` again; never more than the jobs waiting. Each worker holds at
//! most one job, and no job runs twice at once, so the threads never
//! outnumber the jobs and `core`; a worker beyond `core` (one written off
//! whose run returned, one started for a stall) ends after [`KEEP_ALIVE`]
//! idle.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::error;

use crate::metrics::PollWorkers;

/// A run longer than this no longer counts as one of the `core` workers'
/// when work waits: long enough for a healthy poll (milliseconds), short
/// enough that a hundred hung drives in a row are all reached within a
/// second.
pub(crate) const STALL: Duration = Duration::from_millis(100);

/// Workers the exporter keeps: a healthy poll takes milliseconds, so two
/// poll a thousand drives every minute with room to spare; a slow or hung
/// drive takes a worker of its own for as long as it stalls.
pub(crate) const CORE: usize = 2;

/// How long a worker beyond `core` stays idle before it ends.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(30);

/// What the pool runs: one drive's polls.
pub(crate) trait Job: Send + Sync {
    /// The run's deadline: the watchdog first looks at a run this long
    /// after it started.
    fn deadline(&self) -> Duration;
    /// One run, on a worker, which read the clock at `started`; when the
    /// job is due again. A panic that escapes is logged and the job tried
    /// again after its deadline (the job is expected to catch its own).
    fn run(&self, started: Instant) -> Instant;
    /// Called by the watchdog while a run is in flight, at the deadline
    /// and then whenever the last call asked: whether the run overran (its
    /// worker is then written off), and when to look again.
    fn watch(&self, now: Instant) -> Watched;
}

/// What [`Job::watch`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Watched {
    pub overran: bool,
    /// When to look again; `None`: the run is over.
    pub next: Option<Instant>,
}

/// The workers and the queue. Dropping it ends the workers as they come
/// back idle, and the watchdog.
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

/// A job in the pool; dropping it takes the job out (a run in flight
/// finishes, and is not followed by another).
pub(crate) struct Registration {
    shared: Arc<Shared>,
    id: u64,
}

struct Shared {
    state: Mutex<State>,
    /// The leader waits here for the earliest due job.
    timer: Condvar,
    /// Idle workers other than the leader.
    followers: Condvar,
    watchdog: Condvar,
    /// Workers kept however idle; runs younger than [`STALL`] by fewer
    /// than this many let the watchdog start more while work waits.
    core: usize,
    gauge: Arc<PollWorkers>,
}

#[derive(Default)]
struct State {
    jobs: HashMap<u64, Queued>,
    /// Due times of the jobs waiting. An entry whose job went, or whose
    /// job has another due time now, is skipped when it comes up.
    queue: BinaryHeap<Reverse<(Instant, u64)>>,
    /// Runs in flight, by worker.
    running: HashMap<u64, Running>,
    /// Threads started and not ended, written off included.
    workers: usize,
    idle: usize,
    written_off: usize,
    leader: Option<u64>,
    /// When the watchdog wakes next; `None`: not until told.
    armed: Option<Instant>,
    next_id: u64,
    stop: bool,
}

struct Queued {
    job: Arc<dyn Job>,
    /// `None` while it runs.
    due: Option<Instant>,
}

struct Running {
    job_id: u64,
    job: Arc<dyn Job>,
    started: Instant,
    /// When the watchdog looks at it next.
    check: Option<Instant>,
    written_off: bool,
}

impl Pool {
    /// A pool keeping `core` workers (at least one) once it has a job,
    /// counting them in `gauge`.
    pub(crate) fn new(core: usize, gauge: Arc<PollWorkers>) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::default(),
            timer: Condvar::new(),
            followers: Condvar::new(),
            watchdog: Condvar::new(),
            core: core.max(1),
            gauge,
        });
        let s = Arc::clone(&shared);
        if let Err(e) = std::thread::Builder::new()
            .name("poll watchdog".into())
            .spawn(move || s.watchdog())
        {
            // Polls still run; only overruns go unseen until it can start.
            error!("cannot start the poll watchdog: {e}");
        }
        Self { shared }
    }

    /// Adds `job`, due at once.
    pub(crate) fn add(&self, job: Arc<dyn Job>) -> Registration {
        let shared = &self.shared;
        let mut st = shared.lock();
        let id = st.next_id;
        st.next_id += 1;
        let now = Instant::now();
        st.jobs.insert(
            id,
            Queued {
                job,
                due: Some(now),
            },
        );
        st.queue.push(Reverse((now, id)));
        if st.leader.is_some() {
            shared.timer.notify_one();
        } else if st.idle > 0 {
            shared.followers.notify_one();
        }
        let missing = shared.core.saturating_sub(st.workers - st.written_off);
        shared.spawn(&mut st, missing);
        shared.waiting(&mut st, now);
        shared.publish(&st);
        Registration {
            shared: Arc::clone(shared),
            id,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.timer.notify_all();
        self.shared.followers.notify_all();
        self.shared.watchdog.notify_all();
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.shared.lock().jobs.remove(&self.id);
    }
}

impl State {
    /// The earliest due job, dropping entries that no longer stand.
    fn next_due(&mut self) -> Option<(Instant, u64)> {
        while let Some(&Reverse((due, id))) = self.queue.peek() {
            if self.jobs.get(&id).is_some_and(|q| q.due == Some(due)) {
                return Some((due, id));
            }
            self.queue.pop();
        }
        None
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn publish(&self, st: &State) {
        let busy = st.running.len() - st.written_off;
        self.gauge.idle.store(st.idle as u64, Ordering::Relaxed);
        self.gauge.busy.store(busy as u64, Ordering::Relaxed);
        let stuck = st.written_off as u64;
        self.gauge.stuck.store(stuck, Ordering::Relaxed);
    }

    /// Starts `n` workers (counted idle from now).
    fn spawn(self: &Arc<Self>, st: &mut State, n: usize) {
        for _ in 0..n {
            let id = st.next_id;
            st.next_id += 1;
            let me = Arc::clone(self);
            let started = std::thread::Builder::new()
                .name("poll worker".into())
                .spawn(move || me.worker(id));
            match started {
                Ok(_) => {
                    st.workers += 1;
                    st.idle += 1;
                }
                Err(e) => {
                    // The watchdog tries again while work waits.
                    error!("cannot start a poll worker: {e}");
                    return;
                }
            }
        }
    }

    /// Wakes the watchdog if work waits (or will, at the head of the
    /// queue) with no worker idle, and it sleeps past that.
    fn waiting(&self, st: &mut State, now: Instant) {
        if st.idle > 0 {
            return;
        }
        let Some(&Reverse((due, _))) = st.queue.peek() else {
            return;
        };
        let at = due.max(now);
        if st.armed.is_none_or(|a| a > at) {
            st.armed = Some(at);
            self.watchdog.notify_one();
        }
    }

    fn worker(self: Arc<Self>, me: u64) {
        let mut st = self.lock();
        loop {
            if st.stop {
                return self.end(st, me);
            }
            if st.leader.is_none() {
                st.leader = Some(me);
            }
            if st.leader != Some(me) {
                let surplus = st.workers - st.written_off > self.core;
                if !surplus {
                    st = self.followers.wait(st).unwrap_or_else(|e| e.into_inner());
                    continue;
                }
                let (next, waited) = self
                    .followers
                    .wait_timeout(st, KEEP_ALIVE)
                    .unwrap_or_else(|e| e.into_inner());
                st = next;
                let surplus = st.workers - st.written_off > self.core;
                if waited.timed_out() && surplus && st.leader != Some(me) {
                    return self.end(st, me);
                }
                continue;
            }
            let now = Instant::now();
            st = match st.next_due() {
                Some((due, id)) if due <= now => self.take(st, me, id, now),
                Some((due, _)) => {
                    let wait = due - now;
                    let (st, _) = self
                        .timer
                        .wait_timeout(st, wait)
                        .unwrap_or_else(|e| e.into_inner());
                    st
                }
                None => self.timer.wait(st).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }

    /// The leader `me` takes job `id` and runs it.
    fn take<'a>(
        self: &'a Arc<Self>,
        mut st: MutexGuard<'a, State>,
        me: u64,
        id: u64,
        now: Instant,
    ) -> MutexGuard<'a, State> {
        st.queue.pop();
        let Some(q) = st.jobs.get_mut(&id) else {
            return st;
        };
        q.due = None;
        let job = Arc::clone(&q.job);
        st.leader = None;
        st.idle -= 1;
        if !st.queue.is_empty() && st.idle > 0 {
            self.followers.notify_one();
        }
        let check = now + job.deadline();
        st.running.insert(
            me,
            Running {
                job_id: id,
                job: Arc::clone(&job),
                started: now,
                check: Some(check),
                written_off: false,
            },
        );
        if st.armed.is_none_or(|a| a > check) {
            st.armed = Some(check);
            self.watchdog.notify_one();
        }
        self.waiting(&mut st, now);
        self.publish(&st);
        drop(st);
        let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run(now)))
            .unwrap_or_else(|_| {
                error!("a poll job panicked outside its own supervision; trying it again after its deadline");
                Instant::now() + job.deadline()
            });
        let mut st = self.lock();
        if st.running.remove(&me).is_some_and(|r| r.written_off) {
            st.written_off -= 1;
        }
        st.idle += 1;
        if let Some(q) = st.jobs.get_mut(&id) {
            q.due = Some(next);
            let earlier = st.queue.peek().is_none_or(|Reverse((d, _))| next < *d);
            st.queue.push(Reverse((next, id)));
            if earlier && st.leader.is_some() {
                self.timer.notify_one();
            }
        }
        self.publish(&st);
        st
    }

    /// A worker ends: no longer counted, and another idle one leads.
    fn end(&self, mut st: MutexGuard<'_, State>, me: u64) {
        st.workers -= 1;
        st.idle -= 1;
        if st.leader == Some(me) {
            st.leader = None;
            self.followers.notify_one();
        }
        self.publish(&st);
    }
}

mod watchdog;

#[cfg(test)]
mod tests;
