//! The landing page at `/`: one self-contained HTML document (no scripts, no
//! external assets) listing the drives, worst first, under a one-line
//! summary. Every interpolated value is escaped: model, serial and firmware
//! strings come from the drive and are untrusted.
//!
//! Laid out to show a fleet at a glance (`tests/integration/landing.rs`
//! measures it in Chromium): the problems get the widest column, numbers and
//! serials never wrap (an operator reads a serial off the page to find the
//! drive), and the "Poll" column says whether the last poll worked — which
//! is not the verdict, so it is not called "state".

use std::fmt::Write as _;
use std::time::Duration;

use super::{DriveRow, ServerConfig};

mod timeline;

const STYLE: &str = "body{font-family:sans-serif;margin:1em 1.5em;font-size:14px}\
h1{font-size:1.5em;margin:0 0 .2em}\
p.meta{color:#444;margin:.1em 0}\
p.summary{font-size:1.2em;font-weight:bold;margin:.5em 0}\
table{border-collapse:collapse;width:100%}\
th,td{border:1px solid #ccc;padding:.25em .45em;text-align:left;vertical-align:top;white-space:nowrap}\
th{background:#eee;white-space:normal}\
td.drive{white-space:normal;min-width:15em}\
td.problems{white-space:normal;width:50%;min-width:20em;overflow-wrap:anywhere}\
td.poll{white-space:normal;min-width:6em;max-width:14em;overflow-wrap:anywhere}\
td.detail{white-space:normal;width:60%;overflow-wrap:anywhere}\
h2{font-size:1.2em;margin:1em 0 .3em}\
code.serial{white-space:nowrap;font-size:.95em}\
small{color:#333}\
.banner{background:#fd0;padding:.5em;font-weight:bold;margin:.4em 0}\
.down{color:#b00;font-weight:bold}\
.ok{background:#dfd}.warning{background:#ffd27f}.critical{background:#f99}.unknown{background:#ddd}\
.notjudged{background:#fff;color:#555}\
td.status{font-weight:bold}td.num{text-align:right}td.latency{text-align:right}\
ul{margin:0;padding-left:1.1em}\
@media (max-width:1100px){table,tbody,tr,td{display:block}tr.head{display:none}\
tr.drive{display:flex;flex-wrap:wrap;align-items:baseline;border:1px solid #999;margin:.4em 0}\
tr.drive td{border:none;padding:.15em .5em}\
td[data-label]::before{content:attr(data-label) \": \";color:#555;font-size:.85em}\
td.problems{flex-basis:100%;width:auto;min-width:0}td.poll{max-width:none}}";

/// The verdicts, worst first: the order of the rows and of the summary;
/// the devices not judged last, uncoloured (never the green of ok).
const ORDER: [&str; 5] = ["critical", "unknown", "warning", "ok", "not judged"];

/// Renders the landing page for `drives`.
pub fn render(config: &ServerConfig, drives: &[DriveRow]) -> String {
    let mut page = String::with_capacity(2048 + 512 * drives.len());
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta http-equiv=\"refresh\" content=\"30\">\n<title>SSD Exporter</title>\n");
    let _ = writeln!(page, "<style>{STYLE}</style>\n</head>\n<body>");
    page.push_str("<h1>SSD Exporter</h1>\n");
    if let Some(banner) = &config.banner {
        let _ = writeln!(page, "<p class=\"banner\">{}</p>", escape(banner));
    }
    let path = escape(&config.telemetry_path);
    let _ = writeln!(
        page,
        "<p class=\"meta\">Version {} · <span class=\"security\">{}</span> · <a href=\"{path}\">Metrics</a> at <code>{path}</code></p>",
        escape(&config.version),
        security(config)
    );
    let _ = writeln!(page, "<p class=\"summary\">{}</p>", summary(drives));
    if !drives.is_empty() {
        drive_table(&mut page, drives);
        timeline::render(&mut page, drives);
    }
    page.push_str("</body>\n</html>\n");
    page
}

