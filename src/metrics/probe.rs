//! Latency probe families and datasheet QoS targets.

use std::fmt;

use prometheus_client::metrics::MetricType;

use prometheus_client::encoding::{
    EncodeLabel, EncodeLabelSet, LabelSetEncoder, NativeHistogram, NativeHistogramBuckets,
};

use super::{Enc, Exposition, Format, Wide, counter, family};
use crate::probe::fleet::{OpView, ProbeView};
use crate::probe::native;
use crate::probe::op::IoResult;
use crate::probe::qos;

use crate::probe::runner::SkipReason;

/// The probe families' names and help, shared by the library's encoder
/// (the reference) and the scrape path's direct writer ([`super::probe_text`]).
pub(super) const LATENCY: (&str, &str) = (
    "ssd_probe_latency_seconds",
    "Latency of every probe I/O (4 KiB, queue depth 1, O_DIRECT); fixed buckets 10 µs to 10 s shared by every exporter, or (protobuf) native buckets of schema 3.",
);
pub(super) const QUANTILE: (&str, &str) = (
    "ssd_probe_latency_quantile_seconds",
    "Exact latency quantiles of probe I/O over a sliding window (nearest rank, < 0.8 % high).",
);
pub(super) const SAMPLES: (&str, &str) = (
    "ssd_probe_window_samples",
    "Probe I/Os in the sliding window behind the quantiles (p99.9 needs tens of thousands).",
);
pub(super) const IOS: (&str, &str) = (
    "ssd_probe_ios",
    "Probe I/Os by result (ok, error, timeout).",
);
pub(super) const SKIPPED: (&str, &str) = (
    "ssd_probe_skipped",
    "Probes not issued so as not to disturb the drive (busy, standby) or because it could not be read (permission, error).",
);
pub(super) const BUSY: (&str, &str) = (
    "ssd_probe_busy_ratio",
    "The probe's own share of the drive's busy time over the last interval.",
);

/// The skips to serve, in label order: every reason's from 0, or where
/// `lazy` (see [`super::Detail::lazy`]) only the reasons with a skip.
pub(super) fn skips(p: &ProbeView, lazy: bool) -> std::collections::BTreeMap<SkipReason, u64> {
    let mut counts: std::collections::BTreeMap<SkipReason, u64> =
        SkipReason::ALL.iter().map(|&r| (r, 0)).collect();
    counts.extend(p.skipped.iter().copied());
    counts.retain(|_, n| *n > 0 || !lazy);
    counts
}

/// An op's I/O counts to serve: `ok` always (the rate every panel divides
/// by), `error` and `timeout` from 0 or, where `lazy`, from their first.
pub(super) fn ios(o: &OpView, lazy: bool) -> impl Iterator<Item = (IoResult, u64)> + '_ {
    o.ios
        .iter()
        .filter(move |&(r, n)| r == IoResult::Ok || n > 0 || !lazy)
}

/// Drive name → serial.
type Serials<'a> = std::collections::HashMap<&'a str, &'a str>;

/// `device`, `serial` and `block`: the labels every probe series starts
/// with (serial empty for a `--probe.device` that is no monitored drive).
#[derive(Debug, Clone, Copy)]
struct ProbeLabels<'a> {
    device: &'a str,
    serial: &'a str,
    block: &'a str,
}

impl EncodeLabelSet for ProbeLabels<'_> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> fmt::Result {
        ("device", self.device).encode(encoder.encode_label())?;
        ("serial", self.serial).encode(encoder.encode_label())?;
        ("block", self.block).encode(encoder.encode_label())
    }
}

impl Exposition {
    /// `device` and `serial` of the drive a probe belongs to (serial empty
    /// for a `--probe.device` that is no monitored drive), plus `block`.
    fn probe_base<'a>(serials: &Serials<'a>, p: &'a ProbeView) -> ProbeLabels<'a> {
        ProbeLabels {
            device: &p.drive,
            serial: serials.get(p.drive.as_str()).copied().unwrap_or(""),
            block: &p.block,
        }
    }

