use super::*;

const MIN: Duration = Duration::from_secs(60);
const WINDOW: Duration = Duration::from_secs(600);

/// Log-uniform samples between 10 µs and 100 ms.
fn samples(seed: u64, n: usize) -> Vec<f64> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n)
        .map(|_| 10e-6 * 10f64.powf(4.0 * rng.f64()))
        .collect()
}

#[test]
fn bucket_bounds_are_exact() {
    // 2^-20 s = 0.95367431640625 µs; 1 µs is in the first octave.
    assert_eq!(pow2(-20), 0.000_000_953_674_316_406_25);
    assert_eq!(index(0.0), 0);
    assert_eq!(index(pow2(-20)), 1);
    assert_eq!(upper_bound(1), pow2(-20) * (1.0 + 1.0 / 128.0));
    // 1.5 s = 2^0 × 1.5: octave 20, sub-bucket 64 → index 1 + 20·128 + 64.
    assert_eq!(index(1.5), 1 + 20 * 128 + 64);
    assert_eq!(upper_bound(index(1.5)), 1.0 + 65.0 / 128.0);
    assert_eq!(index(127.9), OVERFLOW - 1);
    assert_eq!(index(128.0), OVERFLOW);
    assert_eq!(index(f64::INFINITY), OVERFLOW);
    for i in 0..BUCKETS - 1 {
        assert!(upper_bound(i) < upper_bound(i + 1));
        // A bucket's upper bound opens the next bucket.
        assert_eq!(index(upper_bound(i)), i + 1);
    }
}

#[test]
fn quantiles_match_sorted_array() {
    let xs = samples(7, 5000);
    let mut w = SlidingWindow::new(WINDOW, 10);
    for (k, &x) in xs.iter().enumerate() {
        // Spread over 5 minutes: all inside the window.
        w.record(Duration::from_millis(60 * k as u64), x);
    }
    assert_eq!(w.count(), 5000);
    let mut sorted = xs.clone();
    sorted.sort_by(f64::total_cmp);
    // Nearest ranks ⌈q·5000⌉ by hand: 2500, 4500, 4950, 4995, ⌈4999.5⌉ = 5000.
    let ranks = [2500, 4500, 4950, 4995, 5000];
    for ((q, label), rank) in QUANTILES.iter().zip(ranks) {
        let truth = sorted[rank - 1];
        let got = w.quantile(*q).unwrap();
        let rel = (got - truth) / truth;
        assert!(
            (0.0..1.0 / 128.0).contains(&rel),
            "q{label}: {got} vs {truth}"
        );
    }
    assert_eq!(w.max(), Some(sorted[4999]));
    assert_eq!(w.quantile(1.0), Some(sorted[4999]));
    let min = w.quantile(0.0).unwrap();
    assert!(min >= sorted[0] && min < sorted[0] * (1.0 + 1.0 / 128.0));
}

#[test]
fn p9999_of_1000_is_the_max() {
    // 1000 values 1 % apart (1 µs·1.01^k, k = 0..999): wider apart than
    // a bucket (< 0.79 %), so each rank maps to one distinct value.
    let sorted: Vec<f64> = (0..1000).map(|k| 1e-6 * 1.01f64.powi(k)).collect();
    let mut w = SlidingWindow::new(WINDOW, 10);
    let mut rng = fastrand::Rng::with_seed(5);
    let mut shuffled = sorted.clone();
    rng.shuffle(&mut shuffled);
    for &x in &shuffled {
        w.record(Duration::from_secs(1), x);
    }
    // ⌈0.9999 × 1000⌉ = ⌈999.9⌉ = 1000: the largest sample, exactly.
    assert_eq!(w.quantile(0.9999), Some(sorted[999]));
    // ⌈0.99 × 1000⌉ = 990 exactly (not 991): the 990th smallest.
    let p99 = w.quantile(0.99).unwrap();
    assert!(p99 >= sorted[989] && p99 < sorted[990], "{p99}");
    // ⌈0.5 × 1000⌉ = 500.
    let p50 = w.quantile(0.5).unwrap();
    assert!(p50 >= sorted[499] && p50 < sorted[500], "{p50}");
}

#[test]
fn empty_is_none() {
    let mut w = SlidingWindow::new(WINDOW, 10);
    assert_eq!(w.count(), 0);
    assert_eq!(w.quantile(0.5), None);
    assert_eq!(w.max(), None);
    w.record(Duration::ZERO, 1e-4);
    assert_eq!(w.quantile(f64::NAN), None);
    // One sample: every quantile is that sample (clamped to the max).
    assert_eq!(w.quantile(0.0), Some(1e-4));
    assert_eq!(w.quantile(0.5), Some(1e-4));
    assert_eq!(w.quantile(7.0), Some(1e-4));
}

