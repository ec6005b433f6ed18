//! The landing page at `/`: one self-contained HTML document (no scripts, no
//! external assets) listing the drives. Every interpolated value is escaped:
//! model, serial and firmware strings come from the drive and are untrusted.

use std::fmt::Write as _;
use std::time::Duration;

use super::{DriveRow, ServerConfig};

mod timeline;

const STYLE: &str = "body{font-family:sans-serif;margin:2em}\
table{border-collapse:collapse}\
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}\
.banner{background:#fd0;padding:.5em;font-weight:bold}\
.down{color:#b00;font-weight:bold}\
.ok{background:#dfd}.warning{background:#ffd27f}.critical{background:#f99}.unknown{background:#ddd}\
td.num{text-align:right}td{max-width:24em;overflow-wrap:anywhere}ul{margin:0;padding-left:1.2em}";

/// Renders the landing page for `drives`.
pub fn render(config: &ServerConfig, drives: &[DriveRow]) -> String {
    let mut page = String::with_capacity(2048 + 256 * drives.len());
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta http-equiv=\"refresh\" content=\"30\">\n<title>SSD Exporter</title>\n");
    let _ = writeln!(page, "<style>{STYLE}</style>\n</head>\n<body>");
    page.push_str("<h1>SSD Exporter</h1>\n");
    if let Some(banner) = &config.banner {
        let _ = writeln!(page, "<p class=\"banner\">{}</p>", escape(banner));
    }
    let _ = writeln!(page, "<p>Version {}</p>", escape(&config.version));
    let _ = writeln!(page, "<p class=\"security\">{}</p>", security(config));
    let path = escape(&config.telemetry_path);
    let _ = writeln!(
        page,
        "<p><a href=\"{path}\">Metrics</a> at <code>{path}</code></p>"
    );
    page.push_str("<h2>Drives</h2>\n");
    if drives.is_empty() {
        page.push_str("<p>no drives found</p>\n");
    } else {
        drive_table(&mut page, drives);
        timeline::render(&mut page, drives);
    }
    page.push_str("</body>\n</html>\n");
    page
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

fn drive_table(page: &mut String, drives: &[DriveRow]) {
    page.push_str(
        "<table>\n<tr><th>Device</th><th>Model</th><th>Serial</th><th>Firmware</th>\
         <th>Health</th><th>Wear</th><th>Temp</th><th>PLP</th><th>Unsafe shutdowns</th>\
         <th>Throttling</th><th>Problems</th><th>Last poll</th><th>State</th></tr>\n",
    );
    for d in drives {
        let class = match d.status.as_str() {
            s @ ("ok" | "warning" | "critical") => s,
            _ => "unknown",
        };
        let temp = d
            .temperature_celsius
            .map_or("-".into(), |t| format!("{t:.0} °C"));
        let unsafe_ = d.unsafe_shutdowns.map_or("-".into(), |n| n.to_string());
        let throttling = match d.throttling {
            Some(true) => "now",
            Some(false) => "no",
            None => "-",
        };
        let _ = write!(
            page,
            "<tr class=\"drive {class}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"status\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>",
            escape(&d.device),
            escape(&d.model),
            escape(&d.serial),
            escape(&d.firmware),
            escape(&d.status),
            crate::report::percent(d.wear_ratio),
            escape(&temp),
            crate::report::percent(d.plp_health_ratio),
            unsafe_,
            throttling,
        );
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
        let up = if d.up { "" } else { " class=\"down\"" };
        let pages = if d.unsupported_pages.is_empty() {
            String::new()
        } else {
            format!(
                "<br><small class=\"pages\">not supported (asked again with each identity refresh): {}</small>",
                escape(&d.unsupported_pages.join(", "))
            )
        };
        let _ = writeln!(
            page,
            "</td><td>{}</td><td{up}>{}{pages}</td></tr>",
            poll_age(d.last_poll_age),
            escape(&d.state)
        );
    }
    page.push_str("</table>\n");
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
