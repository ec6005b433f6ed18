use super::*;

fn validate(yaml: &str) -> Result<Config, String> {
    let raw = RawFile::parse(yaml)?;
    Config::try_from(raw).map_err(|e| e.to_string())
}

#[test]
fn durations_follow_prometheus() {
    assert_eq!(parse_duration("1s"), Ok(Duration::from_secs(1)));
    assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
    assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
    assert_eq!(
        parse_duration("1m30s500ms"),
        Ok(Duration::from_millis(90_500))
    );
    assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
    for bad in [
        "",
        "5",
        "s",
        "1.5s",
        "30sec",
        "5m1h",
        "1s1s",
        "-1s",
        " 1s",
        "99999999999999999999y",
    ] {
        assert!(parse_duration(bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn defaults() {
    let c = validate("").unwrap();
    assert_eq!(c.listen, vec!["[::]:10049".parse::<SocketAddr>().unwrap()]);
    assert_eq!(c.telemetry_path, "/metrics");
    assert_eq!(c.poll_interval, Duration::from_secs(60));
    assert_eq!(c.discovery_interval, Duration::from_secs(30));
    assert_eq!(c.log_format, LogFormat::Logfmt);
    assert_eq!(c.log_level, tracing::Level::INFO);
    assert!(c.include.is_none() && c.exclude.is_none());
}

#[test]
fn unknown_key_is_named_on_one_line() {
    let e = validate("web:\n  listen_adress: [':1']\n").unwrap_err();
    assert!(!e.contains('\n'), "{e}");
    assert!(
        e.contains("listen_adress") && e.contains("listen_address"),
        "{e}"
    );
    let e = validate("pol:\n  interval: 1s\n").unwrap_err();
    assert!(e.contains("pol") && e.contains("poll"), "{e}");
}

#[test]
fn bad_values_name_the_key_and_what_is_accepted() {
    let cases = [
        ("poll:\n  interval: 5x\n", "poll.interval", "e.g. 30s"),
        (
            "poll:\n  interval: 0s\n",
            "poll.interval",
            "longer than zero",
        ),
        (
            "discovery:\n  interval: soon\n",
            "discovery.interval",
            "unit",
        ),
        (
            "device:\n  include: '(nvme'\n",
            "device.include",
            "regular expression",
        ),
        (
            "log:\n  level: loud\n",
            "log.level",
            "error, warn, info, debug or trace",
        ),
        ("log:\n  format: xml\n", "log.format", "logfmt or json"),
        (
            "web:\n  listen_address: ['10049']\n",
            "web.listen_address",
            ":port",
        ),
        (
            "web:\n  telemetry_path: metrics\n",
            "web.telemetry_path",
            "starting with /",
        ),
    ];
    for (yaml, key, accepted) in cases {
        let e = validate(yaml).unwrap_err();
        assert!(e.starts_with(key), "{yaml:?} gave {e}");
        assert!(e.contains(accepted), "{yaml:?} gave {e}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn flags_win_over_the_file() {
    let file = RawFile::parse("poll:\n  interval: 5m\n  timeout: 3s\n").unwrap();
    let flags = RawFile {
        poll: RawPoll {
            interval: Some("1s".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let c = Config::try_from(file.overlay(flags)).unwrap();
    assert_eq!(c.poll_interval, Duration::from_secs(1));
    assert_eq!(c.poll_timeout, Duration::from_secs(3));
}

#[test]
fn the_shipped_example_config_is_valid_and_sets_every_key() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/config.yml");
    let raw = RawFile::load(Path::new(path)).unwrap();
    let c = Config::try_from(raw).unwrap();
    assert_eq!(c.listen, vec!["[::]:10049".parse::<SocketAddr>().unwrap()]);
    assert_eq!(c.poll_interval, Duration::from_secs(60));
    assert_eq!(c.poll_timeout, Duration::from_secs(10));
    assert_eq!(c.discovery_interval, Duration::from_secs(30));
    assert!(c.include.as_ref().unwrap().is_match("nvme0"));
    assert!(c.include.as_ref().unwrap().is_match("sda"));
    assert!(!c.wake_standby);
    assert_eq!(c.drivedb.len(), 2);
    assert!(c.probe.enabled && c.probe.write.is_none());
    assert_eq!(c.probe.rate, 5.0);
    assert_eq!(c.probe.window, Duration::from_secs(600));
    assert_eq!(c.health.rules.wear_warning, 0.8);
    assert_eq!(c.health.rules.throttle_recent, Duration::from_secs(3600));
    assert_eq!(c.health.increase_window, None);
    assert!(c.exclude.is_none());
    assert_eq!(c.standby_max_skips, 0);
    assert_eq!(c.state_path, Some("/var/lib/ssd_exporter".into()));
}

#[test]
fn state_path_none_demo_and_replay() {
    let state = |yaml: &str| {
        Config::try_from(RawFile::parse(yaml).unwrap())
            .unwrap()
            .state_path
    };
    assert_eq!(state(""), Some("/var/lib/ssd_exporter".into()));
    assert_eq!(state("state:\n  path: none\n"), None);
    assert_eq!(state("state:\n  path: /srv/s\n"), Some("/srv/s".into()));
    // A replay writes state only where it is told to; the demo never.
    assert_eq!(state("replay: [/tmp/d]\n"), None);
    assert_eq!(
        state("replay: [/tmp/d]\nstate:\n  path: /tmp/s\n"),
        Some("/tmp/s".into())
    );
    assert_eq!(state("demo: true\nstate:\n  path: /tmp/s\n"), None);
}

#[test]
fn standby_max_skips_is_bounded() {
    let c = Config::try_from(RawFile::parse("poll:\n  standby_max_skips: 30\n").unwrap()).unwrap();
    assert_eq!(c.standby_max_skips, 30);
    let e = Config::try_from(RawFile::parse("poll:\n  standby_max_skips: 100001\n").unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("poll.standby_max_skips:") && e.contains("100000"),
        "{e}"
    );
}

#[test]
fn probe_and_health_values_are_checked() {
    let cases = [
        ("probe:\n  rate: 0\n", "probe.rate", "above 0"),
        (
            "probe:\n  busy_threshold: 1.5\n",
            "probe.busy_threshold",
            "at most 1",
        ),
        ("probe:\n  window: forever\n", "probe.window", "e.g. 30s"),
        (
            "probe:\n  write:\n    path: /x\n    mode: fast\n",
            "probe.write.mode",
            "direct or flush",
        ),
        (
            "health:\n  wear_warning: -1\n",
            "health.wear_warning",
            "above 0",
        ),
        (
            "health:\n  throttle_recent: 1x\n",
            "health.throttle_recent",
            "e.g. 30s",
        ),
    ];
    for (yaml, key, accepted) in cases {
        let e = validate(yaml).unwrap_err();
        assert!(
            e.starts_with(key) && e.contains(accepted),
            "{yaml:?} gave {e}"
        );
    }
    let c = validate("probe:\n  write:\n    path: /srv/probe\n    rate: 0.5\n    mode: flush\n")
        .unwrap();
    let w = c.probe.write.unwrap();
    assert_eq!(
        (w.path.to_str(), w.rate, w.flush),
        (Some("/srv/probe"), 0.5, true)
    );
}

#[test]
fn every_number_has_an_upper_bound_named_in_the_error() {
    let cases = [
        ("probe:\n  rate: 1e300\n", "probe.rate", "at most 1000"),
        ("probe:\n  rate: 1001\n", "probe.rate", "at most 1000"),
        (
            "probe:\n  write:\n    path: /x\n    rate: 101\n",
            "probe.write.rate",
            "at most 100",
        ),
        (
            "probe:\n  write:\n    path: /x\n    max_bytes: 1099511627776\n",
            "probe.write.max_bytes",
            "1073741824 (1 GiB)",
        ),
        (
            "probe:\n  write:\n    path: /x\n    max_bytes: 4096\n",
            "probe.write.max_bytes",
            "1048576 (1 MiB)",
        ),
        ("poll:\n  interval: 2d\n", "poll.interval", "at most 1d"),
        ("poll:\n  timeout: 11m\n", "poll.timeout", "at most 10m"),
        (
            "discovery:\n  interval: 99999y\n",
            "discovery.interval",
            "at most 1d",
        ),
        ("probe:\n  window: 25h\n", "probe.window", "at most 1d"),
        ("probe:\n  timeout: 1h\n", "probe.timeout", "at most 10m"),
        (
            "health:\n  throttle_recent: 2y\n",
            "health.throttle_recent",
            "at most 365d",
        ),
        (
            "health:\n  increase_window: 400d\n",
            "health.increase_window",
            "at most 365d",
        ),
        (
            "health:\n  wear_warning: 3\n",
            "health.wear_warning",
            "at most 2.55",
        ),
        (
            "health:\n  plp_health_critical: 1.5\n",
            "health.plp_health_critical",
            "at most 1",
        ),
        (
            "health:\n  spare_warning_factor: 1e9\n",
            "health.spare_warning_factor",
            "at most 100",
        ),
    ];
    for (yaml, key, accepted) in cases {
        let e = validate(yaml).unwrap_err();
        assert!(
            e.starts_with(key) && e.contains(accepted) && !e.contains('\n'),
            "{yaml:?} gave {e}"
        );
    }
    // The bounds themselves are accepted.
    let c = validate(
        "poll:\n  interval: 1d\n  timeout: 10m\nprobe:\n  rate: 1000\n  window: 24h\n  write:\n    path: /x\n    rate: 100\n    max_bytes: 1073741824\n",
    )
    .unwrap();
    assert_eq!(c.probe.rate, 1000.0);
    assert_eq!(c.probe.write.unwrap().max_bytes, 1 << 30);
}

#[test]
fn a_regex_that_compiles_too_large_is_refused() {
    // Small text, huge program: 20 nested counted repetitions.
    let e = validate("device:\n  include: '(((a{100}){100}){100})'\n").unwrap_err();
    assert!(
        e.starts_with("device.include") && e.contains("regular expression"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn web_config_file_errors_name_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.yml");
    std::fs::write(
        &path,
        "tls_server_config:\n  min_version: TLS10\n  cert_file: a\n  key_file: b\n",
    )
    .unwrap();
    let yaml = format!("web:\n  config_file: {}\n", path.display());
    let e = validate(&yaml).unwrap_err();
    assert!(e.starts_with("web.config_file: "), "{e}");
    assert!(
        e.contains("tls_server_config.min_version") && e.contains("TLS12 or TLS13"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    let e = validate("web:\n  config_file: /nonexistent/web.yml\n").unwrap_err();
    assert!(
        e.starts_with("web.config_file: /nonexistent/web.yml: "),
        "{e}"
    );
}

#[test]
fn max_connections_is_bounded() {
    assert_eq!(validate("").unwrap().max_connections, 256);
    assert_eq!(
        validate("web:\n  max_connections: 8\n")
            .unwrap()
            .max_connections,
        8
    );
    for bad in ["0", "100000"] {
        let e = validate(&format!("web:\n  max_connections: {bad}\n")).unwrap_err();
        assert!(
            e.starts_with("web.max_connections") && e.contains("1 to 16384"),
            "{e}"
        );
    }
}

#[test]
fn max_requests_defaults_to_node_exporters_40_and_is_bounded() {
    assert_eq!(validate("").unwrap().max_requests, 40);
    let c = validate("web:\n  max_requests: 3\n").unwrap();
    assert_eq!(c.max_requests, 3);
    for bad in ["0", "5000"] {
        let e = validate(&format!("web:\n  max_requests: {bad}\n")).unwrap_err();
        assert!(
            e.starts_with("web.max_requests") && e.contains("1 to 4096"),
            "{e}"
        );
    }
}

#[test]
fn the_shipped_web_config_example_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/web-config.yml");
    let text = std::fs::read_to_string(path).unwrap();
    let web = crate::http::web::WebConfig::parse(&text, Path::new("/etc/ssd_exporter")).unwrap();
    assert!(web.tls.is_some() && web.auth_enabled());
    assert_eq!(web.headers.len(), 3);
    let hash = &web.users["prometheus"];
    assert_eq!(bcrypt::verify("change-me", hash).ok(), Some(true));
}

mod mutes;
mod overrides;
mod reload;
mod selftest;
mod table;
