use super::*;

#[test]
fn evicts_never_served_first_then_oldest_idle_never_busy() {
    let t = Arc::new(Tracker::default());
    let a = t.register(); // served once, now idle (keep-alive)
    drop(a.request());
    let b = t.register(); // in a request
    let _busy = b.request();
    let c = t.register(); // silent
    assert_eq!(t.len(), 3);
    assert!(t.evict_one());
    assert_eq!(t.len(), 2);
    // c went first although a is older.
    assert!(t.lock().contains_key(&a.id) && !t.lock().contains_key(&c.id));
    assert!(t.evict_one());
    assert!(!t.lock().contains_key(&a.id));
    assert!(!t.evict_one(), "evicted a connection in a request");
    assert!(!t.has_idle());
    drop(c);
    drop(a);
    assert_eq!(t.len(), 1);
}
