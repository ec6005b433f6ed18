use super::*;

fn bucket_of(h: &LatencyHistogram) -> Vec<usize> {
    h.buckets
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn bounds_shape() {
    let b = bucket_bounds();
    // 10 µs → 10 s is 6 decades; 10 per decade plus the closing bound.
    assert_eq!(b.len(), 61);
    assert_eq!(b[0], 10e-6);
    assert_eq!(b[60], 10.0);
    // Exact decade values at every tenth bound.
    assert_eq!(b[10], 1e-4);
    assert_eq!(b[20], 1e-3);
    assert_eq!(b[30], 0.01);
    assert_eq!(b[40], 0.1);
    assert_eq!(b[50], 1.0);
    // The QoS limits of drives.md (DC600M: 200 µs read, 300 µs write).
    assert_eq!(b[13], 0.0002);
    assert_eq!(b[15], 0.0003);
    assert_eq!(
        &b[..10],
        &[
            10e-6, 12.5e-6, 15e-6, 20e-6, 25e-6, 30e-6, 40e-6, 50e-6, 60e-6, 80e-6
        ]
    );
    assert!(b.windows(2).all(|w| w[0] < w[1]));
    // Log-spaced within 1.2–1.34 between neighbours.
    for w in b.windows(2) {
        let r = w[1] / w[0];
        assert!((1.19..1.34).contains(&r), "{w:?}");
    }
}

#[test]
fn eighty_and_hundred_micros() {
    // Bounds 9 and 10 are 80 µs and 100 µs exactly.
    let one = |s: f64| {
        let mut h = LatencyHistogram::default();
        h.record(s);
        bucket_of(&h)
    };
    assert_eq!(one(79e-6), vec![9]);
    assert_eq!(one(80e-6), vec![9]);
    assert_eq!(one(81e-6), vec![10]);
    assert_eq!(one(100e-6), vec![10]);
    assert_eq!(one(101e-6), vec![11]);
    assert_ne!(one(80e-6), one(100e-6));
}

#[test]
fn boundaries_go_to_their_le_bucket() {
    let b = bucket_bounds();
    for (i, &bound) in b.iter().enumerate() {
        let mut h = LatencyHistogram::default();
        h.record(bound);
        assert_eq!(bucket_of(&h), vec![i], "bound {bound}");
    }
    let mut h = LatencyHistogram::default();
    h.record(0.0);
    h.record(1e-9);
    assert_eq!(bucket_of(&h), vec![0]);
    h.record(10.0);
    assert_eq!(h.overflow, 0);
    h.record(10.000_001);
    h.record(f64::INFINITY);
    assert_eq!(h.overflow, 2);
}

#[test]
fn bucket_counts() {
    let mut h = LatencyHistogram::default();
    assert!(h.buckets().iter().all(|&(_, c)| c == 0));
    // 61 bounds and +Inf.
    assert_eq!(h.buckets().len(), 62);
    for s in [
        50e-6,
        60e-6,
        100e-6,
        100e-6,
        2e-3,
        0.5,
        11.0,
        f64::NAN,
        -1.0,
    ] {
        h.record(s);
    }
    assert_eq!(h.count(), 7);
    let expected_sum = 50e-6 + 60e-6 + 100e-6 + 100e-6 + 2e-3 + 0.5 + 11.0;
    assert!((h.sum() - expected_sum).abs() < 1e-12);
    let per = h.buckets();
    // By hand: 50 µs in le=5e-5 (bound 7), 60 µs in 6e-5 (8), both
    // 100 µs in 1e-4 (10), 2 ms in 2e-3 (23), 0.5 s in 0.5 (47), 11 s
    // in +Inf (61); every other bucket empty.
    let nonzero: Vec<(usize, u64)> = per
        .iter()
        .enumerate()
        .filter(|(_, b)| b.1 > 0)
        .map(|(i, b)| (i, b.1))
        .collect();
    assert_eq!(
        nonzero,
        [(7, 1), (8, 1), (10, 2), (23, 1), (47, 1), (61, 1)]
    );
    assert_eq!(per[61].0, f64::INFINITY);
    let mut acc = 0;
    let cum: Vec<(f64, u64)> = per
        .iter()
        .map(|&(b, n)| {
            acc += n;
            (b, acc)
        })
        .collect();
    assert_eq!(cum.last().map(|c| c.1), Some(h.count()));
    // le=1e-4 holds 50, 60, 100, 100 µs.
    assert_eq!(cum[10], (1e-4, 4));
    // le=1.5 ms (bound 22) excludes 2 ms, le=2 ms (bound 23) includes it.
    assert_eq!(cum[22].1, 4);
    assert_eq!(cum[23], (2e-3, 5));
    assert_eq!(cum[24].1, 5);
    assert_eq!(cum[50], (1.0, 6));
}

#[test]
fn coarse_buckets_are_1_2_3_5_per_decade_with_exact_cumulative_counts() {
    let mut h = LatencyHistogram::default();
    // 15 µs lands in the full 15 µs bucket, served under 20 µs; 80 µs and
    // 100 µs both under 100 µs; 250 µs under 300 µs; 20 s only in +Inf.
    for s in [15e-6, 80e-6, 100e-6, 250e-6, 20.0] {
        h.record(s);
    }
    let full = h.buckets();
    assert_eq!(&*Buckets::Full.select(&full), &full[..]);
    let coarse = Buckets::Coarse.select(&full);
    let bounds: Vec<f64> = coarse.iter().map(|&(b, _)| b).collect();
    let mut want = Vec::new();
    for decade in [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0] {
        for m in [1.0, 2.0, 3.0, 5.0] {
            want.push(round_sig(m * decade));
        }
    }
    want.extend([10.0, f64::INFINITY]);
    assert_eq!(bounds, want);
    let count = |le: f64| coarse.iter().find(|&&(b, _)| b == le).map(|&(_, n)| n);
    assert_eq!(count(20e-6), Some(1));
    assert_eq!(count(50e-6), Some(0));
    assert_eq!(count(1e-4), Some(2));
    assert_eq!(count(3e-4), Some(1));
    assert_eq!(count(f64::INFINITY), Some(1));
    // Nothing lost: the counts add up to the full set's.
    let sum = |b: &[(f64, u64)]| b.iter().map(|&(_, n)| n).sum::<u64>();
    assert_eq!(sum(&coarse), sum(&full));
    assert_eq!(sum(&coarse), h.count());
}