#[test]
fn reading_at_a_later_time_leaves_the_window_alone() {
    let mut w = SlidingWindow::new(WINDOW, 10);
    // 10 slow samples in the first minute, 10 fast ones at 5 min.
    for k in 0..10 {
        w.record(Duration::from_secs(5 * k), 0.01);
    }
    for k in 0..10 {
        w.record(5 * MIN + Duration::from_secs(k), 1e-4);
    }
    // 9 min 59 s: both slices live; 20 samples, the slow half on top.
    let before = w.at(10 * MIN - Duration::from_secs(1));
    assert_eq!(before.count(), 20);
    assert_eq!(before.quantile(0.9), Some(0.01));
    // 10 min: the slice [0, 1 min) is out of the figures...
    let at = w.at(10 * MIN);
    assert_eq!(at.count(), 10);
    assert_eq!(at.quantile(0.9999), Some(1e-4));
    // ...but still in the window, which has not been advanced.
    assert_eq!(w.count(), 20);
    assert_eq!(w.max(), Some(0.01));
    // 15 min: nothing left; an earlier time than seen reads as the newest.
    assert_eq!(w.at(15 * MIN).count(), 0);
    assert_eq!(w.at(15 * MIN).quantile(0.5), None);
    assert_eq!(w.at(Duration::ZERO).count(), 20);
    // Advancing for real gives what the read-only view promised.
    w.advance(10 * MIN);
    assert_eq!(w.count(), 10);
    assert_eq!(w.quantile(0.9999), Some(1e-4));
}

#[test]
fn old_samples_expire() {
    let mut w = SlidingWindow::new(WINDOW, 10);
    // 10 slow samples in the first minute, 10 fast ones at 5 min.
    for k in 0..10 {
        w.record(Duration::from_secs(5 * k), 0.01);
    }
    for k in 0..10 {
        w.record(5 * MIN + Duration::from_secs(k), 1e-4);
    }
    assert_eq!(w.count(), 20);
    assert_eq!(w.max(), Some(0.01));
    // 9 min 59 s: the first minute's slice is still inside.
    w.advance(10 * MIN - Duration::from_secs(1));
    assert_eq!(w.count(), 20);
    // 10 min: the slice [0, 1 min) leaves the window.
    w.advance(10 * MIN);
    assert_eq!(w.count(), 10);
    assert_eq!(w.max(), Some(1e-4));
    assert_eq!(w.quantile(0.9999), Some(1e-4));
    // Recording also expires: at 15 min the 5-minute slice is gone.
    w.record(15 * MIN, 2e-4);
    assert_eq!(w.count(), 1);
    assert_eq!(w.quantile(0.5), Some(2e-4));
    // A long silence empties everything.
    w.advance(Duration::from_secs(100_000));
    assert_eq!(w.count(), 0);
    assert_eq!(w.quantile(0.5), None);
}

#[test]
fn time_going_backwards_does_not_resurrect() {
    let mut w = SlidingWindow::new(WINDOW, 10);
    w.record(20 * MIN, 1e-3);
    w.record(MIN, 2e-3); // goes into the current (20 min) slice
    assert_eq!(w.count(), 2);
    w.advance(30 * MIN);
    assert_eq!(w.count(), 0);
}

#[test]
fn odd_inputs_do_not_panic() {
    let mut w = SlidingWindow::new(Duration::ZERO, 0);
    for x in [f64::NAN, -1.0, 0.0, 1e-12, 1e300, f64::INFINITY] {
        w.record(Duration::MAX, x);
    }
    assert_eq!(w.count(), 4);
    assert_eq!(w.quantile(1.0), Some(f64::INFINITY));
    assert_eq!(w.quantile(0.0), Some(pow2(MIN_EXP)));
    let mut w = SlidingWindow::new(Duration::MAX, 4);
    w.record(Duration::ZERO, 200.0);
    assert_eq!(w.quantile(0.5), Some(200.0));
}

proptest::proptest! {
    #[test]
    fn quantile_is_within_recorded_range(
        xs in proptest::collection::vec((0u64..2_000_000_000_000, proptest::num::f64::ANY), 0..300),
        q in proptest::num::f64::ANY,
    ) {
        let mut w = SlidingWindow::new(WINDOW, 10);
        let mut t = 0;
        for (dt, x) in xs {
            t = dt.max(t);
            w.record(Duration::from_nanos(t), x);
        }
        if let Some(v) = w.quantile(q) {
            proptest::prop_assert!(v <= w.max().unwrap_or(f64::NAN));
            proptest::prop_assert!(v >= 0.0);
        }
    }
}

#[test]
fn all_quantiles_in_one_walk_are_each_quantile_alone() {
    // Windows of 0, 1, a few and many samples, some expired; quantiles in
    // and out of order, repeated, at the ends and NaN.
    let qs = [
        (0.99, "a"),
        (0.5, "b"),
        (f64::NAN, "nan"),
        (0.0, "c"),
        (1.0, "d"),
        (0.5, "e"),
        (0.9999, "f"),
        (-1.0, "g"),
        (2.0, "h"),
    ];
    for (seed, n) in [(1, 0), (2, 1), (3, 7), (4, 5000)] {
        let mut w = SlidingWindow::new(WINDOW, 10);
        for (k, &x) in samples(seed, n).iter().enumerate() {
            w.record(Duration::from_millis(200 * k as u64), x);
        }
        for at in [0, 300, 700, 2000] {
            let live = w.at(Duration::from_secs(at));
            let each: Vec<(&str, f64)> = qs
                .iter()
                .filter_map(|&(q, l)| live.quantile(q).map(|v| (l, v)))
                .collect();
            assert_eq!(live.quantiles(&qs), each, "{n} samples at {at} s");
        }
    }
}
