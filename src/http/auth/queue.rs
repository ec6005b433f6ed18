//! The bcrypt queue: at most [`RUNNING`] verifications at once and
//! [`WAITING`] waiting, served by rank (the failures in a row of the
//! connection asking) and then in arrival order. When the queue is full a
//! newcomer that ranks better than the worst waiter takes its place (that
//! waiter is told the server is busy); otherwise the newcomer is. So a
//! flood of wrong passwords, whose connections all have failures behind
//! them, keeps neither a fresh scraper waiting behind it nor itself
//! queued without bound.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// bcrypt verifications running at once.
pub const RUNNING: usize = 2;

/// Verifications waiting for one of the [`RUNNING`] slots.
pub const WAITING: usize = 16;

#[derive(Debug, Default)]
pub(crate) struct Queue {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    running: usize,
    /// (rank, arrival) → where to send the slot.
    waiting: BTreeMap<(u32, u64), oneshot::Sender<Slot>>,
    arrivals: u64,
}

/// The right to run one verification; handed to the next waiter when
/// dropped (on whatever thread ran the verification).
#[derive(Debug)]
pub(crate) struct Slot(Option<Arc<Queue>>);

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a slot; `None` if the queue is full of better-ranked
    /// waiters, or this one was pushed out by a better one.
    pub(crate) async fn enter(self: &Arc<Self>, rank: u32) -> Option<Slot> {
        let (key, rx) = {
            let mut s = self.lock();
            if s.running < RUNNING {
                s.running += 1;
                return Some(Slot(Some(Arc::clone(self))));
            }
            if s.waiting.len() >= WAITING {
                let worst = *s.waiting.keys().next_back()?;
                if worst.0 <= rank {
                    return None;
                }
                // Dropping its sender tells that waiter it is out.
                s.waiting.remove(&worst);
            }
            s.arrivals += 1;
            let key = (rank, s.arrivals);
            let (tx, rx) = oneshot::channel();
            s.waiting.insert(key, tx);
            (key, rx)
        };
        // A waiter that goes away (its connection closed) leaves the queue.
        let _leave = Leave(self, key);
        rx.await.ok()
    }
}

struct Leave<'a>(&'a Queue, (u32, u64));

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.lock().waiting.remove(&self.1);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Some(queue) = self.0.take() else { return };
        let mut s = queue.lock();
        while let Some((_, tx)) = s.waiting.pop_first() {
            // A waiter gone meanwhile gives the slot back (emptied, so its
            // drop does nothing); try the next.
            match tx.send(Slot(Some(Arc::clone(&queue)))) {
                Ok(()) => return,
                Err(mut slot) => drop(slot.0.take()),
            }
        }
        s.running -= 1;
    }
}

#[cfg(test)]
mod tests;
