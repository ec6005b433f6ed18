//! `ssd_exporter check` on replayed fixtures: exit codes (Nagios), the
//! table and the JSON document.

use std::process::Command;

use std::collections::BTreeMap;

use crate::common::{BIN, find, fixtures, parse, path_str, repo, start_on_fixtures};

fn check(fixtures: &[&str], extra: &[&str]) -> (i32, String) {
    let (code, out, _) = check_logged(fixtures, &[extra, &["--log.level=error"]].concat());
    (code, out)
}

/// `check` on fixtures with the default log level: exit code, stdout, stderr.
fn check_logged(fixtures: &[&str], extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("check")
        .args(extra)
        .arg("--path.drivedb=none")
        .args(replay_args(fixtures))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn replay_args(fixtures: &[&str]) -> Vec<String> {
    fixtures
        .iter()
        .map(|f| {
            let dir = repo().join("tests/fixtures").join(f);
            format!("--replay={}", path_str(&dir))
        })
        .collect()
}

const HEALTHY: [&str; 3] = [
    "nvme/kingston-dc2000b/nvme0",
    "nvme/sabrent-rocket4/nvme1",
    "sata/kingston-dc600m/sda",
];

#[test]
fn exit_codes_follow_nagios_on_fixtures() {
    assert_eq!(check(&HEALTHY, &[]).0, 0);
    // The broken dump has no readable SMART log: unknown.
    assert_eq!(
        check(&["nvme/kingston-dc2000b/nvme0", "nvme/broken/nvme3"], &[]).0,
        3
    );
    // Critical wins over unknown.
    assert_eq!(
        check(&["nvme/broken/nvme3", "nvme/failing-critical/nvme2"], &[]).0,
        2
    );
    assert_eq!(check(&["sata/failing/sdd"], &[]).0, 2);
    // Only the named drive is judged.
    assert_eq!(
        check(
            &["nvme/kingston-dc2000b/nvme0", "nvme/failing-critical/nvme2"],
            &["nvme0"]
        )
        .0,
        0
    );
}

#[test]
fn piped_table_prints_full_serials_and_reasons() {
    let (code, out) = check(
        &[
            "nvme/kingston-dc2000b/nvme0",
            "nvme/failing-critical/nvme2",
            "nvme/broken/nvme3",
        ],
        &[],
    );
    assert_eq!(code, 2);
    assert!(out.starts_with("DEVICE"), "{out}");
    for problem in [
        "plp_failed",
        "spare_below_threshold",
        "wear_out",
        "self_test_failed",
    ] {
        assert!(out.contains(problem), "{problem} missing:\n{out}");
    }
    // The fixtures' serials (meta.toml) and the broken dump's reason with
    // its path, whole: an operator replaces drives by serial.
    for serial in [
        "REDACTED0000000001",
        "REDACTED0000000003",
        "REDACTED0000000004",
    ] {
        assert!(out.contains(&format!(" {serial} ")), "{serial} cut:\n{out}");
    }
    assert!(
        out.contains(
            "nvme/broken/nvme3 log page 02h: smart log: expected at least 512 bytes, got 100"
        ),
        "reason cut:\n{out}"
    );
    assert!(!out.contains('~'), "something cut:\n{out}");
    assert!(!out.contains('\x1b'), "colours on a pipe:\n{out}");
}

/// `check` under a pseudo-terminal `columns` wide (util-linux `script`,
/// Essential in Debian): what the terminal shows, without colours.
fn on_terminal(columns: u16, args: &str) -> String {
    let line = format!("stty cols {columns} rows 50; exec {BIN} check {args}");
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .expect("script (util-linux) must be installed");
    assert!(out.status.code().is_some(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    let mut plain = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find('\x1b') {
        plain += &rest[..i];
        rest = rest[i..].split_once('m').map_or("", |(_, r)| r);
    }
    plain + rest
}

#[test]
fn on_a_terminal_lines_wrap_to_its_width_and_wide_keeps_them_whole() {
    let args = [
        replay_args(&["nvme/broken/nvme3", "sas/failing/sdh"]).join(" "),
        "--path.drivedb=none --log.level=error".into(),
    ]
    .join(" ");
    let narrow = on_terminal(80, &args);
    assert!(narrow.starts_with("DEVICE"), "{narrow}");
    for line in narrow.lines() {
        let n = line.chars().count();
        // Only a word longer than the line (a path) may overflow it.
        let long_word = line.split(' ').any(|w| w.chars().count() > 60);
        assert!(n <= 80 || long_word, "{n} columns: {line}\n{narrow}");
    }
    for whole in ["REDACTED0000000004", "REDACTED00000008", "(asc", "5dh,"] {
        assert!(narrow.contains(whole), "{whole} missing:\n{narrow}");
    }
    // SAS failing: its informational exception reason, wrapped onto more
    // lines rather than cut.
    assert!(!narrow.contains('~'), "{narrow}");
    let wide = on_terminal(80, &format!("--wide {args}"));
    assert!(
        wide.contains("failure prediction threshold exceeded)"),
        "{wide}"
    );
    assert!(
        wide.lines().count() < narrow.lines().count(),
        "{wide}\n{narrow}"
    );
    assert!(wide.lines().any(|l| l.chars().count() > 80), "{wide}");
}

#[test]
fn check_logs_only_warnings_unless_asked() {
    let fixtures = ["nvme/sabrent-rocket4/nvme1", "nvme/broken/nvme3"];
    let (_, out, err) = check_logged(&fixtures, &[]);
    assert!(out.starts_with("DEVICE"), "{out}");
    // The sabrent dump lacks optional pages ("not supported", info); the
    // broken one fails its SMART log (a warning).
    assert!(!err.contains("level=info"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("level=warn") && err.contains("nvme3"), "{err}");
    let (_, _, err) = check_logged(&fixtures, &["--log.level=info"]);
    assert!(err.contains("level=info"), "{err}");
}

#[test]
fn a_drive_asked_for_and_not_found_is_named_with_what_was_found() {
    let (code, out, err) = check_logged(&HEALTHY, &["sdz"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains("no drive sdz (found: nvme0, nvme1, sda)"),
        "{err}"
    );
}

#[test]
fn no_drives_at_all_names_every_transport_and_the_demo() {
    let sysfs = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([&format!("--path.sysfs={}", path_str(sysfs.path())), "check"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    for want in ["NVMe, SATA, SAS or SCSI", "check --demo"] {
        assert!(text.contains(want), "{want}: {text}");
    }
}

#[test]
fn check_demo_judges_the_simulated_fleet() {
    let out = Command::new(BIN)
        .args(["check", "--demo", "--log.level=error"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The demo's nvme2 is critical from the start (README, "Demo").
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("SIMULATED"), "{text}");
    for d in ["nvme0", "nvme1", "nvme2", "sda", "sdb"] {
        assert!(text.lines().any(|l| l.starts_with(d)), "{d}: {text}");
    }
    assert!(text.contains("DEMO0000000000000003"), "{text}");
}

#[test]
fn json_carries_status_values_and_problems() {
    let (code, out) = check(
        &["nvme/kingston-dc2000b/nvme0", "sata/failing/sdd"],
        &["--json"],
    );
    assert_eq!(code, 2);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["status"], "critical");
    assert_eq!(doc["exit_code"], 2);
    let drives = doc["drives"].as_array().unwrap();
    assert_eq!(drives.len(), 2);
    let nvme0 = drives.iter().find(|d| d["device"] == "nvme0").unwrap();
    // From the fixture's meta.toml: 3 % used, 68 °C, PLP 100 %, 4 unsafe shutdowns.
    assert_eq!(nvme0["status"], "ok");
    assert_eq!(nvme0["wear_ratio"], 0.03);
    assert_eq!(nvme0["temperature_celsius"], 68.0);
    assert_eq!(nvme0["plp_health_ratio"], 1.0);
    assert_eq!(nvme0["unsafe_shutdowns"], 4);
    let sdd = drives.iter().find(|d| d["device"] == "sdd").unwrap();
    let problems: Vec<&str> = sdd["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        problems.contains(&"smart_failed") && problems.contains(&"self_test_failed"),
        "{problems:?}"
    );
}

/// The landing page's rows: device → the verdict word in the row's class.
fn landing_statuses(page: &str) -> BTreeMap<String, String> {
    page.split("<tr class=\"drive ")
        .skip(1)
        .map(|row| {
            let (class, rest) = row.split_once('"').unwrap();
            let device = rest.split("<td>").nth(1).unwrap();
            let device = device.split("</td>").next().unwrap();
            (device.to_string(), class.to_string())
        })
        .collect()
}

#[test]
fn one_verdict_in_metrics_check_and_the_landing_page() {
    let (exporter, devices) = start_on_fixtures(&["--probe.disable"]);
    let series = parse(&exporter.get("/metrics", "").1);
    let page = exporter.get("/", "").1;
    let landing = landing_statuses(&page);
    let dirs: Vec<String> = fixtures()
        .iter()
        .map(|d| format!("--replay={}", path_str(d)))
        .collect();
    let out = Command::new(BIN)
        .args([
            "check",
            "--json",
            "--path.drivedb=none",
            "--log.level=error",
        ])
        .args(&dirs)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let words = ["ok", "warning", "critical", "unknown", "not judged"];
    let mut seen = BTreeMap::new();
    for d in &devices {
        let drive = doc["drives"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["device"] == d.as_str())
            .unwrap_or_else(|| panic!("{d} not in check --json"));
        let serial = drive["serial"].as_str().unwrap().to_string();
        let labels = BTreeMap::from([("device".into(), d.clone()), ("serial".into(), serial)]);
        let value = find(&series, "ssd_health_status", &labels)
            .unwrap_or_else(|| panic!("no ssd_health_status for {d}"));
        let word = words[value as usize];
        assert_eq!(
            drive["status"], word,
            "{d}: check vs ssd_health_status {value}"
        );
        // The row's CSS class: the word without its space.
        assert_eq!(
            landing[d.as_str()],
            word.replace(' ', ""),
            "{d}: landing page vs ssd_health_status {value}"
        );
        *seen.entry(word).or_insert(0) += 1;
    }
    // The broken NVMe dump is unknown (3) everywhere; the QEMU disk, the
    // HPE logical drive and the arrays' LUNs are not judged (4), never ok.
    assert_eq!(seen.get("unknown"), Some(&1), "{seen:?}");
    assert!(
        seen.contains_key("ok") && seen.contains_key("critical"),
        "{seen:?}"
    );
    assert!(seen.get("not judged") >= Some(&2), "{seen:?}");
    // check's exit code is the worst status's value.
    assert_eq!(out.status.code(), Some(2));
}

/// The DC2000B dump's persistent event log, newest first, as the JSON's
/// `events`: the six events of its meta.toml (T0 = 2026-12-01T00:00:00Z),
/// and none for a drive without the log.
#[test]
fn json_lists_the_persistent_event_log_as_a_timeline() {
    let (_, out) = check(
        &["nvme/kingston-dc2000b/nvme0", "nvme/sabrent-rocket4/nvme1"],
        &["--json"],
    );
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let drives = doc["drives"].as_array().unwrap();
    let nvme0 = drives.iter().find(|d| d["device"] == "nvme0").unwrap();
    let events = nvme0["events"].as_array().unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "vendor",
            "smart_snapshot",
            "firmware_commit",
            "thermal_excursion",
            "timestamp_change",
            "power_on_reset"
        ]
    );
    assert_eq!(events[0]["at"], "2026-11-30T23:30:00Z"); // T0 − 30 min
    assert_eq!(events[0]["position"], 5);
    assert_eq!(events[2]["at"], "2026-11-30T00:00:00Z"); // T0 − 1 day
    assert_eq!(
        events[2]["detail"],
        "firmware EIEK51.3 -> EIEK52.0, slot 2, commit action 1, succeeded"
    );
    assert_eq!(events[5]["detail"], "firmware EIEK51.3, 1 controller(s)");
    let nvme1 = drives.iter().find(|d| d["device"] == "nvme1").unwrap();
    assert!(nvme1.get("events").is_none(), "{nvme1}");
}
