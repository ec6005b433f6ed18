//! Poisson arrivals for the probe: exponentially distributed gaps between
//! probe I/Os, so the probe samples the drive at instants uncorrelated with
//! any periodic activity (PASTA: Poisson arrivals see time averages). A
//! fixed-period probe can lock onto a periodic background task (flush,
//! garbage collection) and see it always or never.

use std::time::Duration;

/// A Poisson process of a given rate; hands out the gaps between arrivals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Poisson {
    /// Arrivals per second. The caller validates it (> 0, finite); a bad
    /// rate yields zero or saturated gaps rather than a panic.
    rate_per_sec: f64,
}

impl Poisson {
    /// A process with `rate_per_sec` arrivals per second on average.
    pub fn new(rate_per_sec: f64) -> Self {
        Self { rate_per_sec }
    }

    /// The configured rate, arrivals per second.
    pub fn rate(&self) -> f64 {
        self.rate_per_sec
    }

    /// The next inter-arrival gap from a uniform sample u in (0,1]:
    /// −ln(u)/rate (inverse-transform sampling of the exponential
    /// distribution). u outside (0,1] is clamped into it; NaN counts as the
    /// smallest positive u. A gap too long for a `Duration` saturates.
    pub fn gap_from(&self, u: f64) -> Duration {
        let u = if u > 0.0 {
            u.min(1.0)
        } else {
            f64::MIN_POSITIVE
        };
        let secs = -u.ln() / self.rate_per_sec;
        if secs.is_nan() || secs <= 0.0 {
            return Duration::ZERO;
        }
        Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
    }

    /// The next gap, from the thread-local generator.
    pub fn next_gap(&self) -> Duration {
        // fastrand::f64() is in [0,1); 1 − it is in (0,1], so u = 0 never occurs.
        self.gap_from(1.0 - fastrand::f64())
    }

    /// The next gap from a given generator (seeded in tests).
    pub fn next_gap_with(&self, rng: &mut fastrand::Rng) -> Duration {
        self.gap_from(1.0 - rng.f64())
    }
}

/// When the I/Os of one probe stream are due, as offsets from the probe's
/// start: a Poisson process, except that arrivals missed behind a slow I/O
/// are dropped rather than bunched. A drive that stalls for ten seconds
/// gets one probe when it returns, not the fifty that fell due meanwhile in
/// a burst that would measure the probe's own queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrivals {
    due: Duration,
}

impl Arrivals {
    /// The first arrival, `gap` after the start.
    pub fn starting(gap: Duration) -> Self {
        Self { due: gap }
    }

    /// When the next I/O is due.
    pub fn due(&self) -> Duration {
        self.due
    }

    /// Moves on once the I/O due at [`Arrivals::due`] has been handled, at
    /// `now`: the next one is `gap` after it, or `gap` after `now` if that
    /// is already past.
    pub fn advance(&mut self, now: Duration, gap: Duration) {
        let next = self.due.saturating_add(gap);
        self.due = if next < now {
            now.saturating_add(gap)
        } else {
            next
        };
    }
}

#[cfg(test)]
mod tests;
