//! The fleet histogram `ssd_probe_latency_seconds`: fixed, log-spaced
//! buckets shared by every exporter, so `histogram_quantile` over `sum by
//! (le)` works across a fleet. Exact per-drive quantiles come from
//! [`super::window`] instead.

use std::sync::OnceLock;

/// Mantissas of the bounds in each decade: a preferred-number series
/// (ratios 1.2–1.33 between neighbours, ~10 per decade, roughly
/// log-spaced). Chosen over a pure 10^(k/10) series so that the values
/// operators compare against are exact bucket bounds: 80 µs and 100 µs
/// fall in different buckets (the resolution requirement, which
/// 10^(k/10) bounds — 79.4, 100 µs — miss), and the datasheet QoS limits
/// of 200 µs and 300 µs are bounds, so "fraction under the target" is a
/// plain bucket ratio.
const MANTISSAS: [f64; 10] = [1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0];
/// Powers of ten from the first bound (10 µs) to the last (10 s).
const DECADES: [f64; 7] = [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1];
/// 6 decades × 10 + the closing 10 s bound.
const BOUNDS: usize = (DECADES.len() - 1) * MANTISSAS.len() + 1;

/// Upper bounds in seconds from 10 µs to 10 s: 10, 12.5, 15, 20, 25, 30,
/// 40, 50, 60, 80 µs, 100 µs, … 8 s, 10 s — 61 bounds. Each is the mantissa
/// times the decade, rounded to 12 significant digits so `le` labels read
/// as written (`0.0002`, not `0.00019999999999999998`).
pub fn bucket_bounds() -> &'static [f64] {
    static BOUNDS_CELL: OnceLock<Vec<f64>> = OnceLock::new();
    BOUNDS_CELL.get_or_init(|| {
        let mut v = Vec::with_capacity(BOUNDS);
        for &decade in &DECADES[..DECADES.len() - 1] {
            for m in MANTISSAS {
                v.push(round_sig(m * decade));
            }
        }
        v.push(DECADES[DECADES.len() - 1]);
        v
    })
}

/// `x` rounded to 12 significant digits (through its decimal text).
fn round_sig(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// Counts per bucket (non-cumulative) plus overflow (> 10 s), sum and count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencyHistogram {
    /// One count per bound in [`bucket_bounds`]; empty until the first record.
    buckets: Vec<u64>,
    /// Observations above the last bound; they appear only in `+Inf`.
    overflow: u64,
    sum: f64,
    count: u64,
}

impl LatencyHistogram {
    /// Records one latency in seconds. It lands in the first bucket whose
    /// upper bound is ≥ it (Prometheus `le`). NaN and negative values —
    /// impossible from a measured `Duration` — are ignored.
    pub fn record(&mut self, seconds: f64) {
        if seconds.is_nan() || seconds < 0.0 {
            return;
        }
        let bounds = bucket_bounds();
        if self.buckets.len() != bounds.len() {
            self.buckets = vec![0; bounds.len()];
        }
        let i = bounds.partition_point(|&b| b < seconds);
        match self.buckets.get_mut(i) {
            Some(c) => *c = c.saturating_add(1),
            None => self.overflow = self.overflow.saturating_add(1),
        }
        self.sum += seconds;
        self.count = self.count.saturating_add(1);
    }

    /// Records a measured duration.
    pub fn record_duration(&mut self, d: std::time::Duration) {
        self.record(d.as_secs_f64());
    }

    /// Number of observations, including overflow.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Sum of the observations, seconds.
    pub fn sum(&self) -> f64 {
        self.sum
    }

    /// `(upper bound, count)` per bucket, not cumulative, ending with the
    /// `+Inf` bucket (the overflow): the form the exposition encoder takes,
    /// which accumulates them itself — one conversion, at encode time.
    pub fn buckets(&self) -> Vec<(f64, u64)> {
        let bounds = bucket_bounds();
        let mut out = Vec::with_capacity(bounds.len() + 1);
        out.extend(
            bounds
                .iter()
                .enumerate()
                .map(|(i, &b)| (b, self.buckets.get(i).copied().unwrap_or(0))),
        );
        out.push((f64::INFINITY, self.overflow));
        out
    }
}

#[cfg(test)]
mod tests {
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
}
