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

/// A copy of a SATA fixture, polled and judged the way `Drive` does NVMe.
struct SataDrive {
    dir: tempfile::TempDir,
    poller: Box<dyn Poller>,
    snap: DriveSnapshot,
}

impl SataDrive {
    fn new(fixture: &str) -> SataDrive {
        let dir = tempfile::tempdir().unwrap();
        let src = repo().join("tests/fixtures/sata").join(fixture);
        for e in std::fs::read_dir(&src).unwrap().flatten() {
            std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
        }
        let (device, transport, poller) = factory::replay(dir.path(), &namer()).unwrap();
        let snap = DriveSnapshot::new(&device, "test", factory::placeholder(transport, "", "", ""));
        SataDrive { dir, poller, snap }
    }

    fn poll_at(&mut self, now: SystemTime) -> Vec<(&'static str, Severity)> {
        self.snap
            .apply(self.poller.poll(), Duration::from_millis(1), now);
        snapshot::judge(Arc::new(Tuning::default()), None)(&mut self.snap, now);
        let v = self.snap.verdict.as_ref().unwrap();
        v.problems
            .iter()
            .map(|p| (p.name.as_label(), p.severity))
            .collect()
    }

    /// Sets the raw value of the attribute in table slot `slot` (entry at
    /// byte 2 + 12 × slot, raw bytes from its byte 5) and reseals the SMART
    /// data checksum (byte 511).
    fn set_attribute(&self, slot: usize, id: u8, raw: u8) {
        let path = self.dir.path().join("smart-data.bin");
        let mut page = std::fs::read(&path).unwrap();
        let entry = 2 + 12 * slot;
        assert_eq!(page[entry], id);
        page[entry + 5] = raw;
        let sum = page[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
        page[511] = sum.wrapping_neg();
        std::fs::write(&path, page).unwrap();
    }

    /// Sets the low byte of the statistic at `offset` of Device Statistics
    /// page `page` (a qword: value in bytes 0..6, flags in byte 7).
    fn set_statistic(&self, page: u8, offset: usize, value: u8) {
        let path = self.dir.path().join(format!("devstat-{page:02x}.bin"));
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes[offset + 7] & 0xC0, 0xC0, "not supported and valid");
        bytes[offset] = value;
        std::fs::write(&path, bytes).unwrap();
    }
}

#[test]
fn sata_crc_errors_rising_is_a_warning() {
    // No Device Statistics: attribute 199 (slot 17) is the count.
    let mut d = SataDrive::new("kingston-dc500m/sdb");
    assert!(d.poll_at(at(T0)).is_empty());
    d.set_attribute(17, 199, 3);
    let p = d.poll_at(at(T0 + 60));
    assert_eq!(
        has(&p, "crc_errors_increasing"),
        Some(Severity::Warning),
        "{p:?}"
    );
}

/// Device Statistics win over the vendor attributes (ACS defines them; the
/// attribute table is vendor specific): on the fixture where they disagree,
/// a rise of 199 or 187 alone is no problem, a rise of 06h's interface CRC
/// errors or 04h's reported uncorrectable errors is.
#[test]
fn sata_errors_are_judged_by_device_statistics_first() {
    let mut d = SataDrive::new("devstat-vs-attributes/sdz");
    assert!(d.poll_at(at(T0)).is_empty());
    // 199 (slot 17) 1 -> 9 and 187 (slot 11) 0 -> 5: the statistics stand still.
    d.set_attribute(17, 199, 9);
    d.set_attribute(11, 187, 5);
    let p = d.poll_at(at(T0 + 60));
    assert!(p.is_empty(), "{p:?}");
    // 06h offset 18h, interface CRC errors 3 -> 4.
    d.set_statistic(0x06, 0x18, 4);
    let p = d.poll_at(at(T0 + 120));
    assert_eq!(
        has(&p, "crc_errors_increasing"),
        Some(Severity::Warning),
        "{p:?}"
    );
    // 04h offset 08h, reported uncorrectable errors 2 -> 3.
    d.set_statistic(0x04, 0x08, 3);
    let p = d.poll_at(at(T0 + 180));
    assert_eq!(
        has(&p, "media_errors_increasing"),
        Some(Severity::Critical),
        "{p:?}"
    );
}
