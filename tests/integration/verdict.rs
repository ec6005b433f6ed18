//! The verdict over replayed dumps whose pages change between polls, with
//! time under the test's control: "increasing" and "throttling within the
//! last hour" follow what the exporter saw, not the absolute counts.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ssd_exporter::ata::attributes::Namer;
use ssd_exporter::health::tuning::Tuning;
use ssd_exporter::health::verdict::Severity;
use ssd_exporter::poll::{Poller, factory};
use ssd_exporter::snapshot::{self, DriveSnapshot};

use crate::common::repo;

/// The built-in attribute names, as a replay with `--path.drivedb=none`.
fn namer() -> Arc<Namer> {
    Arc::new(Namer::builtin())
}

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

/// A copy of the DC2000B fixture (media errors 0, unsafe shutdowns 4, TMT1
/// transitions 12) that the test edits between polls.
struct Drive {
    dir: tempfile::TempDir,
    poller: Box<dyn Poller>,
    snap: DriveSnapshot,
}

impl Drive {
    fn new() -> Drive {
        let dir = tempfile::tempdir().unwrap();
        let src = repo().join("tests/fixtures/nvme/kingston-dc2000b/nvme0");
        for f in ["id-ctrl.bin", "smart-log.bin", "ocp-smart-log.bin"] {
            std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
        }
        let (_, transport, poller) = factory::replay(dir.path(), &namer()).unwrap();
        let snap = DriveSnapshot::new("nvme0", "test", factory::placeholder(transport, "", "", ""));
        Drive { dir, poller, snap }
    }

    /// Adds `by` to the little-endian counter at `off` of the SMART log.
    fn bump(&self, off: usize, len: usize, by: u64) {
        let path = self.dir.path().join("smart-log.bin");
        let mut page = std::fs::read(&path).unwrap();
        let mut v = [0u8; 8];
        v[..len].copy_from_slice(&page[off..off + len]);
        let n = u64::from_le_bytes(v) + by;
        page[off..off + len].copy_from_slice(&n.to_le_bytes()[..len]);
        std::fs::write(&path, page).unwrap();
    }

    /// Polls and judges at `now`; the problems by name.
    fn poll_at(&mut self, now: SystemTime) -> Vec<(&'static str, Severity)> {
        let outcome = self.poller.poll();
        self.snap.apply(outcome, Duration::from_millis(1), now);
        snapshot::judge(Arc::new(Tuning::default()), None)(&mut self.snap, now);
        self.snap
            .verdict
            .as_ref()
            .unwrap()
            .problems
            .iter()
            .map(|p| (p.name.as_label(), p.severity))
            .collect()
    }
}

fn has(problems: &[(&str, Severity)], name: &str) -> Option<Severity> {
    problems.iter().find(|p| p.0 == name).map(|p| p.1)
}

#[test]
fn static_counts_are_not_problems_rising_ones_are() {
    let mut d = Drive::new();
    // Unsafe shutdowns 4 and throttle counts present from the start: quiet.
    let first = d.poll_at(at(T0));
    assert!(first.is_empty(), "{first:?}");
    assert!(d.poll_at(at(T0 + 86_400)).is_empty());
    // Media errors (SMART log bytes 160..176) 0 → 1: critical.
    d.bump(160, 8, 1);
    let p = d.poll_at(at(T0 + 86_400 + 60));
    assert_eq!(
        has(&p, "media_errors_increasing"),
        Some(Severity::Critical),
        "{p:?}"
    );
    // Unsafe shutdowns (bytes 144..160) 4 → 5 on a PLP drive: warning.
    d.bump(144, 8, 1);
    let p = d.poll_at(at(T0 + 86_400 + 120));
    assert_eq!(
        has(&p, "unsafe_shutdowns_increasing"),
        Some(Severity::Warning),
        "{p:?}"
    );
    let reason = &d
        .snap
        .verdict
        .as_ref()
        .unwrap()
        .problems
        .iter()
        .find(|p| p.name.as_label() == "unsafe_shutdowns_increasing")
        .unwrap()
        .reason;
    assert!(
        reason.contains("power-loss protection")
            || reason.contains("PLP")
            || reason.contains("capacitor"),
        "{reason}"
    );
}

#[test]
fn throttling_counts_for_an_hour_after_it_was_seen() {
    let mut d = Drive::new();
    assert!(d.poll_at(at(T0)).is_empty());
    // TMT1 transitions (bytes 216..220) 12 → 13 at T0 + 10 min.
    d.bump(216, 4, 1);
    let p = d.poll_at(at(T0 + 600));
    assert_eq!(
        has(&p, "thermal_throttling"),
        Some(Severity::Warning),
        "{p:?}"
    );
    // Unchanged since: still flagged 59 min later, not 61 min later.
    assert!(has(&d.poll_at(at(T0 + 600 + 59 * 60)), "thermal_throttling").is_some());
    assert!(has(&d.poll_at(at(T0 + 600 + 61 * 60)), "thermal_throttling").is_none());
}

#[test]
fn sata_crc_errors_rising_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/sata/kingston-dc600m/sda");
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    let (_, transport, mut poller) = factory::replay(dir.path(), &namer()).unwrap();
    let mut snap = DriveSnapshot::new("sda", "test", factory::placeholder(transport, "", "", ""));
    let mut poll_at = |now| {
        snap.apply(poller.poll(), Duration::from_millis(1), now);
        snapshot::judge(Arc::new(Tuning::default()), None)(&mut snap, now);
        let v = snap.verdict.as_ref().unwrap();
        v.problems
            .iter()
            .map(|p| (p.name.as_label(), p.severity))
            .collect::<Vec<_>>()
    };
    assert!(poll_at(at(T0)).is_empty());
    // Attribute 199 (slot 17, entry at byte 206): raw bytes start at 211.
    // 0 → 3 CRC errors, and the SMART data checksum (byte 511) kept valid.
    let path = dir.path().join("smart-data.bin");
    let mut page = std::fs::read(&path).unwrap();
    assert_eq!(page[206], 199);
    page[211] = 3;
    let sum = page[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
    page[511] = sum.wrapping_neg();
    std::fs::write(&path, page).unwrap();
    let p = poll_at(at(T0 + 60));
    assert_eq!(
        has(&p, "crc_errors_increasing"),
        Some(Severity::Warning),
        "{p:?}"
    );
}
