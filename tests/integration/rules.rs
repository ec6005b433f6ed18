//! Each verdict rule tripped by a dump crafted for it — a fixture copied and
//! patched at the byte offsets of layouts.md — and a near miss that must not
//! trip it, judged by `ssd_exporter check --json` as a user would run it.
//! (Rules about counters *rising* need two polls: tests/integration/verdict.rs.)

use std::process::Command;

use crate::common::{BIN, path_str, repo};

/// A byte patch: file, offset, little-endian bytes.
type Patch<'a> = (&'a str, usize, &'a [u8]);

/// Copies `fixture`, applies `patches`, and returns the drive's problems as
/// `name:severity`.
fn problems(fixture: &str, patches: &[Patch]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures").join(fixture);
    let dir = tmp.path().join(src.file_name().unwrap());
    std::fs::create_dir(&dir).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    for &(file, off, bytes) in patches {
        let path = dir.join(file);
        let mut data = std::fs::read(&path).unwrap();
        data[off..off + bytes.len()].copy_from_slice(bytes);
        std::fs::write(&path, data).unwrap();
    }
    let out = Command::new(BIN)
        .args([
            "check",
            "--json",
            "--path.drivedb=none",
            "--log.level=error",
        ])
        .arg(format!("--replay={}", path_str(&dir)))
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["drives"][0]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}:{}",
                p["name"].as_str().unwrap(),
                p["severity"].as_str().unwrap()
            )
        })
        .collect()
}

const NVME: &str = "nvme/kingston-dc2000b/nvme0"; // 68 °C (WCTEMP 70, CCTEMP 85), spare 100/10, 3 % used
const SMART: &str = "smart-log.bin";

fn assert_trips(name: &str, tripped: &[Patch], near_miss: &[Patch], expect: &str) {
    let got = problems(NVME, tripped);
    assert!(
        got.iter().any(|p| p == expect),
        "{name}: {expect} not raised: {got:?}"
    );
    let got = problems(NVME, near_miss);
    let rule = expect.split(':').next().unwrap();
    assert!(
        !got.iter().any(|p| p.starts_with(&format!("{rule}:"))),
        "{name}: near miss raised {rule}: {got:?}"
    );
}

#[test]
fn the_base_fixture_is_healthy() {
    assert_eq!(problems(NVME, &[]), Vec::<String>::new());
}

#[test]
fn critical_warning_bits() {
    // SMART log byte 0: b0 spare, b1 temperature, b2 reliability, b3 read-only, b4 volatile memory backup.
    assert_trips(
        "spare bit",
        &[(SMART, 0, &[0x01])],
        &[(SMART, 0, &[0x00])],
        "spare_below_threshold:critical",
    );
    assert_trips(
        "temperature bit",
        &[(SMART, 0, &[0x02])],
        &[(SMART, 0, &[0x00])],
        "temperature_above_warning:warning",
    );
    assert_trips(
        "reliability bit",
        &[(SMART, 0, &[0x04])],
        &[(SMART, 0, &[0x00])],
        "reliability_degraded:critical",
    );
    assert_trips(
        "read-only bit",
        &[(SMART, 0, &[0x08])],
        &[(SMART, 0, &[0x00])],
        "read_only:critical",
    );
    assert_trips(
        "backup bit",
        &[(SMART, 0, &[0x10])],
        &[(SMART, 0, &[0x00])],
        "plp_failed:critical",
    );
}

#[test]
fn wear() {
    // Byte 5: percentage used.
    assert_trips(
        "80 %",
        &[(SMART, 5, &[80])],
        &[(SMART, 5, &[79])],
        "wear_high:warning",
    );
    assert_trips(
        "100 %",
        &[(SMART, 5, &[100])],
        &[(SMART, 5, &[99])],
        "wear_out:critical",
    );
}

#[test]
fn spare() {
    // Bytes 3/4: available spare / threshold (10 %).
    assert_trips(
        "within twice the threshold",
        &[(SMART, 3, &[20])],
        &[(SMART, 3, &[21])],
        "spare_low:warning",
    );
    assert_trips(
        "below the threshold",
        &[(SMART, 3, &[9])],
        &[(SMART, 3, &[10])],
        "spare_below_threshold:critical",
    );
}

#[test]
fn temperature() {
    // Bytes 1-2: composite, Kelvin. 343 K = 70 °C = WCTEMP, 358 K = 85 °C = CCTEMP.
    let k = |v: u16| v.to_le_bytes();
    assert_trips(
        "warning",
        &[(SMART, 1, &k(343))],
        &[(SMART, 1, &k(342))],
        "temperature_above_warning:warning",
    );
    assert_trips(
        "critical",
        &[(SMART, 1, &k(358))],
        &[(SMART, 1, &k(357))],
        "temperature_above_critical:critical",
    );
}

#[test]
fn ocp_plp_health_and_throttling() {
    // OCP C0h: capacitor health bytes 128-129 (percent), current throttling status byte 97.
    let ocp = "ocp-smart-log.bin";
    assert_trips(
        "PLP health",
        &[(ocp, 128, &[49, 0])],
        &[(ocp, 128, &[50, 0])],
        "plp_health_low:critical",
    );
    assert_trips(
        "throttling now",
        &[(ocp, 97, &[1])],
        &[(ocp, 97, &[0])],
        "thermal_throttling:warning",
    );
}

#[test]
fn sata_smart_status() {
    let failed = problems(
        "sata/kingston-dc600m/sda",
        &[("smart-status.txt", 0, b"failed")],
    );
    assert!(
        failed.contains(&"smart_failed:critical".to_string()),
        "{failed:?}"
    );
    assert!(problems("sata/kingston-dc600m/sda", &[]).is_empty());
}
