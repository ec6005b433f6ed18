//! The unified reading of one drive. Every field is optional: a value the
//! drive does not report stays `None` and produces no series (never a fake 0).
//! Values are in base units (bytes, seconds, °C, ratios 0–1).
//!
//! A poll fills it and [`crate::health`] judges it: the pages each transport
//! reads ([`nvme::NvmePages`], [`sata::SataPages`], [`scsi::ScsiPages`]) and
//! the pure mappers from those pages onto the reading live here, one file per
//! transport ([`nvme_depth`]: the NVMe pages read less often).

pub mod nvme;
pub mod nvme_depth;
pub mod sata;
pub mod scsi;

use crate::device::discovery::{Kind, Transport};
use crate::nvme::Condition;

/// Who the drive says it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub transport: Transport,
    /// Physical drive, virtual volume (a RAID logical drive, a virtual
    /// disk) or LUN: any but a physical drive is served for its identity
    /// and not judged.
    pub kind: Kind,
    pub model: String,
    pub serial: String,
    pub firmware: String,
    /// World-wide name in the form the kernel shows in sysfs `wwid`
    /// (`eui.…`, `nvme.…`), empty when unknown.
    pub wwn: String,
    pub capacity_bytes: Option<u128>,
}

impl Identity {
    /// Not a drive of its own: a RAID logical drive, a virtual disk or a
    /// LUN (any [`Kind`] but `Physical`).
    pub fn is_virtual(&self) -> bool {
        !self.kind.is_physical()
    }

    /// Whether `other` names the same physical drive: the same serial and
    /// model, and the same world-wide name where both know one (a name
    /// read on one poll and not on the next is no other drive). Firmware
    /// and capacity may change under a drive; these may not.
    pub fn is_same_drive(&self, other: &Identity) -> bool {
        self.serial == other.serial
            && self.model == other.model
            && (self.wwn.is_empty() || other.wwn.is_empty() || self.wwn == other.wwn)
    }
}

/// Monotonic counters, kept at full width (`u128`) until exposition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    pub host_read_bytes: Option<u128>,
    pub host_written_bytes: Option<u128>,
    pub host_read_commands: Option<u128>,
    pub host_write_commands: Option<u128>,
    pub controller_busy_seconds: Option<u128>,
    pub power_cycles: Option<u128>,
    pub power_on_seconds: Option<u128>,
    pub unsafe_shutdowns: Option<u128>,
    pub media_errors: Option<u128>,
    pub error_log_entries: Option<u128>,
    pub crc_errors: Option<u128>,
    pub temperature_above_warning_seconds: Option<u128>,
    pub temperature_above_critical_seconds: Option<u128>,
    pub thermal_throttle_events: Option<u128>,
    pub plp_starts: Option<u128>,
    pub nand_written_bytes: Option<u128>,
    pub nand_read_bytes: Option<u128>,
    pub uncorrectable_read_errors: Option<u128>,
    pub incomplete_shutdowns: Option<u128>,
    pub pcie_correctable_errors: Option<u128>,
    pub soft_ecc_errors: Option<u128>,
    pub xor_recoveries: Option<u128>,
    pub end_to_end_detected_errors: Option<u128>,
    pub end_to_end_corrected_errors: Option<u128>,
    pub pcie_link_retrainings: Option<u128>,
    /// NVMe 2.1 Operational Lifetime Energy Consumed (watt-hours × 3600).
    pub lifetime_energy_joules: Option<u128>,
}

/// Light (TMT1) and heavy (TMT2) thermal management, in that order.
pub const THROTTLE_LEVELS: [&str; 2] = ["light", "heavy"];

/// What one poll learned about a drive, in base units.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    /// `(sensor, °C)`: `composite`, then `1`..`8` for the ones implemented.
    pub temperatures: Vec<(String, f64)>,
    pub temperature_warning_celsius: Option<f64>,
    pub temperature_critical_celsius: Option<f64>,
    /// `(condition, set)` for every critical-warning bit the transport has.
    pub critical_warning: Vec<(Condition, bool)>,
    /// `(condition, set)` for the NVMe endurance-group critical warning summary.
    pub endurance_group_warning: Vec<(Condition, bool)>,
    pub smart_passed: Option<bool>,
    /// SATA: `smart_passed` comes from the attribute check because SMART
    /// RETURN STATUS could not be read (smartctl's "based on an Attribute
    /// check"), not from the drive's answer.
    pub smart_passed_from_attributes: bool,
    /// SATA: every attribute whose normalized value is at or below its
    /// threshold now (smartctl's `FAILING_NOW`), pre-failure and old-age,
    /// in the drive's table order; `None` without the data and thresholds
    /// to judge them.
    pub failing_attributes: Option<Vec<FailingAttribute>>,
    pub available_spare_ratio: Option<f64>,
    pub available_spare_threshold_ratio: Option<f64>,
    pub percentage_used_ratio: Option<f64>,
    pub counters: Counters,
    /// Transitions into light/heavy thermal management ([`THROTTLE_LEVELS`]).
    pub throttle_transitions: Option<[u64; 2]>,
    /// Seconds spent in light/heavy thermal management.
    pub throttle_seconds: Option<[u64; 2]>,
    pub throttle_active: Option<bool>,
    /// Current throttling level, 0 (none) to 3 (OCP C0h byte 97).
    pub throttle_level: Option<u8>,
    pub plp_health_ratio: Option<f64>,
    /// The drive's own power-loss capacitor self-test: `Some(true)` when it
    /// failed (Intel attribute 175 normalized 1).
    pub plp_test_failed: Option<bool>,
    /// `(area, count)`: `user`, `system`.
    pub bad_blocks: Vec<(&'static str, u64)>,
    /// Name of the newest self-test's result (`passed`, `aborted_by_reset`, …).
    pub self_test_last_result: Option<&'static str>,
    /// Whether the drive says a self-test is running now: NVMe log 06h
    /// byte 0 (current operation ≠ 0), ATA SMART READ DATA byte 363 (high
    /// nibble Fh), SCSI log page 10h's newest entry (result Fh); `None`
    /// when the page was not read.
    pub self_test_in_progress: Option<bool>,
    /// SATA SMART attributes as the drive reports them, named.
    pub ata_attributes: Vec<AtaAttribute>,
    /// What only a SAS / SCSI disk reports; `None` for other transports.
    pub scsi: Option<ScsiReading>,
    /// NVMe: the PCIe link and AER counters of the controller polled, from
    /// sysfs; `None` without a PCI function (a fabric, a replay, the demo).
    pub pcie: Option<crate::device::sysfs::pcie::Pcie>,
    /// What only an NVMe drive reports beyond SMART (endurance groups,
    /// firmware slots, events, telemetry); `None` for other transports.
    pub nvme: Option<nvme_depth::NvmeReading>,
}

