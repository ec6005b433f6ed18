//! The pool's watchdog: it looks at each run at its deadline (and when
//! the run asks again), and starts workers while work waits behind
//! stalled runs.

use std::cmp::Reverse;
use std::sync::{Arc, MutexGuard};
use std::time::Instant;

use tracing::error;

use super::{Job, Running, STALL, Shared, State, Watched};

impl State {
    /// Jobs due by `now` and not taken, counted up to `most`.
    fn waiting(&self, now: Instant, most: usize) -> usize {
        self.queue
            .iter()
            .filter(|Reverse((due, id))| {
                *due <= now && self.jobs.get(id).is_some_and(|q| q.due == Some(*due))
            })
            .take(most)
            .count()
    }

    /// Runs not written off, younger than [`STALL`] and older.
    fn fresh_and_stalled(&self, now: Instant) -> (usize, usize) {
        let live = self.running.values().filter(|r| !r.written_off);
        let fresh = live
            .clone()
            .filter(|r| now.saturating_duration_since(r.started) < STALL)
            .count();
        (fresh, live.count() - fresh)
    }

    /// Workers to start at `now`: see the module doc.
    pub(super) fn to_start(&self, now: Instant, core: usize) -> usize {
        if self.idle > 0 {
            return 0;
        }
        let (fresh, stalled) = self.fresh_and_stalled(now);
        if fresh >= core {
            return 0;
        }
        // Every run stalled: as many again (the next drives may hang too).
        let want = match fresh {
            0 => stalled.max(core),
            _ => core - fresh,
        };
        self.waiting(now, want)
    }

    /// When the watchdog must look again: the next check of a run, and,
    /// while work waits or will with no worker idle, when it comes due or
    /// when the youngest of the runs it waits behind stalls.
    fn next_look(&self, now: Instant, core: usize) -> Option<Instant> {
        let checks = self.running.values().filter_map(|r| r.check).min();
        let waits = match (self.idle, self.queue.peek()) {
            (0, Some(&Reverse((due, _)))) if due > now => Some(due),
            (0, Some(_)) => {
                let (fresh, _) = self.fresh_and_stalled(now);
                match fresh >= core {
                    true => self
                        .running
                        .values()
                        .filter(|r| !r.written_off)
                        .map(|r| r.started + STALL)
                        .filter(|&t| t > now)
                        .min(),
                    // Starting workers failed: try again in a while.
                    false => Some(now + STALL),
                }
            }
            _ => None,
        };
        checks.into_iter().chain(waits).min()
    }
}

/// A run the watchdog looks at: its worker, which run it is (job and
/// start), and its job.
type Look = (u64, (u64, Instant), Arc<dyn Job>);

impl Shared {
    /// Runs until the pool is dropped.
    pub(super) fn watchdog(self: Arc<Self>) {
        let mut st = self.lock();
        loop {
            if st.stop {
                return;
            }
            let now = Instant::now();
            let due: Vec<Look> = st
                .running
                .iter()
                .filter(|(_, r)| r.check.is_some_and(|c| c <= now))
                .map(|(&w, r)| (w, (r.job_id, r.started), Arc::clone(&r.job)))
                .collect();
            if !due.is_empty() {
                drop(st);
                st = self.look_at(due, now);
                continue;
            }
            // A stale head would look like work waiting.
            st.next_due();
            let start = st.to_start(now, self.core);
            if start > 0 {
                self.spawn(&mut st, start);
                self.publish(&st);
            }
            st.armed = st.next_look(now, self.core);
            st = match st.armed {
                Some(at) => {
                    let wait = at.saturating_duration_since(now);
                    let woken = self.watchdog.wait_timeout(st, wait);
                    woken.unwrap_or_else(|e| e.into_inner()).0
                }
                None => self.watchdog.wait(st).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }

    /// Asks each job of `due` about its run (the pool unlocked meanwhile:
    /// a job updates its drive's snapshot), and writes off the workers of
    /// those that overran.
    fn look_at(&self, due: Vec<Look>, now: Instant) -> MutexGuard<'_, State> {
        let seen: Vec<_> = due
            .into_iter()
            .map(|(w, run, job)| (w, run, watched(job.as_ref(), now)))
            .collect();
        let mut st = self.lock();
        for (w, run, found) in seen {
            let same = |r: &&mut Running| (r.job_id, r.started) == run;
            let Some(r) = st.running.get_mut(&w).filter(same) else {
                continue;
            };
            r.check = found.next;
            let newly = found.overran && !r.written_off;
            r.written_off |= found.overran;
            st.written_off += usize::from(newly);
        }
        self.publish(&st);
        st
    }
}

/// [`Job::watch`], with a panic taken as "look again after the deadline".
fn watched(job: &dyn Job, now: Instant) -> Watched {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.watch(now))).unwrap_or_else(|_| {
        error!("a poll job's watchdog check panicked; looking again after its deadline");
        Watched {
            overran: false,
            next: Some(now + job.deadline()),
        }
    })
}
