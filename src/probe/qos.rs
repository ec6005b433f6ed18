//! Datasheet latency QoS targets per drive model, exported as
//! `ssd_latency_qos_target_seconds` beside the probe's own quantiles. To add
//! a model, add a row to `TABLE` with the datasheet as its source.

use super::op::ProbeOp;

/// One datasheet limit: `quantile` of `op` latency is at most `seconds`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QosTarget {
    pub op: ProbeOp,
    pub quantile: f64,
    /// The `quantile` label value, e.g. `"0.99999"`.
    pub quantile_label: &'static str,
    pub seconds: f64,
}

/// A model family: the fixed model prefix and the capacity suffix pattern.
struct Family {
    /// The model string up to the capacity, e.g. `KINGSTON SEDC600M`.
    prefix: &'static str,
    /// What may follow the prefix (after trimming); see [`Suffix`].
    suffix: Suffix,
    targets: &'static [QosTarget],
}

/// What may follow a family's prefix.
enum Suffix {
    /// Nothing, or a capacity: digits then `G` (`960G`, `7680G`).
    CapacityG,
}

impl Suffix {
    fn matches(&self, rest: &str) -> bool {
        match self {
            Suffix::CapacityG => {
                rest.is_empty()
                    || rest.strip_suffix(['G', 'g']).is_some_and(|digits| {
                        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                    })
            }
        }
    }
}

/// Kingston DC600M, all capacities (480 GB – 7.68 TB): latency QoS at 4 KiB
/// QD1, 99.999th percentile, read ≤ 200 µs, write ≤ 300 µs
/// (`shared/reference/drives.md`, "Kingston DC600M"; Kingston datasheet).
const DC600M: &[QosTarget] = &[
    QosTarget {
        op: ProbeOp::Read,
        quantile: 0.99999,
        quantile_label: "0.99999",
        seconds: 200e-6,
    },
    QosTarget {
        op: ProbeOp::Write,
        quantile: 0.99999,
        quantile_label: "0.99999",
        seconds: 300e-6,
    },
];

/// First match wins.
const TABLE: &[Family] = &[Family {
    // ATA model strings: `KINGSTON SEDC600M960G`, `… SEDC600M7680G`. The
    // capacity rule keeps the DC600ME (`SEDC600ME…`), whose QoS we have no
    // source for, out; the bare prefix is what a truncated sysfs model shows.
    prefix: "KINGSTON SEDC600M",
    suffix: Suffix::CapacityG,
    targets: DC600M,
}];

/// Datasheet QoS targets for a drive's model string (surrounding spaces
/// ignored, case-insensitive), or an empty slice if the datasheet gives
/// none or the model is unknown.
pub fn targets_for(model: &str) -> &'static [QosTarget] {
    let model = model.trim();
    for family in TABLE {
        let n = family.prefix.len();
        let (Some(head), Some(rest)) = (model.get(..n), model.get(n..)) else {
            continue;
        };
        if head.eq_ignore_ascii_case(family.prefix) && family.suffix.matches(rest) {
            return family.targets;
        }
    }
    &[]
}

/// Which window quantile is evidence against a datasheet limit, and the
/// samples it needs. A window quantile `q` above the limit means at least
/// `(1 − q)·n` reads in the window exceeded it: ≥ 1 in 10 000 (p99.99, with
/// ≥ 10 000 samples) or ≥ 1 in 1 000 (p99.9, with ≥ 2 500 — what the
/// default 5 reads/s fill a 10-minute window with). Either is far above the
/// 1 in 100 000 a p99.999 limit allows: a drive keeping its promise shows
/// 3 such reads out of 2 500 with a probability of about 2·10⁻⁶.
pub const EVIDENCE: [(f64, u64); 2] = [(0.9999, 10_000), (0.999, 2_500)];

/// The window latency that shows a `limit` (seconds) broken, if any:
/// `quantile(q)` gives a window quantile and the samples behind it.
pub fn breach(quantile: impl Fn(f64) -> Option<(f64, u64)>, limit: f64) -> Option<f64> {
    EVIDENCE.iter().find_map(|&(q, min)| match quantile(q) {
        Some((v, n)) if n >= min && v > limit => Some(v),
        _ => None,
    })
}

#[cfg(test)]
mod tests;
