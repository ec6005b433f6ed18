//! How each simulated drive's probe latency is distributed over time: a
//! log-normal body, a rare tail, a cap. The probes of `--demo`
//! (`probe::simulated`) draw from these.
//!
//! The three DC2000B-likes (`nvme0`, `nvme2`, `nvme3`) are one model and
//! firmware, so the fleet rules compare them with each other (the median of
//! the three, alerts/fleet.rules.yml). For the fail-slow drive to stand out
//! the median must be a healthy drive's, in every 2-minute window:
//! - `nvme0`'s read p99 is ~106 µs (75 µs · e^(0.15 · 2.33)), and ~260 µs
//!   over a 2-minute window holding one of its 20-second throttling spikes
//!   (17 % of the reads at 130 µs ± 35 %, 3 % of those 25 × slower);
//! - `nvme2`, worn out, keeps a p99 of ~180 µs but has a long tail
//!   (0.2 % of its reads 40 × slower: a p99.9 of milliseconds), rare
//!   enough that even the first 500 reads' p99 (the rules' minimum) is
//!   almost never in it;
//! - `nvme3`, fail-slow, reads at ~1.2 ms from the start, p99 ~1.9 ms:
//!   ≥ 7 × the median of the three even while `nvme0` throttles.

use super::sim::{Model, throttling};

/// How a drive's probe latency is distributed at `t`: a log-normal body
/// around `median` seconds with spread `sigma`, and a rare tail: with
/// probability `tail_p` a read takes `tail_x` times as long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    pub median: f64,
    pub sigma: f64,
    pub tail_p: f64,
    pub tail_x: f64,
    /// No read is slower than this (a drive that keeps its datasheet QoS).
    pub cap: f64,
}

/// The probe latency distribution of `model` at `t`.
pub fn latency(model: Model, t: f64) -> Latency {
    match model {
        Model::Dc2000b if throttling(t).2 => Latency {
            median: 130e-6,
            sigma: 0.35,
            tail_p: 0.03,
            tail_x: 25.0,
            cap: 0.05,
        },
        Model::Dc2000b => Latency {
            median: 75e-6,
            sigma: 0.15,
            tail_p: 0.001,
            tail_x: 8.0,
            cap: 0.05,
        },
        Model::Rocket => Latency {
            median: 55e-6,
            sigma: 0.2,
            tail_p: 0.003,
            tail_x: 15.0,
            cap: 0.05,
        },
        // The DC600M keeps its datasheet promise: 99.999 % under 200 µs.
        Model::Dc600m => Latency {
            median: 95e-6,
            sigma: 0.12,
            tail_p: 0.0005,
            tail_x: 1.6,
            cap: 190e-6,
        },
        Model::SasSsd => Latency {
            median: 85e-6,
            sigma: 0.15,
            tail_p: 0.001,
            tail_x: 5.0,
            cap: 0.01,
        },
        Model::Failing => Latency {
            median: 100e-6,
            sigma: 0.25,
            tail_p: 0.002,
            tail_x: 40.0,
            cap: 0.5,
        },
        Model::FailSlow => Latency {
            median: 1.2e-3,
            sigma: 0.2,
            tail_p: 0.001,
            tail_x: 4.0,
            cap: 0.05,
        },
    }
}

impl Latency {
    /// One sample from two independent uniforms in (0, 1] and one in [0, 1).
    pub fn sample(&self, u1: f64, u2: f64, u3: f64) -> f64 {
        // Box–Muller: a standard normal from two uniforms.
        let z = (-2.0 * u1.max(f64::MIN_POSITIVE).ln()).sqrt()
            * (2.0 * std::f64::consts::PI * u2).cos();
        let body = self.median * (self.sigma * z).exp();
        let v = if u3 < self.tail_p {
            body * self.tail_x
        } else {
            body
        };
        v.min(self.cap)
    }
}
