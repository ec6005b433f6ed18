//! The key table against what it feeds: docs/configuration.md's table, the flags,
//! examples/config.yml.

use std::path::PathBuf;

use super::super::{RawFile, keys};

const README_BEGIN: &str = "<!-- config table: generated from src/config/keys.rs; UPDATE_README=1 cargo test --lib readme -->\n";
const README_END: &str = "<!-- end of config table -->";

#[test]
fn the_readme_table_is_the_key_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/configuration.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme
        .find(README_BEGIN)
        .expect("docs/configuration.md lost its config table marker")
        + README_BEGIN.len();
    let end = start
        + readme[start..]
            .find(README_END)
            .expect("docs/configuration.md lost its end marker");
    let want = crate::cli::readme_table();
    if readme[start..end] == want {
        return;
    }
    // A rewrite is never a pass, as with UPDATE_GOLDEN: the run that writes
    // the table has compared nothing.
    let rewritten = std::env::var_os("UPDATE_README").is_some();
    if rewritten {
        let text = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, text).unwrap();
    }
    panic!(
        "docs/configuration.md's configuration table differs from src/config/keys.rs; {}\n\
         generated:\n{want}",
        if rewritten {
            "rewritten by UPDATE_README: review `git diff docs/configuration.md` and run the test again without it"
        } else {
            "regenerate it with UPDATE_README=1 cargo test --lib readme (which fails) and review the diff"
        }
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
