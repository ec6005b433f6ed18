use super::*;

#[test]
fn polls_one_and_eleven_refresh_at_the_live_rate() {
    let mut r = Refresh::every(LIVE_EVERY);
    let due: Vec<usize> = (1..=21).filter(|_| r.due(true)).collect();
    assert_eq!(due, [1, 11, 21]);
}

#[test]
fn a_poll_without_identity_always_refreshes_and_reset_starts_over() {
    let mut r = Refresh::every(10);
    assert!(r.due(false) && r.due(false) && !r.due(true));
    r.reset();
    assert!(r.due(true));
    let mut each = Refresh::every(0);
    assert!(each.due(true) && each.due(true));
}
