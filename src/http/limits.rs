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
//! waits, so a flood of wrong passwords cannot pin the cap. One that has
//! failed before on this connection (a wrong password, or a strike for a
//! full bcrypt queue) has shown it does not hold the password: it goes
//! first of all, the most failures in a row first. (Ranked last, such
//! waiters outlived every fresh connection, so a verified scraper's new
//! connection was closed, before it had sent its request, in 1 of 12
//! tries under a flood of 200 against a cap of 100.) One waiting with no
//! failure behind it (a scraper's first scrape) goes last, the one that
//! started waiting last first (the longest waiting is next in the queue).
//!
//! Every second a sweep closes a connection whose oldest response has not
//! been handed over in full for [`Timeouts::send`] (an HTTP/2 peer that
//! keeps its flow-control window at zero, an HTTP/1 one that stops
//! reading), and an HTTP/2 connection with no request or response for
//! [`Timeouts::idle`] (HTTP/1's idle limit is hyper's header timeout).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::timeouts::Timeouts;

mod guards;
#[cfg(test)]
use guards::Waiting;
pub(crate) use guards::{InRequest, Registered, Sending};

/// A connection's place in the order of closing for room: class, then
/// two keys within it, lowest first ([`Conn::eviction_order`]).
type Order = (u8, i64, i64);

/// The classes of [`Order`], closed first to last.
const FAILED: u8 = 0;
const NEVER_SERVED: u8 = 1;
const IDLE: u8 = 2;
const WAITING: u8 = 3;

/// How long a connection whose task has not run yet is spared (see
/// [`Tracker::can_evict`]).
const UNPOLLED: Duration = Duration::from_millis(50);

/// How many picks for room may turn out to be connections with unread
/// bytes before the next is taken as it is.
const PICKS: usize = 8;

/// One connection's shared state.
#[derive(Debug)]
pub(crate) struct Conn {
    accepted: Instant,
    /// Requests being handled now (HTTP/1.1 handles one at a time).
    in_request: AtomicUsize,
    /// Of those, requests stepped out to wait for bcrypt.
    waiting: AtomicUsize,
    /// Requests answered so far.
    served: AtomicU64,
    /// Milliseconds after `accepted` of the last read that brought bytes.
    read_ms: AtomicU64,
    /// Its task has tried to read: it has had its chance to show life.
    polled: AtomicBool,
    /// The last bytes went from the client to the server, not back: the
    /// server owes the next move (a TLS handshake it is still computing).
    owed: AtomicBool,
    /// Its socket (-1: none, in tests), asked whether the kernel holds
    /// bytes from the client not read yet. (The descriptor may be reused
    /// between the socket's close and this entry's removal: that asks the
    /// wrong socket once, which only misranks.)
    fd: AtomicI32,
    /// Milliseconds after `accepted` when the connection last fell quiet
    /// (accepted, a request answered, a response handed over).
    quiet_ms: AtomicU64,
    /// Responses not yet handed over in full: when each was made, and
    /// whether it holds a `web.max_requests` slot.
    sending: Mutex<BTreeMap<u64, (Instant, bool)>>,
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
            waiting: AtomicUsize::new(0),
            served: AtomicU64::new(0),
            read_ms: AtomicU64::new(0),
            polled: AtomicBool::new(false),
            owed: AtomicBool::new(false),
            fd: AtomicI32::new(-1),
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

    /// Its task tried to read (whether or not bytes came).
    pub(crate) fn note_polled(&self) {
        self.polled.store(true, Ordering::Relaxed);
    }

    /// A read brought bytes at `now`.
    pub(crate) fn note_read(&self, now: Instant) {
        self.polled.store(true, Ordering::Relaxed);
        self.owed.store(true, Ordering::Relaxed);
        self.read_ms.store(self.since(now), Ordering::Relaxed);
    }

    /// Its socket, for [`Tracker`] to ask about unread bytes.
    pub(crate) fn set_fd(&self, fd: std::os::fd::RawFd) {
        self.fd.store(fd, Ordering::Relaxed);
    }

    /// Bytes from the client wait unread (its task has not run since they
    /// came): the server owes it a read. Noted as owed if so.
    fn unread(&self) -> bool {
        let fd = self.fd.load(Ordering::Relaxed);
        let unread = fd >= 0 && crate::sys::socket::unread_bytes(fd) > 0;
        if unread {
            self.owed.store(true, Ordering::Relaxed);
        }
        unread
    }

    /// A write took bytes: the next move is the client's.
    pub(crate) fn note_wrote(&self) {
        self.owed.store(false, Ordering::Relaxed);
    }

