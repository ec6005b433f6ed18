//! What holds a slot: a test someone else started, and the exporter's own
//! while its flag cannot be read; and what the schedule makes of a run
//! recorded in the future.

use super::*;

/// A poll of `device` whose flag's page failed: counted under its source,
/// the reading keeping the page's last good decode.
fn fail_flag_read(store: &Store, device: &str) {
    store.update(device, |s| {
        s.polls += 1;
        *s.errors.entry(Source::AtaSmart).or_default() += 1;
    });
}

#[test]
fn a_failed_read_of_the_flag_keeps_the_slot() {
    let rig = Rig::new(policy(1, true), None, &["sda", "sdb"]);
    let hooks = rig.due(&["sda", "sdb"]);
    let (mut pa, _) = fake(Ok(()));
    let (mut pb, sent_b) = fake(Ok(()));
    set_testing(&rig.store, "sda", false);
    hooks[0]("sda", &mut pa);
    set_testing(&rig.store, "sda", true);
    hooks[0]("sda", &mut pa);
    // The page fails; its last good decode (still "testing", or a stale
    // "not testing") says nothing of now.
    set_testing(&rig.store, "sda", false);
    rig.store.update("sda", |s| s.polls -= 1);
    fail_flag_read(&rig.store, "sda");
    rig.advance(DAY);
    hooks[0]("sda", &mut pa);
    hooks[1]("sdb", &mut pb);
    assert!(sent_b.lock().unwrap().is_empty(), "sdb started beside sda");
    assert_eq!(rig.tests.to_abort(), ["sda"]);
    // A read that works shows it over.
    set_testing(&rig.store, "sda", false);
    hooks[0]("sda", &mut pa);
    hooks[1]("sdb", &mut pb);
    assert_eq!(*sent_b.lock().unwrap(), [SelfTestOp::Short]);
}

#[test]
fn a_test_the_exporter_did_not_start_counts_and_is_never_aborted() {
    let rig = Rig::new(policy(1, true), None, &["sda", "sdb"]);
    let hooks = rig.due(&["sda", "sdb"]);
    let (mut pa, sent_a) = fake(Ok(()));
    let (mut pb, sent_b) = fake(Ok(()));
    // An operator's `smartctl -t long` on sda.
    set_testing(&rig.store, "sda", true);
    hooks[0]("sda", &mut pa);
    hooks[1]("sdb", &mut pb);
    assert!(
        sent_a.lock().unwrap().is_empty(),
        "sda tested over its own test"
    );
    assert!(
        sent_b.lock().unwrap().is_empty(),
        "sdb started beside sda's test"
    );
    assert!(
        rig.tests.to_abort().is_empty(),
        "someone else's test aborted"
    );
}

#[test]
fn a_run_remembered_in_the_future_does_not_block_the_schedule() {
    let store = store(&["sda"]);
    let memory = memory_of(&store, &["sda"]);
    let rig = Rig::over(policy(1, false), Some(memory.clone()), store.clone());
    // Saved while the clock ran ten years ahead of this host's.
    let ahead = rig.now() + 3650 * DAY;
    let started_ms = ahead.duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    let kind = SelfTestKind::Short;
    let id = store.get("sda").unwrap().identity.clone();
    memory.self_test_started(&id, SelfTestRun { started_ms, kind });
    let hook = rig.tests.cover("sda", None);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty(), "tested at once");
    rig.advance(DAY);
    set_testing(&rig.store, "sda", false);
    hook("sda", &mut p);
    assert_eq!(*sent.lock().unwrap(), [SelfTestOp::Short]);
}

#[test]
fn scheduled_tests_that_cannot_be_remembered_are_a_warning_at_start() {
    let on = policy(1, false);
    let warning = unremembered(&on, false).expect("a warning");
    assert!(warning.contains("each restart may test the drives again"));
    assert_eq!(unremembered(&on, true), None, "state saved");
    assert_eq!(unremembered(&Policy::default(), false), None, "no schedule");
}

#[test]
fn a_transport_not_in_selftest_transports_is_never_tested() {
    let mut nvme_only = policy(2, false);
    nvme_only.transports = vec![Transport::Nvme];
    // The rig's drives are SATA.
    let rig = Rig::new(nvme_only, None, &["sda"]);
    let hook = rig.due(&["sda"]).remove(0);
    let (mut p, sent) = fake(Ok(()));
    for _ in 0..3 {
        set_testing(&rig.store, "sda", false);
        hook("sda", &mut p);
        rig.advance(DAY);
    }
    assert!(sent.lock().unwrap().is_empty(), "sda tested");
    assert!(rig.store.get("sda").unwrap().self_tests.is_none(), "served");
}
