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
        "Model X",
        "<code class=\"serial\">S123</code>",
        "fw FW1",
        "class=\"down\">poll failing</span>",
        "2.5 s ago",
        "Version 1.2.3",
        "<a href=\"/metrics\">",
        "<th title=\"whether the last poll read the drive, and when\">Poll</th>",
    ] {
        assert!(page.contains(want), "missing {want:?} in\n{page}");
    }
    // The column says what the poll did; it is not the drive's state.
    assert!(!page.contains(">State<"), "{page}");
    assert!(!page.contains("no drives found"));
    assert!(!page.contains("<script"));
}

#[test]
fn summary_counts_the_verdicts_worst_first_and_rows_follow() {
    let mut rows = Vec::new();
    for (device, status) in [
        ("nvme0", "ok"),
        ("nvme1", "critical"),
        ("sda", "warning"),
        ("sdb", "ok"),
        ("sdc", "unknown"),
    ] {
        let mut r = row("M");
        r.device = device.into();
        r.status = status.into();
        rows.push(r);
    }
    let page = render(&config(), &rows);
    assert!(
        page.contains("5 drives: <span class=\"critical\">1 critical</span>, <span class=\"unknown\">1 unknown</span>, <span class=\"warning\">1 warning</span>, <span class=\"ok\">2 ok</span>"),
        "{page}"
    );
    let order: Vec<usize> = ["nvme1", "sdc", "sda", "nvme0", "sdb"]
        .iter()
        .map(|d| page.find(&format!("<td>{d}</td>")).unwrap())
        .collect();
    assert!(order.is_sorted(), "rows not worst first: {order:?}");
    assert!(render(&config(), &rows[..1]).contains("1 drive: "));
    assert!(render(&config(), &[]).contains("<p class=\"summary\">no drives found</p>"));
}

#[test]
fn wear_out_forecast_reads_as_time_left() {
    let day = 86_400.0;
    assert_eq!(wearout(None), "-");
    assert_eq!(wearout(Some(0.0)), "worn out");
    assert_eq!(wearout(Some(16.0 * day)), "16 days");
    assert_eq!(wearout(Some(200.0 * day)), "7 months");
    assert_eq!(wearout(Some(3.2 * 365.0 * day)), "3.2 years");
    assert_eq!(wearout(Some(32.3 * 365.0 * day)), "32 years");
    assert_eq!(wearout(Some(1e12)), "over 100 years");
    assert_eq!(wearout(Some(f64::NAN)), "-");
    let mut r = row("M");
    r.wearout_seconds = Some(16.0 * day);
    assert!(render(&config(), &[r]).contains("<small class=\"wearout\">16 days</small>"));
}

#[test]
fn a_page_that_failed_while_the_drive_is_up_is_said_in_the_poll_column() {
    let mut r = row("M");
    r.up = true;
    r.state = "ok, but a page failed: error log: timeout".into();
    let page = render(&config(), &[r]);
    assert!(
        page.contains("<span>ok, but a page failed</span>"),
        "{page}"
    );
    assert!(page.contains("<small>error log: timeout</small>"), "{page}");
}

#[test]
fn pages_believed_unsupported_are_shown() {
    assert!(!render(&config(), &[row("M")]).contains("not supported"));
    let mut r = row("M");
    r.unsupported_pages = vec!["ocp_log".into(), "ata_devstat_07".into()];
    let page = render(&config(), &[r]);
    assert!(
        page.contains("pages not supported: ocp_log, ata_devstat_07"),
        "{page}"
    );
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

#[test]
fn the_event_timeline_is_shown_escaped_and_only_when_there_is_one() {
    let page = render(&config(), &[row("M")]);
    assert!(!page.contains("<h2>Events</h2>"));
    let mut r = row("M");
    r.events = vec![
        crate::report::EventRow {
            position: 3,
            kind: "firmware_commit".into(),
            at: Some("2026-11-30T00:00:00Z".into()),
            since_reset_ms: None,
            detail: "firmware <A> -> B".into(),
        },
        crate::report::EventRow {
            position: 0,
            kind: "power_on_reset".into(),
            at: None,
            since_reset_ms: Some(1500),
            detail: String::new(),
        },
    ];
    let page = render(&config(), &[r]);
    for want in [
        "<h2>Events</h2>",
        "2026-11-30T00:00:00Z",
        "firmware commit",
        "firmware &lt;A&gt; -&gt; B",
        "1.5 s after a reset",
        "power on reset",
    ] {
        assert!(page.contains(want), "missing {want:?} in\n{page}");
    }
    assert!(page.find("firmware commit") < page.find("power on reset"));
}

#[test]
fn read_latency_is_shown_beside_the_datasheet_limit_or_no_probe() {
    use crate::report::{LatencyRow, QosRow};
    let mut probed = row("KINGSTON SEDC600M960G");
    probed.latency = Some(LatencyRow {
        block: "sda".into(),
        p50_seconds: Some(95e-6),
        p99_seconds: Some(1.25e-3),
        samples: 3000,
        qos: Some(QosRow {
            quantile: "0.99999".into(),
            seconds: 200e-6,
        }),
    });
    let mut waiting = row("Model W");
    waiting.device = "sdw".into();
    waiting.latency = Some(LatencyRow {
        block: "sdw".into(),
        ..LatencyRow::default()
    });
    let mut unprobed = row("Model U");
    unprobed.device = "sdu".into();
    let page = render(&config(), &[probed, waiting, unprobed]);
    assert!(page.contains(">Read latency</th>"), "{page}");
    for want in [
        "p50 95 µs<br>p99 1.2 ms<br><small class=\"qos\">QoS p99.999 ≤ 200 µs</small>",
        "<small>no reads yet</small>",
        "<small>no probe</small>",
    ] {
        assert!(page.contains(want), "missing {want:?} in\n{page}");
    }
}

/// Issue 37 part 2: a device not judged reads "not judged", uncoloured and
/// last, with the reason where the problems go; never the green of ok.
#[test]
fn a_device_not_judged_is_never_painted_ok() {
    let mut ok = row("M");
    (ok.device, ok.status) = ("nvme0".into(), "ok".into());
    let mut lv = row("HP LOGICAL VOLUME");
    lv.device = "sdsk".into();
    lv.status = "not judged".into();
    lv.not_judged = Some("a RAID controller's logical drive <b>".into());
    let page = render(&config(), &[lv, ok]);
    assert!(
        page.contains(
            "2 drives: <span class=\"ok\">1 ok</span>, <span class=\"notjudged\">1 not judged</span>"
        ),
        "{page}"
    );
    assert!(
        page.contains("<tr class=\"drive notjudged\"><td>sdsk</td><td class=\"status\">not judged"),
        "{page}"
    );
    assert!(
        page.contains(
            "<p class=\"not-judged\"><b>not judged</b>: a RAID controller&#39;s logical drive &lt;b&gt;</p>"
        ),
        "{page}"
    );
    assert!(page.find("<td>nvme0</td>") < page.find("<td>sdsk</td>"));
}
