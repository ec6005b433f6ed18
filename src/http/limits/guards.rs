//! The guards a connection's task holds: the connection registered, a
//! request in progress, a wait for bcrypt, a response being sent. Each
//! notes its state on the connection's [`Conn`] and undoes it when dropped.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{Conn, Tracker};

/// A registered connection; dropping it unregisters it.
pub(crate) struct Registered {
    pub(super) tracker: Arc<Tracker>,
    pub(super) id: u64,
    pub(crate) conn: Arc<Conn>,
}

impl Registered {
    /// Marks the connection in a request until the guard drops.
    pub(crate) fn request(&self) -> InRequest {
        self.conn.in_request.fetch_add(1, Ordering::AcqRel);
        InRequest {
            tracker: Arc::clone(&self.tracker),
            conn: Arc::clone(&self.conn),
        }
    }

    /// Marks a response as being sent until the guard drops (with the
    /// response's body, once it is handed over in full or abandoned);
    /// `slot`: it holds a `web.max_requests` slot.
    pub(crate) fn sending(&self, slot: bool) -> Sending {
        let id = self.conn.next_send.fetch_add(1, Ordering::Relaxed);
        self.conn.sending().insert(id, (Instant::now(), slot));
        Sending {
            tracker: Arc::clone(&self.tracker),
            conn: Arc::clone(&self.conn),
            id,
        }
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
    /// An `InRequest` on a connection of its own (tests calling the
    /// handler directly).
    #[cfg(test)]
    pub(crate) fn detached() -> Self {
        Arc::new(Tracker::default())
            .register(Instant::now())
            .request()
    }

    pub(crate) fn conn(&self) -> &Conn {
        &self.conn
    }

    /// While the returned guard lives the request does not count as one
    /// (the connection may be closed for room): a wait for bcrypt.
    pub(crate) fn waiting(&self) -> Waiting<'_> {
        self.conn.waiting.fetch_add(1, Ordering::AcqRel);
        self.conn.in_request.fetch_sub(1, Ordering::AcqRel);
        self.tracker.changed.notify_one();
        Waiting(self)
    }
}

impl Drop for InRequest {
    fn drop(&mut self) {
        let now = Instant::now();
        self.conn
            .quiet_ms
            .store(self.conn.since(now), Ordering::Relaxed);
        self.conn.served.fetch_add(1, Ordering::AcqRel);
        self.conn.in_request.fetch_sub(1, Ordering::AcqRel);
        self.tracker.changed.notify_one();
    }
}

/// See [`InRequest::waiting`].
pub(crate) struct Waiting<'a>(&'a InRequest);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.conn.in_request.fetch_add(1, Ordering::AcqRel);
        self.0.conn.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Held by a response body until it is handed over in full or dropped.
pub(crate) struct Sending {
    tracker: Arc<Tracker>,
    conn: Arc<Conn>,
    id: u64,
}

impl Drop for Sending {
    fn drop(&mut self) {
        self.conn.sending().remove(&self.id);
        let now = Instant::now();
        self.conn
            .quiet_ms
            .store(self.conn.since(now), Ordering::Relaxed);
        self.tracker.changed.notify_one();
    }
}
