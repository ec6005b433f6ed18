use super::*;

const GRACE: Duration = Duration::from_secs(1);

fn open(t: &Tracker, id: u64) -> bool {
    t.lock().contains_key(&id)
}

#[test]
fn evicts_never_served_first_then_oldest_idle_never_busy() {
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    let a = t.register(t0); // served once, now idle (keep-alive)
    drop(a.request());
    let b = t.register(t0); // in a request
    let _busy = b.request();
    let c = t.register(t0); // silent
    assert_eq!(t.len(), 3);
    let later = t0 + Duration::from_secs(5);
    assert!(t.evict_one(later, GRACE));
    assert_eq!(t.len(), 2);
    // c went first although a is older.
    assert!(open(&t, a.id) && !open(&t, c.id));
    assert!(t.evict_one(later, GRACE));
    assert!(!open(&t, a.id));
    assert!(
        !t.evict_one(later, GRACE),
        "evicted a connection in a request"
    );
    assert!(!t.has_idle());
    drop(c);
    drop(a);
    assert_eq!(t.len(), 1);
}

/// The flood: 760 new connections a second that never send a byte,
/// a cap of 32, and one legitimate TLS client whose handshake takes 80 ms
/// (reading a flight every 8 ms). Closing the oldest never-served
/// connection closed it after 32 arrivals (42 ms), mid-handshake; closing
/// the one quiet longest never picks it.
#[test]
fn a_flood_of_silent_connections_does_not_close_a_client_making_progress() {
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    let step = Duration::from_micros(1316);
    let mut held = Vec::new();
    let mut legit = None;
    for i in 0..400u32 {
        let now = t0 + step * i;
        if t.len() >= 32 {
            assert!(t.evict_one(now, GRACE));
        }
        let r = t.register(now);
        if i == 100 {
            legit = Some(r);
            continue;
        }
        held.push(r);
        if let Some(l) = legit.as_ref().filter(|_| i > 100 && i <= 160) {
            if (i - 100) % 6 == 0 {
                l.conn.note_read(now);
            }
            assert!(open(&t, l.id), "closed mid-handshake at arrival {i}");
        }
    }
    // Once it goes quiet it is fair game again.
    assert!(!open(&t, legit.unwrap().id));
}

#[test]
fn a_connection_younger_than_the_grace_is_spared_while_an_older_one_can_go() {
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    // Older, but active a moment ago (a slow client trickling bytes).
    let old = t.register(t0);
    let young = t.register(t0 + Duration::from_millis(1500));
    let now = t0 + Duration::from_millis(1600);
    old.conn.note_read(now);
    assert!(t.evict_one(now, GRACE));
    assert!(open(&t, young.id) && !open(&t, old.id));
    // With no older candidate, a young one can go.
    assert!(t.evict_one(now, GRACE));
    assert_eq!(t.len(), 0);
}

#[test]
fn a_response_stuck_past_the_send_timeout_closes_its_connection() {
    let timeouts = Timeouts::default();
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    let stuck = t.register(t0);
    let sending = stuck.sending();
    let made = *stuck.conn.sending().values().next().unwrap();
    let fine = t.register(t0);
    assert_eq!(t.sweep(made + timeouts.send / 2, &timeouts), 0);
    assert_eq!(t.sweep(made + timeouts.send, &timeouts), 1);
    assert!(!open(&t, stuck.id) && open(&t, fine.id));
    drop(sending);
}

#[test]
fn an_idle_http2_connection_closes_after_the_idle_limit_an_http1_one_is_hypers() {
    let timeouts = Timeouts::default();
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    let h2 = t.register(t0);
    h2.conn.h2.store(true, Ordering::Relaxed);
    let h1 = t.register(t0);
    // A PING answered is a read, not a request: it keeps nothing open.
    h2.conn.note_read(t0 + timeouts.idle / 2);
    let busy = h2.request();
    assert_eq!(
        t.sweep(t0 + timeouts.idle * 2, &timeouts),
        0,
        "closed in a request"
    );
    drop(busy);
    let quiet = Instant::now();
    assert_eq!(t.sweep(quiet + timeouts.idle / 2, &timeouts), 0);
    assert_eq!(t.sweep(quiet + timeouts.idle, &timeouts), 1);
    assert!(!open(&t, h2.id) && open(&t, h1.id));
}

#[test]
fn at_the_request_cap_the_connection_stuck_longest_gives_way() {
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    let a = t.register(t0);
    let b = t.register(t0);
    let _b_sends = b.sending();
    let _a_sends = a.sending();
    let stall = Duration::from_secs(2);
    assert!(
        !t.evict_stalled(Instant::now(), stall),
        "nothing has stalled yet"
    );
    assert!(t.evict_stalled(Instant::now() + stall, stall));
    assert!(open(&t, a.id) && !open(&t, b.id));
}

#[test]
fn waiting_for_bcrypt_makes_a_connection_evictable() {
    let t = Arc::new(Tracker::default());
    let t0 = Instant::now();
    let r = t.register(t0);
    let busy = r.request();
    assert!(!t.has_idle());
    let waiting = busy.waiting();
    assert!(t.has_idle());
    drop(waiting);
    assert!(!t.has_idle());
    drop(busy);
}
