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
