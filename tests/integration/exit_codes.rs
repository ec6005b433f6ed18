//! Bad configuration exits 2 with one line naming the key; a command line
//! clap refuses exits 2 with clap's whole message; `check` exits 3
//! (UNKNOWN) for either.

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
    let cases: [(&[&str], &str); 7] = [
        (&["--poll.interval=5x", "--check-config"], "poll.interval"),
        // What start would refuse, checked without polling a drive.
        (
            &["--replay=/nonexistent/nvme0", "--check-config"],
            "replay: ",
        ),
        (
            &["--probe.device=nosuch", "--check-config"],
            "probe.device: ",
        ),
        (&["--probe.rate=1e300", "--check-config"], "probe.rate"),
        (&["--poll.timeout=99999y", "--check-config"], "poll.timeout"),
        (&["--log.format=xml", "--check-config"], "log.format"),
        (&["--device.include=(", "--check-config"], "device.include"),
    ];
    for (args, key) in cases {
        let (code, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(key), "{args:?}: {err}");
    }
}

#[test]
fn refused_command_lines_print_clap_whole_message() {
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["--poll-interval=30s"],
            &[
                "unexpected argument '--poll-interval'",
                "a similar argument exists: '--poll.interval'",
            ],
        ),
        (
            &["dump", "/dev/sda"],
            &["required arguments were not provided", "<FOLDER>"],
        ),
        (&["--no-such-flag"], &["--no-such-flag"]),
    ];
    for (args, wants) in cases {
        let (code, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        for want in wants.iter().chain(&["Usage: ssd_exporter", "try '--help'"]) {
            assert!(err.contains(want), "{args:?}: {want:?} missing from\n{err}");
        }
    }
}

#[test]
fn check_exits_3_unknown_for_a_bad_command_line_or_configuration() {
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), "poll:\n  intervall: 5s\n").unwrap();
    let config = format!("--config.file={}", path_str(tmp.path()));
    let cases: [&[&str]; 4] = [
        &["check", "--bogus"],
        &["check", "--poll.timeout=5x"],
        &["check", &config],
        &[&config, "check", "nvme0"],
    ];
    for args in cases {
        let (code, err) = run(args);
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
    // The same outside check: 2.
    assert_eq!(run(&["--bogus"]).0, 2);
    assert_eq!(run(&[&config, "--check-config"]).0, 2);
}

#[test]
fn help_is_self_contained_and_dump_lists_only_what_it_uses() {
    let help = |args: &[&str]| {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let top = help(&["--help"]);
    // No pointer to a README section a reader of --help cannot see.
    assert!(!top.contains("(see \""), "{top}");
    let dump = help(&["dump", "--help"]);
    for unused in [
        "--replay <",
        "--web.config.file",
        "--demo",
        "--path.drivedb",
    ] {
        assert!(
            !dump.contains(unused),
            "dump --help lists {unused}:\n{dump}"
        );
    }
    for used in [
        "--redact",
        "--poll.timeout",
        "/dev/nvme0",
        "/dev/sda",
        "SAS",
    ] {
        assert!(dump.contains(used), "dump --help lacks {used}:\n{dump}");
    }
    let check = help(&["check", "--help"]);
    for used in ["--replay", "--demo", "--wide", "--json"] {
        assert!(check.contains(used), "check --help lacks {used}:\n{check}");
    }
    assert!(!check.contains("--web.config.file"), "{check}");
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
        // The file and the key's line, as the value came from the file.
        let at = format!("config file {}: line ", path_str(tmp.path()));
        assert!(err.contains(&at), "{yaml:?}: {err}");
    }
}

/// `--config.file` with `yaml` and `--check-config`: exit code, stderr.
fn check_config(yaml: &str, extra: &[&str]) -> (i32, String) {
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), yaml).unwrap();
    let file = format!("--config.file={}", path_str(tmp.path()));
    run(&[&[file.as_str(), "--check-config"], extra].concat())
}

