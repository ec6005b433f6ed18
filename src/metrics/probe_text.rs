//! The probes' families written straight into text, for the scrape path.
//!
//! The probe fleet publishes new views about once a second, so a scraper
//! spaced as Prometheus is (every 15 s) finds them changed at every scrape:
//! their text is encoded again each time, and through the library's encoder
//! that cost more than everything else a scrape does together (callgrind,
//! the demo's six drives: 600 K of the encode thread's 976 K instructions
//! per spaced scrape, most of it label sets escaped character by character
//! and bucket bounds formatted on every line).
//! Here each probe's label set is rendered once per encode, the bucket
//! bounds once per process, and a line is its pieces copied plus its value.
//!
//! The text is exactly what [`super::Exposition`]'s library encode writes
//! for the same views, in both formats (the library stays the reference:
//! [`super::encode`] uses it, and the tests compare the two byte for byte,
//! on every value class and label a view can carry). The numbers are
//! formatted by the crates the library formats them with (`itoa`, `dtoa`),
//! and the bucket bounds (`le`) are taken from the library's own output.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::probe::{BUSY, IOS, LATENCY, QUANTILE, SAMPLES, SKIPPED, ios, skips};
use super::{Detail, Format};
use crate::probe::fleet::ProbeView;
use crate::probe::histogram::Buckets;
use crate::snapshot::DriveSnapshot;

