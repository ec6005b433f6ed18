use super::*;

/// The bounds of the octave [0.5, 1) are 2^(k/8)/2 to the last bit
/// (computed here through `powf`, not the table).
#[test]
fn bounds_are_powers_of_two_to_the_eighth() {
    for (k, &b) in BOUNDS.iter().enumerate() {
        let want = 2f64.powf(k as f64 / 8.0) / 2.0;
        let ulps = (b.to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(ulps <= 1, "bound {k}: {b} against {want}");
    }
}

/// Away from a bound, the key is ⌈8·log2 v⌉, computed with logarithms.
#[test]
fn key_is_the_ceiling_of_eight_log2() {
    let mut v: f64 = 1.5e-6;
    while v < 1e5 {
        let exact = 8.0 * v.log2();
        if (exact - exact.round()).abs() > 1e-6 {
            assert_eq!(key(v), exact.ceil() as i32, "{v}");
        }
        v *= 1.0137;
    }
}

/// A bound belongs to its own bucket (`le`), the next double to the next.
#[test]
fn a_bound_is_in_its_bucket() {
    for k in MIN_KEY..MAX_KEY {
        let b = upper_bound(k);
        assert_eq!(key(b), k, "bound of {k}: {b}");
        assert_eq!(key(f64::from_bits(b.to_bits() + 1)), k + 1, "above {k}");
    }
    assert_eq!(upper_bound(0), 1.0);
    assert_eq!(upper_bound(8), 2.0);
    assert_eq!(upper_bound(-8), 0.5);
    assert_eq!(upper_bound(MIN_KEY - 1), ZERO_THRESHOLD);
}

/// Every quantile is within the schema's bound: a bucket's upper bound is
/// at most 2^(1/8) times its lower one.
#[test]
fn a_bucket_is_narrower_than_ten_percent() {
    for k in MIN_KEY..=MAX_KEY {
        let ratio = upper_bound(k) / upper_bound(k - 1);
        assert!(ratio < 1.0906 && ratio > 1.0904, "{k}: {ratio}");
    }
}

#[test]
fn zero_bucket_and_the_ends() {
    let mut h = NativeCounts::default();
    h.record(0.0);
    h.record(ZERO_THRESHOLD);
    h.record(1e12);
    h.record(f64::INFINITY);
    let v = h.view();
    assert_eq!(v.zero_count, 2);
    assert_eq!(v.spans, vec![(MAX_KEY, 1)]);
    assert_eq!(v.deltas, vec![2]);
    assert_eq!(NativeCounts::default().view(), NativeView::default());
}

/// Spans and deltas as client_golang's `makeBuckets` makes them: a gap of
/// one or two empty buckets is filled with zero counts, a longer one
/// starts a new span whose offset is the gap.
#[test]
fn spans_and_deltas() {
    let mut h = NativeCounts::default();
    // Keys 0 (1 s), 1, 3 (gap of one), 6 (gap of two), 10 (gap of three).
    for (k, n) in [(0, 2), (1, 5), (3, 1), (6, 4), (10, 3)] {
        for _ in 0..n {
            h.record(upper_bound(k));
        }
    }
    let v = h.view();
    assert_eq!(v.spans, vec![(0, 7), (3, 1)]);
    assert_eq!(v.deltas, vec![2, 3, -5, 1, -1, 0, 4, -1]);
}

/// Decoding the view gives back every count, over random values.
#[test]
fn the_view_decodes_to_the_counts() {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut h = NativeCounts::default();
    let mut want = std::collections::BTreeMap::new();
    for _ in 0..5000 {
        let v = 10f64.powf(-7.0 + 9.0 * rng.f64());
        h.record(v);
        if v > ZERO_THRESHOLD {
            *want.entry(key(v)).or_insert(0u64) += 1;
        }
    }
    let view = h.view();
    let mut got = std::collections::BTreeMap::new();
    let (mut k, mut count) = (0i32, 0i64);
    let mut deltas = view.deltas.iter();
    for (i, &(offset, len)) in view.spans.iter().enumerate() {
        k = if i == 0 { offset } else { k + 1 + offset };
        for j in 0..len {
            if j > 0 {
                k += 1;
            }
            count += deltas.next().unwrap();
            if count != 0 {
                got.insert(k, count as u64);
            }
        }
    }
    assert!(deltas.next().is_none());
    assert_eq!(got, want);
}