/// `12 drives: 3 critical, 2 unknown, 1 warning, 6 ok`, worst first.
fn summary(drives: &[DriveRow]) -> String {
    if drives.is_empty() {
        return "no drives found".into();
    }
    let noun = if drives.len() == 1 { "drive" } else { "drives" };
    let counts: Vec<String> = ORDER
        .iter()
        .filter_map(|s| {
            let n = drives.iter().filter(|d| class(&d.status) == *s).count();
            let css = css(s);
            (n > 0).then(|| format!("<span class=\"{css}\">{n} {s}</span>"))
        })
        .collect();
    format!("{} {noun}: {}", drives.len(), counts.join(", "))
}

/// Whether TLS and authentication are on, for whoever looks at the page.
fn security(config: &ServerConfig) -> String {
    use super::web::ClientAuth;
    let web = config.web.current();
    let tls = match &web.config.tls {
        None => "TLS off".to_string(),
        Some(t) => match t.client_auth {
            ClientAuth::NoClientCert => "TLS on".to_string(),
            auth => format!("TLS on (client certificates: {})", auth.as_str()),
        },
    };
    let auth = if web.auth.is_some() {
        "basic authentication on"
    } else {
        "authentication off"
    };
    format!("{tls}, {auth}")
}

/// The verdict word a status reads as; anything else reads as unknown.
fn class(status: &str) -> &'static str {
    ORDER
        .iter()
        .find(|s| **s == status)
        .copied()
        .unwrap_or("unknown")
}

/// The CSS class of a verdict word (one word: `not judged` is
/// `notjudged`).
fn css(word: &str) -> &'static str {
    match word {
        "not judged" => "notjudged",
        w => ORDER
            .iter()
            .find(|s| **s == w)
            .copied()
            .unwrap_or("unknown"),
    }
}

fn drive_table(page: &mut String, drives: &[DriveRow]) {
    page.push_str(
        "<table>\n<tr class=\"head\"><th>Device</th><th>Health</th><th>Drive</th>\
         <th title=\"percentage used, and under it the time until it reaches 100 % at the rate seen so far\">Wear</th>\
         <th>Temp</th><th>PLP</th><th>Unsafe shutdowns</th><th>Throttling</th>\
         <th title=\"the latency probe's 4 KiB reads over its window, and the datasheet's QoS limit\">Read latency</th>\
         <th>Problems</th><th title=\"whether the last poll read the drive, and when\">Poll</th></tr>\n",
    );
    let mut sorted: Vec<&DriveRow> = drives.iter().collect();
    sorted.sort_by_key(|d| (ORDER.iter().position(|s| *s == class(&d.status)), &d.device));
    for d in sorted {
        row(page, d);
    }
    page.push_str("</table>\n");
}

fn row(page: &mut String, d: &DriveRow) {
    let class = css(class(&d.status));
    let temp = d
        .temperature_celsius
        .map_or("-".into(), |t| format!("{t:.0} °C"));
    let unsafe_ = d.unsafe_shutdowns.map_or("-".into(), |n| n.to_string());
    let throttling = match d.throttling {
        Some(true) => "now",
        Some(false) => "no",
        None => "-",
    };
    // Which `health.overrides` entry this drive's settings come from.
    let tuned = d.override_source.as_ref().map_or(String::new(), |o| {
        format!("<br><small class=\"override\">{}</small>", escape(o))
    });
    let _ = write!(
        page,
        "<tr class=\"drive {class}\"><td>{}</td><td class=\"status\">{}{tuned}</td>\
         <td class=\"drive\">{}<br><code class=\"serial\">{}</code> <small>fw {}</small></td>\
         <td class=\"num\" data-label=\"Wear\">{}<br><small class=\"wearout\">{}</small></td>\
         <td class=\"num\" data-label=\"Temp\">{}</td><td class=\"num\" data-label=\"PLP\">{}</td>\
         <td class=\"num\" data-label=\"Unsafe shutdowns\">{}</td><td data-label=\"Throttling\">{}</td>\
         <td class=\"latency\" data-label=\"Read latency\">{}</td><td class=\"problems\">",
        escape(&d.device),
        escape(&d.status),
        escape(&d.model),
        escape(&d.serial),
        escape(&d.firmware),
        crate::report::percent(d.wear_ratio),
        wearout(d.wearout_seconds),
        escape(&temp),
        crate::report::percent(d.plp_health_ratio),
        unsafe_,
        throttling,
        latency(d.latency.as_ref()),
    );
    if let Some(why) = &d.not_judged {
        let _ = write!(
            page,
            "<p class=\"not-judged\"><b>not judged</b>: {}</p>",
            escape(why)
        );
    }
    if !d.problems.is_empty() {
        page.push_str("<ul>");
        for p in &d.problems {
            let _ = write!(
                page,
                "<li class=\"problem\"><b>{}</b> ({}): {}</li>",
                escape(&p.name),
                escape(&p.severity),
                escape(&p.reason)
            );
        }
        page.push_str("</ul>");
    }
    if !d.unsupported_pages.is_empty() {
        let _ = write!(
            page,
            "<small class=\"pages\" title=\"asked again with each identity refresh\">pages not supported: {}</small>",
            escape(&d.unsupported_pages.join(", "))
        );
    }
    page.push_str("</td>");
    poll_cell(page, d);
    page.push_str("</tr>\n");
}

