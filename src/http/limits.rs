//! The connection cap and the clocks every connection runs on: which
//! connections are open, which are in the middle of a request or still
//! sending a response, and which to close — for room, or because a timer
//! ran out.
//!
//! At the cap the server closes a connection that is not in a request:
//! one that never completed a request (a slow or silent client, a stalled
//! TLS handshake) before an idle keep-alive one, and among them the one
//! quiet longest (no byte read, no response finished). A connection younger
//! than [`Timeouts::grace`] is spared while an older one can go, so a flood
//! of new connections does not close a scraper's in the middle of its TLS
//! handshake. A connection in a request is never closed for room; while
//! every connection is in one, new ones wait in the listen backlog. A
//! connection waiting for bcrypt (`auth`) is not "in a request" while it
//! waits: a flood of wrong passwords cannot pin the cap.
//!
//! Every second a sweep closes a connection whose oldest response has not
//! been handed over in full for [`Timeouts::send`] (an HTTP/2 peer that
//! keeps its flow-control window at zero, an HTTP/1 one that stops
//! reading), and an HTTP/2 connection with no request or response for
//! [`Timeouts::idle`] (HTTP/1's idle limit is hyper's header timeout).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// How long a connection may stay in each state. [`Timeouts::default`] is
/// what the exporter runs with; tests shorten them.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// With no request or response: an HTTP/1 connection waiting for the
    /// next request's headers, an HTTP/2 connection with no stream. Longer
    /// than a scrape interval, so a scraper's keep-alive connection lasts.
    pub idle: Duration,
    /// A response not handed over in full after this is abandoned with its
    /// connection. Longer than any scrape timeout (at most the interval).
    pub send: Duration,
    /// A TLS client must finish its handshake within this.
    pub handshake: Duration,
    /// HTTP/2: a PING after this long without a frame from the peer…
    pub ping_interval: Duration,
    /// …and the connection closed if its answer takes longer than this.
    pub ping_timeout: Duration,
    /// Spared from eviction for room while older candidates exist.
    pub grace: Duration,
    /// At the request cap, a connection whose response has waited this
    /// long for the peer is closed to make room for a new request.
    pub stall: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            idle: Duration::from_secs(180),
            send: Duration::from_secs(60),
            handshake: Duration::from_secs(10),
            ping_interval: Duration::from_secs(60),
            ping_timeout: Duration::from_secs(20),
            grace: Duration::from_secs(1),
            stall: Duration::from_secs(2),
        }
    }
}

impl Timeouts {
    /// How often the sweep looks: a second, or less if a timer is shorter.
    pub(crate) fn tick(&self) -> Duration {
        (self.send.min(self.idle) / 4).clamp(Duration::from_millis(5), Duration::from_secs(1))
    }
}

/// One connection's shared state.
#[derive(Debug)]
pub(crate) struct Conn {
    accepted: Instant,
    /// Requests being handled now (HTTP/1.1 handles one at a time).
    in_request: AtomicUsize,
    /// Requests answered so far.
    served: AtomicU64,
    /// Milliseconds after `accepted` of the last read that brought bytes.
    read_ms: AtomicU64,
    /// Milliseconds after `accepted` when the connection last fell quiet
    /// (accepted, a request answered, a response handed over).
    quiet_ms: AtomicU64,
    /// Responses not yet handed over in full: when each was made.
    sending: Mutex<BTreeMap<u64, Instant>>,
    next_send: AtomicU64,
    /// HTTP/2: its idle limit is the sweep's to enforce.
    pub(crate) h2: AtomicBool,
    /// Failed basic-auth verifications in a row (their back-off).
    pub(crate) auth_failures: AtomicU32,
    /// Notified to close the connection at once.
    pub(crate) evict: Notify,
}

impl Conn {
    fn new(now: Instant) -> Self {
        Conn {
            accepted: now,
            in_request: AtomicUsize::new(0),
            served: AtomicU64::new(0),
            read_ms: AtomicU64::new(0),
            quiet_ms: AtomicU64::new(0),
            sending: Mutex::new(BTreeMap::new()),
            next_send: AtomicU64::new(0),
            h2: AtomicBool::new(false),
            auth_failures: AtomicU32::new(0),
            evict: Notify::new(),
        }
    }

