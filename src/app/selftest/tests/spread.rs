//! Issue 33: first runs spread over the interval.

use super::*;

/// A fresh state file: a drive the exporter has no run of is not tested
/// at its first poll but at its place in the interval, which the log
/// names, and a restart without the memory keeps that place.
#[test]
fn a_drive_never_tested_waits_for_its_place_in_the_interval() {
    let rig = Rig::new(policy(4, false), None, &["sda"]);
    let hook = rig.tests.cover("sda", None);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty(), "tested at the first poll");
    let place = crate::poll::selftest::place("SERIAL0");
    let at = rig
        .tests
        .policy()
        .first_run(Kind::Short, place, rig.now())
        .unwrap();
    assert!(at < rig.now() + DAY);
    // Just before its place: not yet.
    *rig.now.lock().unwrap() = at - Duration::from_millis(1);
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty(), "tested before its place");
    *rig.now.lock().unwrap() = at;
    hook("sda", &mut p);
    assert_eq!(*sent.lock().unwrap(), [SelfTestOp::Short]);
}
