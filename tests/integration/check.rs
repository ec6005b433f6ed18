//! `ssd_exporter check` on replayed fixtures: exit codes (Nagios), the
//! table and the JSON document.

use std::process::Command;

use crate::common::{BIN, path_str, repo};

fn check(fixtures: &[&str], extra: &[&str]) -> (i32, String) {
    let mut cmd = Command::new(BIN);
    cmd.arg("check")
        .args(extra)
        .args(["--path.drivedb=none", "--log.level=error"]);
    for f in fixtures {
        cmd.arg(format!(
            "--replay={}",
            path_str(&repo().join("tests/fixtures").join(f))
        ));
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
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
fn table_fits_80_columns_and_names_the_problems() {
    let (code, out) = check(
        &["nvme/kingston-dc2000b/nvme0", "nvme/failing-critical/nvme2"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    assert!(out.starts_with("DEVICE"), "{out}");
    for problem in [
        "plp_failed",
        "spare_below_threshold",
        "wear_out",
        "self_test_failed",
    ] {
        assert!(out.contains(problem), "{problem} missing:\n{out}");
    }
    assert!(!out.contains('\x1b'), "colours on a pipe:\n{out}");
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
