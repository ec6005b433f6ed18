//! The connection cap: which connections are open, which of them are in
//! the middle of a request, and which to close to make room.
//!
//! At the cap the server closes the oldest connection that is not in a
//! request — one that never completed a request first (a slow or silent
//! client, a stalled TLS handshake), then the oldest idle keep-alive one —
//! so a scraper always gets in however many idle sockets others hold. A
//! connection in a request is never closed for room; while every
//! connection is in one, new ones wait in the listen backlog.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// One connection's shared state.
#[derive(Debug, Default)]
pub(crate) struct Conn {
    /// Requests being handled now (HTTP/1.1 handles one at a time).
    in_request: AtomicUsize,
    /// Requests answered so far.
    served: AtomicU64,
    /// Notified to close the connection at once.
    pub(crate) evict: Notify,
}

/// Every open connection, by accept order.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    conns: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next: AtomicU64,
    /// Notified when a connection leaves a request or closes: the accept
    /// loop, waiting at the cap, looks again.
    pub(crate) changed: Notify,
}

impl Tracker {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a connection; it is removed when the returned guard drops.
    pub(crate) fn register(self: &Arc<Self>) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn::default());
        self.lock().insert(id, Arc::clone(&conn));
        Registered {
            tracker: Arc::clone(self),
            id,
            conn,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether some connection could be closed to make room.
    pub(crate) fn has_idle(&self) -> bool {
        self.lock()
            .values()
            .any(|c| c.in_request.load(Ordering::Acquire) == 0)
    }

    /// Closes the connection that most deserves it (see the module doc);
    /// false if every connection is in a request.
    pub(crate) fn evict_one(&self) -> bool {
        let mut conns = self.lock();
        let idle = |c: &Arc<Conn>| c.in_request.load(Ordering::Acquire) == 0;
        let never_served = conns
            .iter()
            .find(|(_, c)| idle(c) && c.served.load(Ordering::Acquire) == 0)
            .map(|(id, _)| *id);
        let victim =
            never_served.or_else(|| conns.iter().find(|(_, c)| idle(c)).map(|(id, _)| *id));
        match victim.and_then(|id| conns.remove(&id)) {
            Some(conn) => {
                conn.evict.notify_one();
                true
            }
            None => false,
        }
    }
}

/// A registered connection; dropping it unregisters it.
pub(crate) struct Registered {
    tracker: Arc<Tracker>,
    id: u64,
    pub(crate) conn: Arc<Conn>,
}

impl Registered {
    /// Marks the connection in a request until the guard drops.
    pub(crate) fn request(&self) -> InRequest {
        InRequest::new(Arc::clone(&self.tracker), Arc::clone(&self.conn))
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.tracker.lock().remove(&self.id);
        self.tracker.changed.notify_one();
    }
}

/// Held while a request is handled.
pub(crate) struct InRequest {
    tracker: Arc<Tracker>,
    conn: Arc<Conn>,
}

impl InRequest {
    fn new(tracker: Arc<Tracker>, conn: Arc<Conn>) -> Self {
        conn.in_request.fetch_add(1, Ordering::AcqRel);
        InRequest { tracker, conn }
    }
}

impl Drop for InRequest {
    fn drop(&mut self) {
        self.conn.served.fetch_add(1, Ordering::AcqRel);
        self.conn.in_request.fetch_sub(1, Ordering::AcqRel);
        self.tracker.changed.notify_one();
    }
}

#[cfg(test)]
mod tests;
