use super::*;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z
const HOUR: u64 = 3600;

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

fn media(n: u128) -> Reading {
    let mut r = Reading::default();
    r.counters.media_errors = Some(n);
    r
}

#[test]
fn a_static_count_never_increases() {
    let mut h = History::new(None);
    for i in 0..=24 {
        h.record(at(T0 + i * HOUR), &media(23));
    }
    assert_eq!(h.increase(Tracked::MediaErrors), Some(0));
}

#[test]
fn a_rise_is_counted_from_the_first_value_seen() {
    let mut h = History::new(None);
    h.record(at(T0), &media(23));
    h.record(at(T0 + HOUR), &media(23));
    h.record(at(T0 + 2 * HOUR), &media(24));
    h.record(at(T0 + 3 * HOUR), &media(26));
    assert_eq!(h.increase_since(Tracked::MediaErrors), Some((3, at(T0))));
}

#[test]
fn never_reported_is_none_not_zero() {
    let mut h = History::new(None);
    h.record(at(T0), &media(1));
    assert_eq!(h.increase(Tracked::CrcErrors), None);
    assert_eq!(h.increase(Tracked::ThrottleEvents), None);
    assert_eq!(h.last_throttle(), None);
    assert_eq!(h.wear_span(), None);
}

#[test]
fn a_drop_is_a_reset_and_adds_nothing() {
    let mut h = History::new(None);
    for (i, n) in [10, 12, 0, 1].into_iter().enumerate() {
        h.record(at(T0 + i as u64 * HOUR), &media(n));
    }
    // +2, reset, +1.
    assert_eq!(h.increase(Tracked::MediaErrors), Some(3));
}

#[test]
fn a_window_forgets_old_rises() {
    let mut h = History::new(Some(Duration::from_secs(24 * HOUR)));
    h.record(at(T0), &media(23));
    h.record(at(T0 + HOUR), &media(24));
    h.record(at(T0 + 24 * HOUR), &media(24));
    // The rise at T0+1h is still inside the day that ends at T0+24h.
    assert_eq!(h.increase_since(Tracked::MediaErrors), Some((1, at(T0))));
    h.record(at(T0 + 26 * HOUR), &media(24));
    assert_eq!(
        h.increase_since(Tracked::MediaErrors),
        Some((0, at(T0 + 2 * HOUR)))
    );
    h.record(at(T0 + 27 * HOUR), &media(25));
    assert_eq!(h.increase(Tracked::MediaErrors), Some(1));
}

#[test]
fn throttle_takes_the_larger_of_transitions_and_events() {
    let mut h = History::new(None);
    let mut r = Reading {
        throttle_transitions: Some([4, 1]),
        ..Reading::default()
    };
    r.counters.thermal_throttle_events = Some(7);
    h.record(at(T0), &r);
    r.throttle_transitions = Some([5, 2]); // +2
    r.counters.thermal_throttle_events = Some(10); // +3
    h.record(at(T0 + HOUR), &r);
    assert_eq!(h.increase(Tracked::ThrottleEvents), Some(3));
    assert_eq!(h.last_throttle(), Some(at(T0 + HOUR)));
}

#[test]
fn a_page_missing_for_one_poll_does_not_fake_a_rise() {
    let mut h = History::new(None);
    let mut r = Reading {
        throttle_transitions: Some([4, 1]),
        ..Reading::default()
    };
    r.counters.thermal_throttle_events = Some(700);
    h.record(at(T0), &r);
    let without_ocp = Reading {
        throttle_transitions: Some([4, 1]),
        ..Reading::default()
    };
    h.record(at(T0 + HOUR), &without_ocp);
    h.record(at(T0 + 2 * HOUR), &r);
    assert_eq!(h.increase(Tracked::ThrottleEvents), Some(0));
    assert_eq!(h.last_throttle(), None);
}

