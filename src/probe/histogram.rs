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
/// The mantissas of [`Buckets::Coarse`]: a 1-2-3-5 series, at most 2×
/// between neighbours (a `histogram_quantile` within a factor of 2, against
/// the fleet rules' 3× and 5×), keeping 100 µs and the datasheet QoS
/// limits of 200 µs and 300 µs as bounds.
const COARSE_MANTISSAS: [f64; 4] = [1.0, 2.0, 3.0, 5.0];
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

/// Which buckets `ssd_probe_latency_seconds` serves (`metrics.probe_buckets`).
/// The probe always counts in the full set; the coarse one is a subset of
/// its bounds, so its cumulative counts are exact sums of the full ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Buckets {
    /// 10 µs to 10 s at 1, 2, 3, 5 × each decade: 25 bounds and `+Inf`.
    #[default]
    Coarse,
    /// Every bound of [`bucket_bounds`]: 61 and `+Inf`.
    Full,
}

/// `metrics.probe_buckets`: the classic buckets a text scrape gets, and
/// whether a protobuf scrape (which gets the native histogram,
/// [`super::native`]) gets them too, as Prometheus'
/// `scrape_classic_histograms` expects.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Classic {
    pub buckets: Buckets,
    pub on_protobuf: bool,
}

impl Classic {
    /// The words `metrics.probe_buckets` accepts.
    pub const CHOICES: [(&'static str, Classic); 4] = [
        ("coarse", Classic::new(Buckets::Coarse, false)),
        ("full", Classic::new(Buckets::Full, false)),
        ("coarse+protobuf", Classic::new(Buckets::Coarse, true)),
        ("full+protobuf", Classic::new(Buckets::Full, true)),
    ];

    const fn new(buckets: Buckets, on_protobuf: bool) -> Self {
        Self {
            buckets,
            on_protobuf,
        }
    }
}

/// Whether the bound `i` of [`bucket_bounds`] is one of [`Buckets::Coarse`]
/// (the closing 10 s bound is).
fn is_coarse(i: usize) -> bool {
    COARSE_MANTISSAS.contains(&MANTISSAS[i % MANTISSAS.len()])
}

impl Buckets {
    /// `buckets` (one count per bound of [`bucket_bounds`], then `+Inf`,
    /// as [`LatencyHistogram::buckets`] gives them) at this resolution: each
    /// count of a bound left out is added to the next bound kept.
    pub fn select(self, buckets: &[(f64, u64)]) -> std::borrow::Cow<'_, [(f64, u64)]> {
        if self == Buckets::Full {
            return std::borrow::Cow::Borrowed(buckets);
        }
        let mut out = Vec::with_capacity(buckets.len() / 2);
        let mut carried = 0u64;
        for (i, &(bound, n)) in buckets.iter().enumerate() {
            carried = carried.saturating_add(n);
            if bound.is_infinite() || is_coarse(i) {
                out.push((bound, carried));
                carried = 0;
            }
        }
        std::borrow::Cow::Owned(out)
    }
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
    /// The same observations in exponential buckets (a native histogram).
    native: super::native::NativeCounts,
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
        self.native.record(seconds);
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

    /// The native histogram's buckets ([`super::native`]).
    pub fn native(&self) -> super::native::NativeView {
        self.native.view()
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
mod tests;