    pub(super) fn probe(&self, enc: &mut Enc) -> fmt::Result {
        // Each probe's serial by map: one pass over the drives, not one
        // per probe series.
        let serials: Serials<'_> = self
            .drives
            .iter()
            .map(|d| (d.device.as_str(), d.identity.serial.as_str()))
            .collect();
        let serials = &serials;
        let lazy = enc.detail.lazy();
        self.probe_histogram(enc, serials)?;
        let quantiles = self.probes.iter().flat_map(|p| {
            p.ops.iter().flat_map(move |o| {
                o.quantiles.iter().map(move |&(q, v)| {
                    let own = [
                        ("op", o.op.as_label()),
                        ("q", q),
                        ("window", p.window.as_str()),
                    ];
                    ((Self::probe_base(serials, p), own), v)
                })
            })
        });
        family(enc, QUANTILE.0, QUANTILE.1, MetricType::Gauge, quantiles)?;
        let samples = self.probes.iter().flat_map(|p| {
            p.ops.iter().map(move |o| {
                let own = [("op", o.op.as_label()), ("window", p.window.as_str())];
                ((Self::probe_base(serials, p), own), o.window_samples as f64)
            })
        });
        family(enc, SAMPLES.0, SAMPLES.1, MetricType::Gauge, samples)?;
        let ios = self.probes.iter().flat_map(|p| {
            p.ops.iter().flat_map(move |o| {
                ios(o, lazy).map(move |(r, n)| {
                    let own = [("op", o.op.as_label()), ("result", r.as_label())];
                    ((Self::probe_base(serials, p), own), Wide(u128::from(n)))
                })
            })
        });
        counter(enc, IOS.0, IOS.1, ios)?;
        let skipped = self.probes.iter().flat_map(|p| {
            skips(p, lazy).into_iter().map(move |(r, n)| {
                let own = [("reason", r.as_label())];
                ((Self::probe_base(serials, p), own), Wide(u128::from(n)))
            })
        });
        counter(enc, SKIPPED.0, SKIPPED.1, skipped)?;
        let busy = self
            .probes
            .iter()
            .filter_map(|p| p.busy_ratio.map(|b| (Self::probe_base(serials, p), b)));
        family(enc, BUSY.0, BUSY.1, MetricType::Gauge, busy)
    }

    fn probe_histogram(&self, enc: &mut Enc, serials: &Serials<'_>) -> fmt::Result {
        let (name, help) = LATENCY;
        enc.note(name, !self.probes.is_empty());
        if self.probes.is_empty() {
            return Ok(());
        }
        let classic = enc.detail.probe_buckets;
        let protobuf = enc.format == Format::Protobuf;
        let mut m = enc
            .inner
            .encode_descriptor(name, help, None, MetricType::Histogram)?;
        for p in &self.probes {
            for o in &p.ops {
                let l = (Self::probe_base(serials, p), [("op", o.op.as_label())]);
                let buckets = classic.buckets.select(&o.buckets);
                let mut h = m.encode_family(&l)?;
                if !protobuf {
                    h.encode_histogram::<[(&str, &str); 0]>(o.sum, o.count, &buckets, None)?;
                    continue;
                }
                // Classic buckets beside the native ones only when asked.
                let buckets = if classic.on_protobuf {
                    &buckets[..]
                } else {
                    &[]
                };
                let n = &o.native;
                let native = NativeHistogram {
                    schema: native::SCHEMA,
                    zero_threshold: native::ZERO_THRESHOLD,
                    zero_count: n.zero_count,
                    negative: NativeHistogramBuckets {
                        spans: &[],
                        deltas: &[],
                    },
                    positive: NativeHistogramBuckets {
                        spans: &n.spans,
                        deltas: &n.deltas,
                    },
                    created: None,
                };
                h.encode_histogram_with_native::<[(&str, &str); 0]>(
                    o.sum, o.count, buckets, None, native,
                )?;
            }
        }
        Ok(())
    }

    pub(super) fn qos_targets(&self, enc: &mut Enc) -> fmt::Result {
        let rows = self.drives.iter().flat_map(|d| {
            qos::targets_for(&d.identity.model).iter().map(move |t| {
                let l = Self::with(d, [("op", t.op.as_label()), ("q", t.quantile_label)]);
                (l, t.seconds)
            })
        });
        family(
            enc,
            "ssd_latency_qos_target_seconds",
            "The datasheet's latency QoS limit (4 KiB, queue depth 1) for this model.",
            MetricType::Gauge,
            rows,
        )
    }
}
