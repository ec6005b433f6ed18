//! The landing page at `/`: one self-contained HTML document (no scripts, no
//! external assets) listing the drives. Every interpolated value is escaped:
//! model, serial and firmware strings come from the drive and are untrusted.

use std::fmt::Write as _;
use std::time::Duration;

use super::{DriveRow, ServerConfig};

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
mod tests {
    use super::*;

    fn config() -> ServerConfig {
        ServerConfig {
            telemetry_path: "/metrics".to_owned(),
            version: "1.2.3".to_owned(),
            banner: None,
            ..ServerConfig::default()
        }
    }

    fn row(model: &str) -> DriveRow {
        DriveRow {
            device: "/dev/nvme0".to_owned(),
            transport: "nvme".to_owned(),
            model: model.to_owned(),
            serial: "S123".to_owned(),
            firmware: "FW1".to_owned(),
            up: false,
            last_poll_age: Some(Duration::from_millis(2500)),
            state: "poll failing: timeout".to_owned(),
            status: "warning".to_owned(),
            ..DriveRow::default()
        }
    }

    #[test]
    fn escape_covers_html_metacharacters() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("Samsung SSD 980 PRO"), "Samsung SSD 980 PRO");
    }

    #[test]
    fn page_shows_every_column() {
        let page = render(&config(), &[row("Model X")]);
        for want in [
            "/dev/nvme0",
            "nvme",
            "Model X",
            "S123",
            "FW1",
            "down",
            "2.5 s ago",
            "poll failing: timeout",
            "Version 1.2.3",
            "<a href=\"/metrics\">",
        ] {
            assert!(page.contains(want), "missing {want:?} in\n{page}");
        }
        assert!(!page.contains("no drives found"));
        assert!(!page.contains("<script"));
    }

    #[test]
    fn pages_believed_unsupported_are_shown() {
        assert!(!render(&config(), &[row("M")]).contains("not supported"));
        let mut r = row("M");
        r.unsupported_pages = vec!["ocp_log".into(), "ata_devstat_07".into()];
        let page = render(&config(), &[r]);
        assert!(page.contains("ocp_log, ata_devstat_07"), "{page}");
    }

    #[test]
    fn banner_is_shown_and_escaped() {
        let mut config = config();
        assert!(!render(&config, &[]).contains("class=\"banner\""));
        config.banner = Some("SIMULATED <DATA>".to_owned());
        assert!(render(&config, &[]).contains("SIMULATED &lt;DATA&gt;"));
    }

    #[test]
    fn page_says_whether_tls_and_authentication_are_on() {
        let page = render(&config(), &[]);
        assert!(page.contains("TLS off, authentication off"), "{page}");
        let hash = bcrypt::hash("x", 4).unwrap();
        let web = crate::http::web::WebConfig {
            users: [("u".to_string(), hash)].into(),
            ..Default::default()
        };
        let with_auth = ServerConfig {
            web: crate::http::web::live::Live::fixed(web).unwrap(),
            ..config()
        };
        assert!(render(&with_auth, &[]).contains("TLS off, basic authentication on"));
    }

    #[test]
    fn poll_age_units() {
        assert_eq!(poll_age(None), "never");
        assert_eq!(poll_age(Some(Duration::from_secs(90))), "90.0 s ago");
        assert_eq!(poll_age(Some(Duration::from_secs(600))), "10 min ago");
        assert_eq!(poll_age(Some(Duration::from_secs(3 * 3600))), "3 h ago");
    }
}