#[test]
fn last_throttle_follows_time_in_throttle_and_the_active_flag() {
    let mut h = History::new(None);
    let mut r = Reading {
        throttle_seconds: Some([60, 0]),
        throttle_active: Some(false),
        ..Reading::default()
    };
    h.record(at(T0), &r);
    assert_eq!(h.last_throttle(), None);
    r.throttle_seconds = Some([120, 0]);
    h.record(at(T0 + HOUR), &r);
    assert_eq!(h.last_throttle(), Some(at(T0 + HOUR)));
    r.throttle_active = Some(true);
    h.record(at(T0 + 2 * HOUR), &r);
    assert_eq!(h.last_throttle(), Some(at(T0 + 2 * HOUR)));
}

#[test]
fn wear_span_is_first_and_newest() {
    let mut h = History::new(Some(Duration::from_secs(HOUR)));
    for (i, used) in [0.03, 0.03, 0.04].into_iter().enumerate() {
        let r = Reading {
            percentage_used_ratio: Some(used),
            ..Reading::default()
        };
        h.record(at(T0 + i as u64 * 15 * 24 * HOUR), &r);
    }
    assert_eq!(
        h.wear_span(),
        Some(((at(T0), 0.03), (at(T0 + 30 * 24 * HOUR), 0.04)))
    );
}

#[test]
fn unbounded_history_keeps_two_points_per_counter() {
    let mut h = History::new(None);
    for i in 0..1000u64 {
        h.record(at(T0 + i), &media(u128::from(i)));
    }
    assert_eq!(h.media_errors.points.len(), 2);
    assert_eq!(h.increase(Tracked::MediaErrors), Some(999));
}

#[test]
fn utc_formats_rfc3339() {
    assert_eq!(utc(at(T0)), "2026-12-01T00:00:00Z");
    assert_eq!(utc(at(1_709_210_096)), "2024-02-29T12:34:56Z");
    assert_eq!(utc(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    let before = SystemTime::UNIX_EPOCH - Duration::from_secs(86_400);
    assert_eq!(utc(before), "1969-12-31T00:00:00Z");
}

#[test]
fn drive_provided_counters_near_2_pow_128_do_not_overflow() {
    let mut h = History::new(None);
    for (i, n) in [0, u128::MAX, 0, u128::MAX, u128::MAX - 1, u128::MAX]
        .into_iter()
        .enumerate()
    {
        h.record(at(T0 + i as u64 * HOUR), &media(n));
    }
    // Rises of 2^128 - 1 twice, then 1: saturated, not wrapped.
    assert_eq!(h.increase(Tracked::MediaErrors), Some(u128::MAX));
}

#[test]
fn a_counter_moving_every_poll_is_thinned_to_a_bound_and_its_rise_kept() {
    let mut h = History::new(Some(Duration::from_secs(365 * 24 * HOUR)));
    for i in 0..2000u64 {
        h.record(at(T0 + i * HOUR), &media(u128::from(i)));
        assert!(h.media_errors.points.len() <= MAX_POINTS, "at {i}");
    }
    assert_eq!(h.increase(Tracked::MediaErrors), Some(1999));
    assert_eq!(h.media_errors.points[0].at, at(T0), "baseline kept");
}

#[test]
fn temperature_range_and_first_seen() {
    let mut h = History::new(None);
    for (i, t) in [35.0, 52.0, 28.0, 40.0].into_iter().enumerate() {
        let r = Reading {
            temperatures: vec![("composite".into(), t), ("1".into(), 90.0)],
            ..Reading::default()
        };
        h.record(at(T0 + i as u64 * HOUR), &r);
    }
    assert_eq!(h.temperature_range(), Some((28.0, 52.0)));
    assert_eq!(h.first_seen(), Some(at(T0)));
    assert_eq!(h.latest(), Some(at(T0 + 3 * HOUR)));
}

#[test]
fn the_revision_moves_with_news_not_with_time() {
    let mut h = History::new(None);
    h.record(at(T0), &media(1));
    let r0 = h.revision();
    h.record(at(T0 + HOUR), &media(1));
    assert_eq!(h.revision(), r0, "same values, later time");
    h.record(at(T0 + 2 * HOUR), &media(2));
    assert!(h.revision() > r0);
}