#[test]
fn config_type_errors_speak_yaml_with_the_file_line_and_an_example() {
    let cases = [
        (
            "probe:\n  rate: fast\n",
            "line 2 column 9: probe.rate: expected a number, e.g. `probe: {rate: 5}`; found a string",
        ),
        (
            "poll: 5\n",
            "line 1 column 7: poll: expected a section of keys (interval, timeout, wake_standby, standby_max_skips)",
        ),
        (
            "probe:\n  rate: 5000\n",
            "line 2: probe.rate: 5000.0 must be a number above 0 and at most 1000",
        ),
    ];
    for (yaml, want) in cases {
        let (code, err) = check_config(yaml, &[]);
        assert_eq!(code, 2, "{yaml:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{yaml:?}: {err}");
        assert!(err.starts_with("error: config file /"), "{yaml:?}: {err}");
        assert!(err.contains(want), "{yaml:?}: {want} not in {err}");
        assert!(!err.contains("f64") && !err.contains("struct"), "{err}");
    }
    // The bad value came from a flag, not the file: the file is not blamed.
    let (code, err) = check_config("poll:\n  interval: 5s\n", &["--probe.rate=5000"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: probe.rate: "), "{err}");
}

#[test]
fn a_single_address_where_a_list_is_expected_is_accepted() {
    let (code, err) = check_config("web:\n  listen_address: \"127.0.0.1:10049\"\n", &[]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_config_file_that_is_not_one_is_never_echoed() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("config.yml");
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    let first = std::fs::read_to_string("/etc/passwd").unwrap();
    let first = first.lines().next().unwrap().to_string();
    let (code, err) = run(&[
        &format!("--config.file={}", path_str(&link)),
        "--check-config",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("line 1 column 1: expected a mapping"), "{err}");
    assert!(!err.contains(&first), "the file's first line echoed: {err}");
    for field in first.split(':').filter(|f| f.len() > 2) {
        assert!(
            !err.contains(field),
            "{field:?} of /etc/passwd echoed: {err}"
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
    // A configuration error, found before anything starts.
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
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

/// The exporter's log from its start until every line in `wants` has been
/// seen (or 20 s have passed), then the exporter is stopped.
fn startup_log(args: &[&str], wants: &[&str]) -> String {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(["--web.listen-address=127.0.0.1:0", "--probe.disable"])
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut log = String::new();
    while !wants.iter().all(|w| log.contains(w)) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => log += &(line + "\n"),
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    log
}

#[test]
fn start_says_when_no_drive_is_found_and_what_to_try() {
    let sysfs = tempfile::tempdir().unwrap();
    let sysfs = format!("--path.sysfs={}", path_str(sysfs.path()));
    let want = "no NVMe, SATA, SAS or SCSI drives found";
    let log = startup_log(&[&sysfs, "--path.drivedb=none"], &[want]);
    assert!(log.contains(want) && log.contains("--demo"), "{log}");
}

#[test]
fn start_logs_once_which_drive_database_names_the_attributes() {
    let sysfs = tempfile::tempdir().unwrap();
    let sysfs = format!("--path.sysfs={}", path_str(sysfs.path()));
    let names = "SATA attribute names:";
    let log = startup_log(&[&sysfs, "--path.drivedb=none"], &[names]);
    assert!(
        log.contains("the built-in table only (path.drivedb: none)"),
        "{log}"
    );
    let log = startup_log(&[&sysfs, "--path.drivedb=/nonexistent/drivedb.h"], &[names]);
    assert!(log.contains("install smartmontools"), "{log}");
    assert!(log.contains("tried=/nonexistent/drivedb.h"), "{log}");
    let db = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        db.path(),
        "{ \"Test family\", \"TESTDRIVE\", \"\", \"\", \"-v 192,raw48,Test_Unsafe\" },\n",
    )
    .unwrap();
    let file = format!("--path.drivedb={}", path_str(db.path()));
    let log = startup_log(&[&sysfs, &file], &[names, "tls off"]);
    assert!(
        log.contains("smartmontools' drive database, over the built-in table"),
        "{log}"
    );
    assert!(log.contains("entries=1"), "{log}");
    assert_eq!(log.matches(names).count(), 1, "{log}");
}

#[test]
fn dump_of_something_that_is_not_a_drive_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("out/nvme9");
    let not_a_drive = tmp.path().join("notes.txt");
    std::fs::write(&not_a_drive, "hello").unwrap();
    // No such controller, a path that names no drive, a file named like a
    // disk that answers no command.
    let disk = tmp.path().join("sdz");
    std::fs::write(&disk, [0u8; 512]).unwrap();
    for (device, want) in [
        ("/dev/nvme999", "no dump written"),
        (path_str(&not_a_drive), "not an NVMe controller"),
        (path_str(&disk), "no dump written"),
    ] {
        let (code, err) = run(&["dump", device, path_str(&folder)]);
        assert_eq!(code, 1, "{device}: {err}");
        assert!(err.contains(want), "{device}: {err}");
        assert!(!err.contains("wrote"), "{device}: {err}");
        assert!(
            !tmp.path().join("out").exists(),
            "{device}: a folder was left"
        );
    }
}
