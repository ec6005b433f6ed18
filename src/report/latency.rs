//! A drive's read latency for people: the probe's window median and p99
//! beside the datasheet's QoS limit, as the landing page shows it. Only
//! the running exporter has a probe; a one-shot `check` has none.

use serde::Serialize;

use crate::probe::fleet::ProbeView;
use crate::probe::op::ProbeOp;
use crate::probe::qos;

/// The probe's read latency over its sliding window.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LatencyRow {
    /// The block device probed (`nvme0n1`, `sda`).
    pub block: String,
    /// Median and 99th percentile of the window, in seconds; `None` until
    /// the window holds a read.
    pub p50_seconds: Option<f64>,
    pub p99_seconds: Option<f64>,
    /// Reads in the window behind them.
    pub samples: u64,
    /// The datasheet's read QoS limit for this model, if it gives one.
    pub qos: Option<QosRow>,
}

/// One datasheet limit: `quantile` of reads within `seconds`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct QosRow {
    /// The quantile label, e.g. `0.99999`.
    pub quantile: String,
    pub seconds: f64,
}

/// The read latency of `drive` (of the model `model`) among `probes`: its
/// first probed block device's (an NVMe drive with several namespaces is
/// listed by its first), or `None` when nothing probes it.
pub fn of(drive: &str, model: &str, probes: &[ProbeView]) -> Option<LatencyRow> {
    let view = probes
        .iter()
        .filter(|v| v.drive == drive)
        .min_by(|a, b| a.block.cmp(&b.block))?;
    let read = view.ops.iter().find(|o| o.op == ProbeOp::Read)?;
    let quantile = |label: &str| {
        read.quantiles
            .iter()
            .find(|(l, _)| *l == label)
            .map(|(_, v)| *v)
            .filter(|v| v.is_finite() && read.window_samples > 0)
    };
    let qos = qos::targets_for(model)
        .iter()
        .find(|t| t.op == ProbeOp::Read)
        .map(|t| QosRow {
            quantile: t.quantile_label.to_string(),
            seconds: t.seconds,
        });
    Some(LatencyRow {
        block: view.block.clone(),
        p50_seconds: quantile("0.5"),
        p99_seconds: quantile("0.99"),
        samples: read.window_samples,
        qos,
    })
}

/// `85 µs`, `1.2 ms`, `3.4 s`: three significant figures at most.
pub fn duration(seconds: f64) -> String {
    let (value, unit) = if seconds < 1e-3 {
        (seconds * 1e6, "µs")
    } else if seconds < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    };
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// `p99.999`, from a quantile label such as `0.99999`.
pub fn percentile(label: &str) -> String {
    match label.strip_prefix("0.") {
        Some(digits) if digits.len() > 2 => format!("p{}.{}", &digits[..2], &digits[2..]),
        Some(digits) => format!("p{digits:0<2}"),
        None => format!("q{label}"),
    }
}

#[cfg(test)]
mod tests;
