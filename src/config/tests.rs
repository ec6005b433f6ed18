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
fn the_shipped_web_config_example_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/web-config.yml");
    let text = std::fs::read_to_string(path).unwrap();
    let web = crate::http::web::WebConfig::parse(&text, Path::new("/etc/ssd_exporter")).unwrap();
    assert!(web.tls.is_some() && web.auth_enabled());
    assert_eq!(web.headers.len(), 3);
    let hash = &web.users["prometheus"];
    assert_eq!(bcrypt::verify("change-me", hash).ok(), Some(true));
}

const README_BEGIN: &str = "<!-- config table: generated from src/config/keys.rs; UPDATE_README=1 cargo test --lib readme -->\n";
const README_END: &str = "<!-- end of config table -->";

#[test]
fn the_readme_table_is_the_key_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme
        .find(README_BEGIN)
        .expect("README.md lost its config table marker")
        + README_BEGIN.len();
    let end = start
        + readme[start..]
            .find(README_END)
            .expect("README.md lost its end marker");
    let want = crate::cli::readme_table();
    if std::env::var_os("UPDATE_README").is_some() {
        std::fs::write(
            path,
            format!("{}{want}{}", &readme[..start], &readme[end..]),
        )
        .unwrap();
        return;
    }
    assert!(
        readme[start..end] == want,
        "README.md's configuration table differs from src/config/keys.rs; \
         regenerate it with UPDATE_README=1 cargo test --lib readme and review the diff.\n\
         generated:\n{want}"
    );
}

#[test]
fn readme_rows_say_what_the_old_hand_written_table_said() {
    // Rows as README.md had them by hand before the table was generated
    // (flag, key, default and the bound, from the specs of each module).
    let table = crate::cli::readme_table();
    for row in [
        "| `--check-config` | – | | validate the configuration and exit |",
        "| `--web.listen-address` (repeatable) | `web.listen_address` (list) | `:10049` |",
        "| `--web.max-connections` | `web.max_connections` | `256` |",
        "; `1` to `16384` |",
        "| `--poll.interval` | `poll.interval` | `60s` | how often each drive is polled (±10 % jitter); at most `1d` |",
        "| `--poll.timeout` | `poll.timeout` | `10s` |",
        "| `--discovery.interval` | `discovery.interval` | `30s` |",
        "| `--log.level` | `log.level` | `info` | least severe log level written; `error`, `warn`, `info`, `debug` or `trace` |",
        "| `--probe.rate` | `probe.rate` | `5` | probe reads per second per drive, Poisson-distributed; above 0, at most `1000` |",
        "| `--probe.window` | `probe.window` | `10m` |",
        "| `--probe.busy-threshold` | `probe.busy_threshold` | `0.9` |",
        "| `--probe.write.rate` | `probe.write.rate` | `0.2` | write probe operations per second; above 0, at most `100` |",
        "| `--probe.write.max-bytes` | `probe.write.max_bytes` | `67108864` | size of the write probe's file, in bytes; `1048576` (1 MiB) to `1073741824` (1 GiB) |",
        "| – | `health.wear_warning` | `0.8` |",
        "; above 0, at most `2.55` |",
        "| – | `health.throttle_recent` | `1h` |",
        "; at most `365d` |",
        "| – | `health.increase_window` | none |",
        "| `--path.drivedb` | `path.drivedb` | `/var/lib/smartmontools/drivedb/drivedb.h`, else `/usr/share/smartmontools/drivedb.h` |",
    ] {
        assert!(table.contains(row), "{row:?} missing from\n{table}");
    }
}

/// Every key of the table, by dotted name.
fn key_names() -> Vec<&'static str> {
    keys::all().iter().map(|k| k.name).collect()
}

#[test]
fn the_example_config_mentions_every_key() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/config.yml");
    // Keys shown commented out (`# config_file: ...`) count: uncomment them.
    let text: String = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            match t.strip_prefix("# ") {
                Some(rest) if rest.split_once(": ").is_some_and(|(k, _)| !k.contains(' ')) => {
                    format!("{indent}{rest}\n")
                }
                _ => format!("{l}\n"),
            }
        })
        .collect();
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    let names = key_names();
    assert!(names.len() > 30, "{names:?}");
    for name in names {
        let found = name.split('.').try_fold(&doc, |v, part| v.get(part));
        assert!(
            found.is_some(),
            "examples/config.yml does not mention {name}"
        );
    }
}

#[test]
fn every_flag_sets_its_key_and_an_absent_switch_leaves_the_file_alone() {
    use clap::Parser;
    let cli = crate::cli::Cli::try_parse_from([
        "ssd_exporter",
        "--demo",
        "--web.listen-address=:1",
        "--web.listen-address=:2",
        "--probe.write.max-bytes=1048576",
        "--web.config.file=/w.yml",
        "--probe.busy-threshold=0.5",
    ])
    .unwrap();
    let raw = cli.flags.to_raw();
    assert_eq!(raw.demo, Some(true));
    assert_eq!(raw.web.listen_address, [":1", ":2"]);
    assert_eq!(raw.probe.write.max_bytes, Some(1 << 20));
    assert_eq!(raw.web.config_file, Some(PathBuf::from("/w.yml")));
    assert_eq!(raw.probe.busy_threshold, Some(0.5));
    assert_eq!(raw.probe.disable, None);
    // A switch not given is not "false": the file's value stands.
    let none = crate::cli::Cli::try_parse_from(["ssd_exporter"]).unwrap();
    let file = RawFile::parse("demo: true\nprobe:\n  disable: true\n").unwrap();
    let merged = file.overlay(none.flags.to_raw());
    assert_eq!(
        (merged.demo, merged.probe.disable),
        (Some(true), Some(true))
    );
    // Switches take no value, as before.
    assert!(crate::cli::Cli::try_parse_from(["ssd_exporter", "--demo=false"]).is_err());
    // Health keys are file only.
    assert!(
        crate::cli::Cli::try_parse_from(["ssd_exporter", "--health.wear-warning=0.5"]).is_err()
    );
}

#[test]
fn every_long_flag_is_a_key_or_one_of_the_two_that_are_not() {
    use clap::CommandFactory;
    let flags: Vec<&'static str> = keys::all().iter().filter_map(|k| k.flag).collect();
    let cmd = crate::cli::Cli::command();
    let mut seen = 0;
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if !["config.file", "check-config", "help", "version"].contains(&long) {
            assert!(flags.contains(&long), "--{long} is not in the key table");
            seen += 1;
        }
    }
    assert_eq!(seen, flags.len());
    // Flag names are the key's dotted name with `-` for `_` (one exception,
    // `web.config.file`, kept as node_exporter spells it).
    for k in keys::all() {
        if let Some(f) = k.flag {
            let expected = k
                .name
                .replace('_', "-")
                .replace("config-file", "config.file");
            assert_eq!(f, expected, "{}", k.name);
        }
    }
}