    fn sending(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, (Instant, bool)>> {
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

    /// When the oldest response still being sent was made; with `slot`,
    /// the oldest of those holding a `web.max_requests` slot.
    fn oldest_send(&self, slot: bool) -> Option<Instant> {
        let sending = self.sending();
        let mut held = sending.values().filter(|(_, holds)| *holds || !slot);
        held.next().map(|(since, _)| *since)
    }

    /// The order of closing for room, lowest first (see the module doc):
    /// waiting for bcrypt after a failure, most failures first; never
    /// served — waiting on its client before one the server owes an
    /// answer, one whose task has not yet run last, each quiet longest
    /// first — then idle keep-alive, owed last, quiet longest first; then
    /// waiting for bcrypt with no failure, last to start waiting first.
    fn eviction_order(&self, now: Instant) -> Order {
        let quiet = now.saturating_duration_since(self.active()).as_micros() as i64;
        if self.waiting.load(Ordering::Acquire) > 0 {
            let failures = i64::from(self.auth_failures.load(Ordering::Relaxed));
            if failures > 0 {
                return (FAILED, -failures, quiet);
            }
            return (WAITING, 0, quiet);
        }
        let owed = i64::from(self.owed.load(Ordering::Relaxed));
        if self.served.load(Ordering::Acquire) > 0 {
            return (IDLE, owed, -quiet);
        }
        // A connection whose task has not run yet goes last. (Closing the
        // silent ones first was tried: on a busy machine a client may send
        // its ClientHello tens of milliseconds after connecting, and it
        // closed 2 of 100 of them.) Before it, one whose last bytes the
        // server has not answered: a busy server computing a handshake
        // made its own client look quiet, and closed it (58 of 1,000 under
        // a flood of 760 connections/s).
        let turn = if self.polled.load(Ordering::Relaxed) {
            owed
        } else {
            2
        };
        (NEVER_SERVED, turn, -quiet)
    }

    /// Not yet polled by its task and accepted under [`UNPOLLED`] ago: in
    /// a burst of accepts, a client that has not been read once has had no
    /// chance to show it is alive.
    fn unheard_of(&self, now: Instant) -> bool {
        !self.polled.load(Ordering::Relaxed)
            && now.saturating_duration_since(self.accepted) < UNPOLLED
    }

    /// Whether a timer has run out at `now` (see the module doc).
    fn expired(&self, now: Instant, t: &Timeouts) -> bool {
        if let Some(oldest) = self.oldest_send(false) {
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

    /// [`Tracker::victim`], asking the kernel about the one picked: a
    /// connection whose client's bytes wait unread looks as quiet as a
    /// silent one (it is not: the server owes it), so it is ranked as owed
    /// and the pick made again, a bounded number of times.
    fn pick(
        conns: &BTreeMap<u64, Arc<Conn>>,
        now: Instant,
        grace: Duration,
    ) -> Option<(u64, &Arc<Conn>)> {
        for _ in 0..PICKS {
            let (id, conn) = Self::victim(conns, now, grace)?;
            let order = conn.eviction_order(now);
            let waits = order.0 == FAILED || order.0 == WAITING;
            if waits || order.1 != 0 || !conn.unread() {
                return Some((id, conn));
            }
        }
        Self::victim(conns, now, grace)
    }

    /// The connection that most deserves closing for room (see the
    /// module doc); `None` if every connection is in a request.
    fn victim(
        conns: &BTreeMap<u64, Arc<Conn>>,
        now: Instant,
        grace: Duration,
    ) -> Option<(u64, &Arc<Conn>)> {
        let old = |c: &Conn| now.saturating_duration_since(c.accepted) >= grace;
        // The class closed first (never served, idle, waiting for bcrypt),
        // and within it the young are spared while an older one can go:
        // a scraper's long-lived keep-alive connection is not the "older
        // one" a flood of young never-served connections would spare.
        let candidates: Vec<(u64, &Arc<Conn>, Order)> = conns
            .iter()
            .filter(|(_, c)| c.idle())
            .map(|(id, c)| (*id, c, c.eviction_order(now)))
            .collect();
        let class = candidates.iter().map(|(_, _, o)| o.0).min()?;
        let in_class = || candidates.iter().filter(move |(_, _, o)| o.0 == class);
        let spare_young = in_class().any(|(_, c, _)| old(c));
        in_class()
            .filter(|(_, c, _)| old(c) || !spare_young)
            .min_by_key(|(id, _, o)| (*o, *id))
            .map(|(id, c, _)| (*id, *c))
    }

    /// Whether a connection can be closed for room now. False also when the
    /// best candidate is one whose task has not run yet (a burst of
    /// accepts on a busy machine): the accept loop then waits a moment for
    /// the tasks to run instead of closing clients it has not read once.
    pub(crate) fn can_evict(&self, now: Instant, grace: Duration) -> bool {
        let conns = self.lock();
        Self::pick(&conns, now, grace).is_some_and(|(_, c)| !c.unheard_of(now))
    }

    /// Closes the connection that most deserves it (see the module doc);
    /// false if every connection is in a request.
    pub(crate) fn evict_one(&self, now: Instant, grace: Duration) -> bool {
        let mut conns = self.lock();
        let victim = Self::pick(&conns, now, grace).map(|(id, _)| id);
        victim.is_some_and(|id| Self::close(&mut conns, id))
    }

    /// Closes the connection whose oldest response holding a request slot
    /// has waited longest for its peer, if that is at least `stall`: at the
    /// request cap, what frees the slots a peer that does not read holds.
    pub(crate) fn evict_stalled(&self, now: Instant, stall: Duration) -> bool {
        let mut conns = self.lock();
        let victim = conns
            .iter()
            .filter_map(|(id, c)| Some((*id, c.oldest_send(true)?)))
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

#[cfg(test)]
mod tests;
