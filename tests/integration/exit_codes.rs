//! Bad configuration exits 2 with one line naming the key.

use std::process::Command;

use crate::common::*;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_flag_values_exit_2_with_one_line_naming_the_key() {
    let cases: [(&[&str], &str); 6] = [
        (&["--poll.interval=5x", "--check-config"], "poll.interval"),
        (&["--probe.rate=1e300", "--check-config"], "probe.rate"),
        (&["--poll.timeout=99999y", "--check-config"], "poll.timeout"),
        (&["--log.format=xml", "--check-config"], "log.format"),
        (&["--device.include=(", "--check-config"], "device.include"),
        (&["--no-such-flag"], "--no-such-flag"),
    ];
    for (args, key) in cases {
        let (code, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(key), "{args:?}: {err}");
    }
}

#[test]
fn unknown_config_key_exits_2_naming_it() {
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), "poll:\n  intervall: 5s\n").unwrap();
    let (code, err) = run(&["--config.file", path_str(tmp.path()), "--check-config"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("intervall") && err.contains("interval"),
        "{err}"
    );
}

#[test]
fn out_of_bounds_config_values_exit_2_naming_the_key_and_the_bound() {
    let cases = [
        ("probe:\n  rate: 1e300\n", "probe.rate", "at most 1000"),
        (
            // 1 TiB
            "probe:\n  write:\n    path: /var/lib/ssd_exporter\n    max_bytes: 1099511627776\n",
            "probe.write.max_bytes",
            "(1 GiB)",
        ),
    ];
    for (yaml, key, accepted) in cases {
        let tmp = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(tmp.path(), yaml).unwrap();
        let (code, err) = run(&["--config.file", path_str(tmp.path()), "--check-config"]);
        assert_eq!(code, 2, "{yaml:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{yaml:?}: {err}");
        assert!(
            err.contains(key) && err.contains(accepted),
            "{yaml:?}: {err}"
        );
    }
}

#[test]
fn shipped_example_config_checks_ok() {
    let example = repo().join("examples/config.yml");
    let (code, err) = run(&["--config.file", path_str(&example), "--check-config"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn replay_of_a_folder_that_is_not_a_dump_fails_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, err) = run(&[
        "--replay",
        path_str(tmp.path()),
        "--web.listen-address=127.0.0.1:0",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not a device dump"), "{err}");
}

#[test]
fn sigterm_stops_the_exporter_within_a_second() {
    let dir = repo().join("tests/fixtures/nvme/kingston-dc2000b/nvme0");
    let exporter = Exporter::start(&[&format!("--replay={}", path_str(&dir))]);
    exporter.scrape_after_polls(&["nvme0".to_string()], 1.0);
    let started = std::time::Instant::now();
    let status = exporter.terminate();
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(
        took < std::time::Duration::from_millis(1500),
        "took {took:?}"
    );
}
