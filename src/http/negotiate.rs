//! Content negotiation: `Accept` picks the exposition format,
//! `Accept-Encoding` decides whether to gzip. Pure functions over header text.

use super::Format;

/// Picks the exposition format for an `Accept` header value.
///
/// Each format's quality is the q-value of the most specific media range that
/// matches it (RFC 9110 §12.5.1). A format wins only when its quality is
/// strictly higher than that of every format more widely read — plain text,
/// then OpenMetrics, then protobuf — so a missing header, `*/*` or a tie
/// all give the classic Prometheus text, which every scraper understands.
/// Media-type parameters other than `q` are not compared for the text
/// formats (we serve OpenMetrics 1.0.0 to any OpenMetrics request, as the
/// Prometheus client libraries do); protobuf is matched only with
/// `proto=io.prometheus.client.MetricFamily` and `encoding=delimited`, the
/// one framing served (as the Go client's `expfmt.Negotiate` matches it).
pub fn negotiate(accept: Option<&str>) -> Format {
    let Some(accept) = accept else {
        return Format::Prometheus;
    };
    let text = quality(accept, ("text", "plain"), &[]);
    let openmetrics = quality(accept, ("application", "openmetrics-text"), &[]);
    let protobuf = quality(accept, ("application", "vnd.google.protobuf"), &PROTOBUF);
    if protobuf > text.max(openmetrics) {
        Format::Protobuf
    } else if openmetrics > text {
        Format::OpenMetrics
    } else {
        Format::Prometheus
    }
}

/// The parameters a protobuf range must carry, values compared exactly.
const PROTOBUF: [(&str, &str); 2] = [
    ("proto", "io.prometheus.client.MetricFamily"),
    ("encoding", "delimited"),
];

/// Whether an `Accept-Encoding` header value allows a gzip response: an
/// explicit `gzip` (or legacy `x-gzip`) entry with q > 0, or failing that a
/// `*` entry with q > 0.
pub fn accepts_gzip(accept_encoding: Option<&str>) -> bool {
    let Some(header) = accept_encoding else {
        return false;
    };
    let mut wildcard = None;
    for (coding, _, q) in elements(header) {
        if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            return q > 0.0;
        }
        if coding == "*" {
            wildcard = Some(q);
        }
    }
    wildcard.is_some_and(|q| q > 0.0)
}

/// The quality `accept` gives to `kind/sub` with `params`: the highest q
/// among the most specific matching ranges, 0 if nothing matches. A type
/// that needs parameters (protobuf) matches only a range that names it
/// with them: a wildcard never picks a binary format.
fn quality(accept: &str, (kind, sub): (&str, &str), params: &[(&str, &str)]) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for (range, given, q) in elements(accept) {
        let Some(specificity) = specificity(range, kind, sub) else {
            continue;
        };
        let named = specificity == 2 && params.iter().all(|&p| has_param(given, p));
        if !params.is_empty() && !named {
            continue;
        }
        best = match best {
            Some((s, _)) if s > specificity => best,
            Some((s, bq)) if s == specificity => Some((s, bq.max(q))),
            _ => Some((specificity, q)),
        };
    }
    best.map_or(0.0, |(_, q)| q)
}

/// Whether the parameters of a range (`a=b;c=d`, as given) include `name`
/// (any case) with exactly `value` (optionally quoted).
fn has_param(params: &str, (name, value): (&str, &str)) -> bool {
    params.split(';').any(|p| {
        p.split_once('=').is_some_and(|(n, v)| {
            n.trim().eq_ignore_ascii_case(name) && v.trim().trim_matches('"') == value
        })
    })
}

/// 2 for an exact match, 1 for `kind/*`, 0 for `*/*`, `None` for no match.
fn specificity(range: &str, kind: &str, sub: &str) -> Option<u8> {
    let (rk, rs) = range.split_once('/')?;
    let (rk, rs) = (rk.trim(), rs.trim());
    if rk == "*" && rs == "*" {
        Some(0)
    } else if !rk.eq_ignore_ascii_case(kind) {
        None
    } else if rs == "*" {
        Some(1)
    } else if rs.eq_ignore_ascii_case(sub) {
        Some(2)
    } else {
        None
    }
}

/// Splits a comma-separated header into `(value, parameters, q)`, the
/// parameters as given (after the value's `;`). An element whose q-value
/// does not parse is dropped rather than guessed at.
fn elements(header: &str) -> impl Iterator<Item = (&str, &str, f32)> {
    header.split(',').filter_map(|element| {
        let (value, params) = element.split_once(';').unwrap_or((element, ""));
        let value = value.trim();
        if value.is_empty() {
            return None;
        }
        let mut q = 1.0;
        for param in params.split(';') {
            let Some((name, v)) = param.split_once('=') else {
                continue;
            };
            if name.trim().eq_ignore_ascii_case("q") {
                q = parse_q(v.trim())?;
            }
        }
        Some((value, params, q))
    })
}

fn parse_q(text: &str) -> Option<f32> {
    let q: f32 = text.parse().ok()?;
    q.is_finite().then(|| q.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests;
