//! What the state file holds: per drive, who it is (the key: serial and
//! model, and the world-wide name where known — never the kernel name,
//! which moves between boots), when it was last seen, its history and the
//! last self-test the exporter started on it.
//!
//! New per-drive facts (such as the NVMe persistent event log's "counted
//! up to" mark) go in [`Record`] as fields with `#[serde(default)]`: an
//! older exporter ignores a field it does not know, a newer one reads an
//! older file with the default, and neither needs a new format version.

use serde::{Deserialize, Serialize};

use crate::health::history::SavedHistory;
use crate::reading::nvme_depth::PelMark;

/// The whole payload after the header line.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Payload {
    /// Unix milliseconds of the save.
    pub saved_at_ms: u64,
    /// Unix milliseconds of the host's boot, as the saving exporter
    /// reckoned it (the wall clock less `CLOCK_BOOTTIME`): what tells a
    /// restart within the boot from a reboot, for the counts the kernel
    /// starts again at each boot. Absent from older files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boot_ms: Option<u64>,
    /// Most recently seen first.
    pub drives: Vec<Record>,
}

/// How far two reckonings of one boot's time may differ (the wall clock
/// stepped between them) and still be the same boot.
pub const BOOT_SLACK_MS: u64 = 30_000;

impl Payload {
    /// Whether the payload was saved in the boot that started at `boot_ms`
    /// (both known, within [`BOOT_SLACK_MS`]).
    pub fn same_boot(&self, boot_ms: Option<u64>) -> bool {
        matches!((self.boot_ms, boot_ms), (Some(a), Some(b)) if a.abs_diff(b) <= BOOT_SLACK_MS)
    }

    /// Forgets the counts that start again at each boot (PCIe AER), for a
    /// payload saved in another boot: the first reading is their baseline.
    /// Returns how many drives had some.
    pub fn forget_boot_counts(&mut self) -> usize {
        let mut n = 0;
        for r in &mut self.drives {
            let h = &mut r.history;
            if !(h.pcie_nonfatal.is_empty() && h.pcie_fatal.is_empty()) {
                n += 1;
            }
            h.pcie_nonfatal = Default::default();
            h.pcie_fatal = Default::default();
        }
        n
    }
}

/// One drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub serial: String,
    pub model: String,
    /// `eui.…`, `naa.…`: empty when the drive gave none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub wwn: String,
    /// For people reading the file; not part of the key.
    #[serde(default)]
    pub transport: String,
    /// Unix milliseconds of the newest reading.
    pub last_seen_ms: u64,
    #[serde(default)]
    pub history: SavedHistory,
    /// The newest self-test the exporter started (scheduled self-tests),
    /// so that a restart does not test every drive again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_self_test: Option<SelfTestRun>,
    /// The newest extended self-test the exporter started, when the newest
    /// of all is a short one (the schedule keeps a clock per kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_extended_self_test: Option<SelfTestRun>,
    /// The newest NVMe persistent event log event counted (its position and
    /// fingerprint), so that a restart counts only the events after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pel_mark: Option<PelMark>,
}

/// A self-test the exporter started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfTestRun {
    /// Unix milliseconds.
    pub started_ms: u64,
    pub kind: SelfTestKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfTestKind {
    Short,
    Extended,
}