/// The families written, in order, each with the byte range of its
/// HELP/TYPE lines and that of its series.
pub(super) type Families = Vec<(&'static str, Range<usize>, Range<usize>)>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// Writes the probe families of `probes` (serials from `drives`) in
/// `format`: the text and its families. `None` if a bucket bound is none
/// of the probe histogram's (the caller encodes through the library).
pub(super) fn write(
    drives: &[Arc<DriveSnapshot>],
    probes: &[ProbeView],
    detail: Detail,
    format: Format,
) -> Option<(String, Families)> {
    let serials: HashMap<&str, &str> = drives
        .iter()
        .map(|d| (d.device.as_str(), d.identity.serial.as_str()))
        .collect();
    // `device="…",serial="…",block="…"` per probe, escaped once.
    let bases: Vec<String> = probes
        .iter()
        .map(|p| {
            let mut s = String::with_capacity(64);
            label(&mut s, "device", &p.drive);
            s.push(',');
            label(
                &mut s,
                "serial",
                serials.get(p.drive.as_str()).copied().unwrap_or(""),
            );
            s.push(',');
            label(&mut s, "block", &p.block);
            s
        })
        .collect();
    let lines: usize = probes.iter().map(|p| 40 * p.ops.len() + 6).sum();
    let mut w = Writer {
        out: String::with_capacity(256 * lines + 2048),
        format,
        families: Vec::with_capacity(6),
    };
    w.histogram(probes, &bases, detail.probe_buckets.buckets)?;
    let lazy = detail.lazy();
    let probe_bases = || probes.iter().zip(&bases);
    if probe_bases().any(|(p, _)| p.ops.iter().any(|o| !o.quantiles.is_empty())) {
        w.header(QUANTILE, Kind::Gauge);
        for (p, base) in probe_bases() {
            for o in &p.ops {
                for &(q, v) in &o.quantiles {
                    w.series(QUANTILE.0, "", base, |s| {
                        own(s, "op", o.op.as_label());
                        own(s, "q", q);
                        own(s, "window", &p.window);
                    });
                    w.f64(v);
                }
            }
        }
        w.close();
    }
    if probe_bases().any(|(p, _)| !p.ops.is_empty()) {
        w.header(SAMPLES, Kind::Gauge);
        for (p, base) in probe_bases() {
            for o in &p.ops {
                w.series(SAMPLES.0, "", base, |s| {
                    own(s, "op", o.op.as_label());
                    own(s, "window", &p.window);
                });
                w.f64(o.window_samples as f64);
            }
        }
        w.close();
        // Every op serves `ok` (probe::ios).
        w.header(IOS, Kind::Counter);
        for (p, base) in probe_bases() {
            for o in &p.ops {
                for (r, n) in ios(o, lazy) {
                    w.series(IOS.0, "_total", base, |s| {
                        own(s, "op", o.op.as_label());
                        own(s, "result", r.as_label());
                    });
                    w.u64(n);
                }
            }
        }
        w.close();
    }
    if probes.iter().any(|p| !skips(p, lazy).is_empty()) {
        w.header(SKIPPED, Kind::Counter);
        for (p, base) in probe_bases() {
            for (r, n) in skips(p, lazy) {
                w.series(SKIPPED.0, "_total", base, |s| {
                    own(s, "reason", r.as_label());
                });
                w.u64(n);
            }
        }
        w.close();
    }
    if probes.iter().any(|p| p.busy_ratio.is_some()) {
        w.header(BUSY, Kind::Gauge);
        for (p, base) in probe_bases() {
            if let Some(b) = p.busy_ratio {
                w.series(BUSY.0, "", base, |_| {});
                w.f64(b);
            }
        }
        w.close();
    }
    Some((w.out, w.families))
}

struct Writer {
    out: String,
    format: Format,
    families: Families,
}

impl Writer {
    /// The family's HELP and TYPE lines (a counter's name carries `_total`
    /// there only in the Prometheus format); opens the family.
    fn header(&mut self, (name, help): (&'static str, &str), kind: Kind) {
        let start = self.out.len();
        let total = kind == Kind::Counter && self.format == Format::Prometheus;
        for (tag, tail) in [("# HELP ", help), ("# TYPE ", kind.as_type())] {
            self.out.push_str(tag);
            self.out.push_str(name);
            if total {
                self.out.push_str("_total");
            }
            self.out.push(' ');
            self.out.push_str(tail);
            self.out.push('\n');
        }
        let body = self.out.len();
        self.families.push((name, start..body, body..body));
    }

    /// Ends the open family's series here.
    fn close(&mut self) {
        let end = self.out.len();
        if let Some((_, _, body)) = self.families.last_mut() {
            body.end = end;
        }
    }

    /// `name` + `suffix` (a counter's `_total`; a histogram's `_sum`,
    /// `_count`, `_bucket`), `{`, the probe's labels, then `rest`'s, `}`;
    /// the value is written next.
    fn series(&mut self, name: &str, suffix: &str, base: &str, rest: impl FnOnce(&mut String)) {
        self.out.push_str(name);
        self.out.push_str(suffix);
        self.out.push('{');
        self.out.push_str(base);
        rest(&mut self.out);
        self.out.push('}');
    }

    fn u64(&mut self, v: u64) {
        self.out.push(' ');
        self.out.push_str(itoa::Buffer::new().format(v));
        self.out.push('\n');
    }

    /// A gauge's value or a histogram's sum: `dtoa` in OpenMetrics; in the
    /// Prometheus format `dtoa` for finite values, `NaN`/`+Inf`/`-Inf` else.
    fn f64(&mut self, v: f64) {
        self.out.push(' ');
        let mut buf = dtoa::Buffer::new();
        let text = match self.format {
            Format::OpenMetrics => buf.format(v),
            _ if v.is_finite() => buf.format_finite(v),
            _ if v.is_nan() => "NaN",
            _ if v > 0.0 => "+Inf",
            _ => "-Inf",
        };
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The latency histogram: written (its header at least) whenever there
    /// are probes, as the library's encode does.
    fn histogram(
        &mut self,
        probes: &[ProbeView],
        bases: &[String],
        buckets: Buckets,
    ) -> Option<()> {
        if probes.is_empty() {
            return Some(());
        }
        self.header(LATENCY, Kind::Histogram);
        let name = LATENCY.0;
        let om = self.format == Format::OpenMetrics;
        for (p, base) in probes.iter().zip(bases) {
            for o in &p.ops {
                let op = |s: &mut String| own(s, "op", o.op.as_label());
                let selected = buckets.select(&o.buckets);
                let les = les(&selected, self.format)?;
                let sum_count = |w: &mut Self| {
                    w.series(name, "_sum", base, op);
                    w.f64(o.sum);
                    w.series(name, "_count", base, op);
                    w.u64(o.count);
                };
                if om {
                    sum_count(self);
                }
                let mut cumulative = 0u64;
                let mut inf_seen = false;
                for (&(bound, n), le) in selected.iter().zip(les.iter()) {
                    cumulative = cumulative.wrapping_add(n);
                    inf_seen |= bound == f64::INFINITY;
                    let out = &mut self.out;
                    out.push_str(name);
                    out.push_str("_bucket{");
                    if om {
                        out.push_str("le=\"");
                        out.push_str(le);
                        out.push_str("\",");
                        out.push_str(base);
                        op(out);
                    } else {
                        out.push_str(base);
                        op(out);
                        out.push_str(",le=\"");
                        out.push_str(le);
                        out.push('"');
                    }
                    out.push('}');
                    self.u64(cumulative);
                }
                if !om {
                    if !inf_seen {
                        self.series(name, "_bucket", base, |s| {
                            op(s);
                            s.push_str(",le=\"+Inf\"");
                        });
                        self.u64(o.count);
                    }
                    sum_count(self);
                }
            }
        }
        self.close();
        Some(())
    }
}

impl Kind {
    fn as_type(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// `,key="value"`.
fn own(out: &mut String, key: &str, value: &str) {
    out.push(',');
    label(out, key, value);
}

/// `key="value"`, the value escaped as the library escapes it (`\`, `"`
/// and newline).
fn label(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str("=\"");
    if value.bytes().any(|b| matches!(b, b'\\' | b'"' | b'\n')) {
        for c in value.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                c => out.push(c),
            }
        }
    } else {
        out.push_str(value);
    }
    out.push('"');
}

/// The `le` of each of `buckets`' bounds in `format`, from a table made
/// once; `None` for a bound that is none of the probe histogram's.
fn les(buckets: &[(f64, u64)], format: Format) -> Option<Vec<&'static str>> {
    let table = standard().get(format.index())?;
    let mut out = Vec::with_capacity(buckets.len());
    // Both ascend: one walk.
    let mut at = 0;
    for &(bound, _) in buckets {
        while table.get(at).is_some_and(|(b, _)| *b < bound) {
            at += 1;
        }
        let (b, le) = table.get(at)?;
        if b.to_bits() != bound.to_bits() {
            return None;
        }
        out.push(le.as_str());
    }
    Some(out)
}

/// Every bound of the probe histogram and `+Inf`, with its `le` per
/// format as the library writes it (empty if the library's text could
/// not be read: every encode then goes through the library).
fn standard() -> &'static [Vec<(f64, String)>; 2] {
    static TABLE: OnceLock<[Vec<(f64, String)>; 2]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut bounds = crate::probe::histogram::bucket_bounds().to_vec();
        bounds.push(f64::INFINITY);
        [Format::OpenMetrics, Format::Prometheus].map(|format| {
            let les = by_library(&bounds, format).unwrap_or_default();
            bounds.iter().copied().zip(les).collect()
        })
    })
}