    fn since(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.accepted).as_millis() as u64
    }

    /// A read brought bytes at `now`.
    pub(crate) fn note_read(&self, now: Instant) {
        self.read_ms.store(self.since(now), Ordering::Relaxed);
    }

    fn sending(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Instant>> {
        self.sending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn idle(&self) -> bool {
        self.in_request.load(Ordering::Acquire) == 0
    }

    /// The last sign of life: a byte read or a response finished.
    fn active(&self) -> Instant {
        let ms = self
            .read_ms
            .load(Ordering::Relaxed)
            .max(self.quiet_ms.load(Ordering::Relaxed));
        self.accepted + Duration::from_millis(ms)
    }

    /// When the oldest response still being sent was made.
    fn oldest_send(&self) -> Option<Instant> {
        self.sending().values().next().copied()
    }

    /// Whether a timer has run out at `now` (see the module doc).
    fn expired(&self, now: Instant, t: &Timeouts) -> bool {
        if let Some(oldest) = self.oldest_send() {
            return now.saturating_duration_since(oldest) >= t.send;
        }
        let quiet = self.accepted + Duration::from_millis(self.quiet_ms.load(Ordering::Relaxed));
        self.h2.load(Ordering::Relaxed)
            && self.idle()
            && now.saturating_duration_since(quiet) >= t.idle
    }
}

/// Every open connection, by accept order.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    conns: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next: AtomicU64,
    /// Notified when a connection leaves a request, finishes a response or
    /// closes: the accept loop, waiting at the cap, looks again.
    pub(crate) changed: Notify,
}

impl Tracker {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a connection accepted at `now`; it is removed when the returned
    /// guard drops.
    pub(crate) fn register(self: &Arc<Self>, now: Instant) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn::new(now));
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
        self.lock().values().any(|c| c.idle())
    }

    fn close(conns: &mut BTreeMap<u64, Arc<Conn>>, id: u64) -> bool {
        match conns.remove(&id) {
            Some(conn) => {
                conn.evict.notify_one();
                true
            }
            None => false,
        }
    }

    /// Closes the connection that most deserves it (see the module doc);
    /// false if every connection is in a request.
    pub(crate) fn evict_one(&self, now: Instant, grace: Duration) -> bool {
        let mut conns = self.lock();
        let old = |c: &Conn| now.saturating_duration_since(c.accepted) >= grace;
        let spare_young = conns.values().any(|c| c.idle() && old(c));
        let victim = conns
            .iter()
            .filter(|(_, c)| c.idle() && (old(c) || !spare_young))
            .min_by_key(|(_, c)| (c.served.load(Ordering::Acquire) > 0, c.active()))
            .map(|(id, _)| *id);
        victim.is_some_and(|id| Self::close(&mut conns, id))
    }

    /// Closes the connection whose oldest response has waited longest for
    /// its peer, if that is at least `stall`: at the request cap, what
    /// frees the requests a peer that does not read holds.
    pub(crate) fn evict_stalled(&self, now: Instant, stall: Duration) -> bool {
        let mut conns = self.lock();
        let victim = conns
            .iter()
            .filter_map(|(id, c)| Some((*id, c.oldest_send()?)))
            .filter(|(_, since)| now.saturating_duration_since(*since) >= stall)
            .min_by_key(|(_, since)| *since)
            .map(|(id, _)| id);
        victim.is_some_and(|id| Self::close(&mut conns, id))
    }

    /// Closes every connection whose send or idle timer ran out; returns
    /// how many.
    pub(crate) fn sweep(&self, now: Instant, t: &Timeouts) -> usize {
        let mut conns = self.lock();
        let expired: Vec<u64> = conns
            .iter()
            .filter(|(_, c)| c.expired(now, t))
            .map(|(id, _)| *id)
            .collect();
        expired
            .into_iter()
            .filter(|id| Self::close(&mut conns, *id))
            .count()
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
        self.conn.in_request.fetch_add(1, Ordering::AcqRel);
        InRequest {
            tracker: Arc::clone(&self.tracker),
            conn: Arc::clone(&self.conn),
        }
    }

    /// Marks a response as being sent until the guard drops (with the
    /// response's body, once it is handed over in full or abandoned).
    pub(crate) fn sending(&self) -> Sending {
        let id = self.conn.next_send.fetch_add(1, Ordering::Relaxed);
        self.conn.sending().insert(id, Instant::now());
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

#[cfg(test)]
mod tests;