/// Whether the last poll worked and when. The error of a failing poll is
/// its `poll_failing` problem's reason; a page that failed while the drive
/// is up has no problem of its own, so it is said here.
fn poll_cell(page: &mut String, d: &DriveRow) {
    let (word, detail) = d.state.split_once(": ").unwrap_or((&d.state, ""));
    let down = if d.up { "" } else { " class=\"down\"" };
    let _ = write!(
        page,
        "<td class=\"poll\" data-label=\"Poll\"><span{down}>{}</span> <small>{}</small>",
        escape(word),
        poll_age(d.last_poll_age)
    );
    if d.up && !detail.is_empty() {
        let _ = write!(page, "<br><small>{}</small>", escape(detail));
    }
    page.push_str("</td>");
}

/// The probe's window median and p99, with the datasheet's limit under
/// them: `p50 85 µs<br>p99 150 µs<br><small>QoS p99.999 ≤ 200 µs</small>`;
/// `no probe` where none runs.
fn latency(l: Option<&crate::report::LatencyRow>) -> String {
    use crate::report::{duration, percentile};
    let Some(l) = l else {
        return "<small>no probe</small>".into();
    };
    let mut cell = match (l.p50_seconds, l.p99_seconds) {
        (Some(p50), Some(p99)) => format!("p50 {}<br>p99 {}", duration(p50), duration(p99)),
        _ => "<small>no reads yet</small>".into(),
    };
    if let Some(q) = &l.qos {
        let _ = write!(
            cell,
            "<br><small class=\"qos\">QoS {} ≤ {}</small>",
            percentile(&q.quantile),
            duration(q.seconds)
        );
    }
    cell
}

/// The wear-out forecast, as the time left: `16 days`, `3.2 years`,
/// `worn out`, `-` (none: too little history, or no wear reported).
fn wearout(seconds: Option<f64>) -> String {
    const DAY: f64 = 86_400.0;
    const YEAR: f64 = 365.0 * DAY;
    match seconds {
        None => "-".into(),
        Some(s) if !s.is_finite() || s < 0.0 => "-".into(),
        Some(s) if s < DAY => "worn out".into(),
        Some(s) if s < 90.0 * DAY => format!("{:.0} days", s / DAY),
        Some(s) if s < 2.0 * YEAR => format!("{:.0} months", s / (30.44 * DAY)),
        Some(s) if s < 10.0 * YEAR => format!("{:.1} years", s / YEAR),
        Some(s) if s < 100.0 * YEAR => format!("{:.0} years", s / YEAR),
        Some(_) => "over 100 years".into(),
    }
}

/// `12.3 s ago`, `4 min ago`, or `never`.
fn poll_age(age: Option<Duration>) -> String {
    match age {
        None => "never".to_owned(),
        Some(age) if age < Duration::from_secs(120) => format!("{:.1} s ago", age.as_secs_f64()),
        Some(age) if age < Duration::from_secs(2 * 3600) => {
            format!("{} min ago", age.as_secs() / 60)
        }
        Some(age) => format!("{} h ago", age.as_secs() / 3600),
    }
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
