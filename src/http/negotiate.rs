//! Content negotiation: `Accept` picks the exposition format,
//! `Accept-Encoding` decides whether to gzip. Pure functions over header text.

use super::Format;

/// Picks the exposition format for an `Accept` header value.
///
/// Each format's quality is the q-value of the most specific media range that
/// matches it (RFC 9110 §12.5.1); OpenMetrics wins only when its quality is
/// strictly higher than plain text's, so a missing header, `*/*` or a tie all
/// give the classic Prometheus text, which every scraper understands.
/// Media-type parameters other than `q` (such as OpenMetrics' `version`) are
/// not compared: we serve OpenMetrics 1.0.0 to any OpenMetrics request, as
/// the Prometheus client libraries do.
pub fn negotiate(accept: Option<&str>) -> Format {
    let Some(accept) = accept else {
        return Format::PrometheusText;
    };
    let openmetrics = quality(accept, "application", "openmetrics-text");
    let text = quality(accept, "text", "plain");
    if openmetrics > text {
        Format::OpenMetrics
    } else {
        Format::PrometheusText
    }
}

/// Whether an `Accept-Encoding` header value allows a gzip response: an
/// explicit `gzip` (or legacy `x-gzip`) entry with q > 0, or failing that a
/// `*` entry with q > 0.
pub fn accepts_gzip(accept_encoding: Option<&str>) -> bool {
    let Some(header) = accept_encoding else {
        return false;
    };
    let mut wildcard = None;
    for (coding, q) in elements(header) {
        if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            return q > 0.0;
        }
        if coding == "*" {
            wildcard = Some(q);
        }
    }
    wildcard.is_some_and(|q| q > 0.0)
}

/// The quality `accept` gives to `kind/sub`: the highest q among the most
/// specific matching ranges, 0 if nothing matches.
fn quality(accept: &str, kind: &str, sub: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for (range, q) in elements(accept) {
        let Some(specificity) = specificity(range, kind, sub) else {
            continue;
        };
        best = match best {
            Some((s, _)) if s > specificity => best,
            Some((s, bq)) if s == specificity => Some((s, bq.max(q))),
            _ => Some((specificity, q)),
        };
    }
    best.map_or(0.0, |(_, q)| q)
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

/// Splits a comma-separated header into `(value, q)` pairs. An element whose
/// q-value does not parse is dropped rather than guessed at.
fn elements(header: &str) -> impl Iterator<Item = (&str, f32)> {
    header.split(',').filter_map(|element| {
        let mut parts = element.split(';');
        let value = parts.next()?.trim();
        if value.is_empty() {
            return None;
        }
        let mut q = 1.0;
        for param in parts {
            let Some((name, v)) = param.split_once('=') else {
                continue;
            };
            if name.trim().eq_ignore_ascii_case("q") {
                q = parse_q(v.trim())?;
            }
        }
        Some((value, q))
    })
}

fn parse_q(text: &str) -> Option<f32> {
    let q: f32 = text.parse().ok()?;
    q.is_finite().then(|| q.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests;
