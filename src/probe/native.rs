//! The probe latency as a Prometheus native histogram: exponential buckets
//! of schema 3, each bound 2^(1/8) ≈ 1.0905 times the one before, so that
//! every quantile `histogram_quantile` estimates lies in the same bucket as
//! the true one, within 9.1 % of it (the bound is 10 %).
//!
//! Bucket `k` holds the values in (2^((k−1)/8), 2^(k/8)] seconds; values at
//! or below [`ZERO_THRESHOLD`] (2^−20 s, 0.95 µs: no drive answers that
//! fast, so only a clock that did not move) go to the zero bucket. Keys run
//! from [`MIN_KEY`] (just above the zero bucket) to [`MAX_KEY`] (2^20 s,
//! twelve days, far above the longest `probe.timeout`), so a histogram has
//! at most 320 buckets; a drive's reads usually span three to five
//! octaves, 25 to 40 of them.
//!
//! The bucket of a value is computed as Prometheus' Go client computes it
//! (`client_golang`'s `nativeHistogramBounds` for schema 3 and `frexp`),
//! so a bound is in the same bucket here and in Prometheus.

/// The schema: 2^3 buckets per power of two.
pub const SCHEMA: i32 = 3;
const PER_OCTAVE: i32 = 1 << SCHEMA;
/// Width of the zero bucket, seconds: 2^−20 (a bucket bound in every schema).
pub const ZERO_THRESHOLD: f64 = 1.0 / (1u64 << 20) as f64;
/// The lowest key: the bucket right above the zero bucket.
pub const MIN_KEY: i32 = -20 * PER_OCTAVE + 1;
/// The highest key, 2^20 s; a value above it is counted in it.
pub const MAX_KEY: i32 = 20 * PER_OCTAVE;
const KEYS: usize = (MAX_KEY - MIN_KEY + 1) as usize;

/// 2^(k/8)/2 for k = 0…7: the lower bounds of the eight buckets of the
/// octave [0.5, 1), as `client_golang` lists them for schema 3.
const BOUNDS: [f64; 8] = [
    0.5,
    0.5452538663326288,
    0.5946035575013605,
    0.6484197773255048,
    0.7071067811865475,
    0.7711054127039704,
    0.8408964152537144,
    0.9170040432046711,
];

/// The key of a value above [`ZERO_THRESHOLD`] (normal and finite): with
/// `v = frac · 2^exp`, `frac` in [0.5, 1), the first bound at or above
/// `frac` and the octave `exp`.
pub fn key(v: f64) -> i32 {
    if !v.is_finite() {
        return MAX_KEY;
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let frac = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    let i = BOUNDS.partition_point(|&b| b < frac) as i32;
    (i + (exp - 1) * PER_OCTAVE).clamp(MIN_KEY, MAX_KEY)
}

/// The upper bound of bucket `k`, seconds, as Prometheus computes it.
pub fn upper_bound(k: i32) -> f64 {
    let frac = k.rem_euclid(PER_OCTAVE);
    let exp = k.div_euclid(PER_OCTAVE) + 1;
    // 2^exp · BOUNDS[frac], exactly (a power of two times a double).
    BOUNDS[frac as usize] * 2f64.powi(exp)
}

/// Counts per bucket, cumulative over the probe's life (a counter, as a
/// classic histogram's buckets are).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NativeCounts {
    zero: u64,
    /// One count per key from [`MIN_KEY`]; empty until the first value
    /// above the zero bucket.
    counts: Vec<u64>,
}

/// A native histogram's buckets as the exposition carries them: the zero
/// bucket's count, then spans of consecutive buckets (the first's offset
/// its key, each next one's the gap after the one before) and each
/// bucket's count as the difference from the bucket before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeView {
    pub zero_count: u64,
    pub spans: Vec<(i32, u32)>,
    pub deltas: Vec<i64>,
}

impl NativeCounts {
    /// Counts a non-negative value (NaN is the caller's to refuse).
    pub fn record(&mut self, seconds: f64) {
        if seconds <= ZERO_THRESHOLD {
            self.zero = self.zero.saturating_add(1);
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; KEYS];
        }
        let i = (key(seconds) - MIN_KEY) as usize;
        if let Some(c) = self.counts.get_mut(i) {
            *c = c.saturating_add(1);
        }
    }

    /// The buckets that have counts, as spans and deltas. Empty buckets
    /// between two that have counts are left out (a new span) unless the
    /// gap is one or two buckets, where a zero delta is shorter than a new
    /// span (as the Go client decides).
    pub fn view(&self) -> NativeView {
        let mut out = NativeView {
            zero_count: self.zero,
            ..NativeView::default()
        };
        let mut last: Option<(i32, u64)> = None;
        for (i, &n) in self.counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let k = MIN_KEY + i as i32;
            let mut prev = last.map_or(0, |(_, c)| c);
            match last {
                Some((j, _)) if k - j <= 3 => {
                    // Gap of zero, one or two empty buckets: fill it.
                    for _ in j + 1..k {
                        out.deltas.push(-(prev as i64));
                        prev = 0;
                    }
                    if let Some(s) = out.spans.last_mut() {
                        s.1 += (k - j) as u32;
                    }
                }
                Some((j, _)) => out.spans.push((k - j - 1, 1)),
                None => out.spans.push((k, 1)),
            }
            out.deltas.push(n as i64 - prev as i64);
            last = Some((k, n));
        }
        out
    }
}

#[cfg(test)]
mod tests;
