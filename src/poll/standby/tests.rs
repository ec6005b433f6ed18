use super::*;

#[test]
fn after_n_skips_one_poll_is_made_then_n_more_skips() {
    let mut s = StandbySkips::new(3);
    let got: Vec<bool> = (0..8).map(|_| s.skip()).collect();
    assert_eq!(got, [true, true, true, false, true, true, true, false]);
}

#[test]
fn zero_never_forces_and_waking_starts_the_count_again() {
    let mut never = StandbySkips::new(0);
    assert!((0..10_000).all(|_| never.skip()));
    let mut s = StandbySkips::new(2);
    assert!(s.skip());
    s.awake();
    assert!(s.skip() && s.skip());
    assert!(!s.skip());
}