/// The `le` values the library writes for a histogram of `bounds`.
fn by_library(bounds: &[f64], format: Format) -> Option<Vec<String>> {
    use prometheus_client::collector::Collector;
    use prometheus_client::encoding::DescriptorEncoder;
    use prometheus_client::metrics::MetricType;

    #[derive(Debug)]
    struct One(Vec<(f64, u64)>);
    impl Collector for One {
        fn encode(&self, mut e: DescriptorEncoder) -> std::fmt::Result {
            let mut m = e.encode_descriptor("h", "h", None, MetricType::Histogram)?;
            m.encode_histogram::<[(&str, &str); 0]>(0.0, 0, &self.0, None)
        }
    }
    let mut registry = prometheus_client::registry::Registry::default();
    registry.register_collector(Box::new(One(bounds.iter().map(|&b| (b, 0)).collect())));
    let mut text = String::new();
    match format {
        Format::OpenMetrics => prometheus_client::encoding::text::encode(&mut text, &registry),
        Format::Prometheus | Format::Protobuf => {
            prometheus_client::encoding::prometheus_text::encode(&mut text, &registry)
        }
    }
    .ok()?;
    let les: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("h_bucket{"))
        .map(|l| {
            let v = &l[l.find("le=\"")? + 4..];
            Some(v[..v.find('"')?].to_string())
        })
        .collect::<Option<_>>()?;
    // The Prometheus format adds a `+Inf` bucket when none is given.
    (les.len() >= bounds.len()).then(|| les[..bounds.len()].to_vec())
}

#[cfg(test)]
mod tests;