/// The operation a SCSI error counter log page counts (03h read, 02h
/// write, 05h verify): the `op` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScsiOp {
    Read,
    Write,
    Verify,
}

impl ScsiOp {
    pub const ALL: [ScsiOp; 3] = [Self::Read, Self::Write, Self::Verify];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Verify => "verify",
        }
    }
}

/// The SAS phy error counters of log page 18h: the `kind` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PhyErrorKind {
    InvalidDword,
    RunningDisparity,
    LossOfDwordSync,
    PhyResetProblem,
}

impl PhyErrorKind {
    pub const ALL: [PhyErrorKind; 4] = [
        Self::InvalidDword,
        Self::RunningDisparity,
        Self::LossOfDwordSync,
        Self::PhyResetProblem,
    ];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::InvalidDword => "invalid_dword",
            Self::RunningDisparity => "running_disparity",
            Self::LossOfDwordSync => "loss_of_dword_sync",
            Self::PhyResetProblem => "phy_reset_problem",
        }
    }
}

/// One SAS phy's error counts, in [`PhyErrorKind::ALL`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SasPhyErrors {
    /// The phy identifier (unique within the SAS device), as a label.
    pub phy: String,
    pub counts: [u64; 4],
}

/// SCSI-only values (`shared/reference/metrics.md`, "SAS / SCSI").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScsiReading {
    /// Parameter 0003h (total errors corrected) of 03h / 02h / 05h.
    pub errors_corrected: Vec<(ScsiOp, u128)>,
    /// Parameter 0006h (total uncorrected errors) of 03h / 02h / 05h.
    pub errors_uncorrected: Vec<(ScsiOp, u128)>,
    /// Log 06h parameter 0000h.
    pub non_medium_errors: Option<u128>,
    /// Entries in the grown defect list (READ DEFECT DATA).
    pub grown_defects: Option<u32>,
    /// Log 0Eh parameter 0004h.
    pub start_stop_cycles: Option<u32>,
    /// Log 0Eh parameter 0006h.
    pub load_unload_cycles: Option<u32>,
    /// Log 18h, SAS ports only.
    pub sas_phys: Vec<SasPhyErrors>,
    /// `(phy, bits per second)`: each SAS phy's negotiated link rate, from
    /// log 18h, else from sysfs (the phy the SAS transport class attaches
    /// the disk through).
    pub sas_link_rates: Vec<(String, u64)>,
    /// Log 2Fh when it reports an ASC other than 00h.
    pub informational_exception: Option<crate::scsi::log::InformationalException>,
    /// Log 10h: the newest self-test with an outcome, for the verdict.
    pub self_test: Option<ScsiSelfTest>,
}

/// The newest SCSI self-test that passed or failed, and the entries newer
/// than it that have no outcome (in progress, aborted): SPC-5's log keeps
/// them all, and one of those must not hide an older failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScsiSelfTest {
    /// Its result's name (`passed`, `segments_failed`, …).
    pub result: &'static str,
    /// Accumulated power-on hours when it completed.
    pub power_on_hours: u16,
    /// The newer entries' result names, newest first.
    pub newer: Vec<&'static str>,
}

/// A SATA attribute whose normalized value is at or below its threshold
/// now (ATA-3's threshold exceeded condition, smartctl's `FAILING_NOW`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailingAttribute {
    pub id: u8,
    pub name: String,
    pub value: u8,
    pub threshold: u8,
    /// Flags bit 0: a pre-failure attribute (the drive predicts its own
    /// failure); clear, an old-age (usage) one.
    pub prefailure: bool,
}

/// One SATA SMART attribute, named from the built-in table or drivedb.h.
#[derive(Debug, Clone, PartialEq)]
pub struct AtaAttribute {
    pub id: u8,
    pub name: String,
    /// Normalized current value; `None` when the attribute's format uses
    /// those bytes for its raw value (smartctl prints `---`).
    pub value: Option<u8>,
    pub worst: Option<u8>,
    pub threshold: Option<u8>,
    /// The six raw bytes as one little-endian integer (smartctl's JSON
    /// `raw.value`).
    pub raw: u64,
}
