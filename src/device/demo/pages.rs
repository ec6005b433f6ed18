//! NVMe page encoders for the simulated drives, written through the
//! decoders' own layout structs, so a demo drive's pages go through exactly
//! the decoders a real drive's do (the ATA ones are in `ata`, the SCSI
//! ones in `scsi`).
//!
//! Only the fields the exporter reads (and a few a tool would expect to be
//! plausible) are filled; everything else stays zero, as on many drives.

use zerocopy::IntoBytes;

use crate::nvme::error_log::ErrorEntryLayout;
use crate::nvme::identify::{IdCtrlPage, space_padded};
use crate::nvme::identify_ns::IdNsPage;
use crate::nvme::ocp::{OcpSmartLogPage, le_bytes};
use crate::nvme::self_test::SelfTestLogPage;
use crate::nvme::smart_log::SmartLogPage;

/// Kelvin for a whole °C reading (NVMe temperatures are Kelvin).
pub fn kelvin(celsius: f64) -> u16 {
    (celsius.round() + 273.0).clamp(0.0, f64::from(u16::MAX)) as u16
}

/// What an Identify Controller page says.
pub struct NvmeIdentity {
    pub vid: u16,
    pub serial: &'static str,
    pub model: &'static str,
    pub firmware: &'static str,
    /// OACS: bit 4 = device self-test.
    pub oacs: u16,
    pub wctemp_c: f64,
    pub cctemp_c: f64,
    pub capacity_bytes: u128,
    /// Error log entries − 1 (ELPE).
    pub elpe: u8,
    /// Endurance groups (CTRATT bit 4, ENDGIDMAX 1), telemetry and the
    /// persistent event log (LPA bits 3 and 4): see `depth`.
    pub depth: bool,
}

/// Identify Controller (CNS 01h), 4096 bytes, built on the decoder's own
/// layout ([`IdCtrlPage`]).
pub fn nvme_identify(id: &NvmeIdentity) -> Vec<u8> {
    let mut p = IdCtrlPage::zeroed();
    p.vid = id.vid.into();
    p.ssvid = id.vid.into();
    p.sn = space_padded(id.serial);
    p.mn = space_padded(id.model);
    p.fr = space_padded(id.firmware);
    p.ver = 0x0001_0400.into(); // NVMe 1.4
    p.oacs = id.oacs.into();
    p.lpa = 0x07; // per-namespace SMART, command effects, extended data
    if id.depth {
        p.lpa |= 0x18; // telemetry, persistent event log
        p.ctratt = (1u32 << 4).into(); // endurance groups
        p.endgidmax = 1.into();
    }
    p.elpe = id.elpe;
    p.wctemp = kelvin(id.wctemp_c).into();
    p.cctemp = kelvin(id.cctemp_c).into();
    p.tnvmcap = id.capacity_bytes.into();
    p.nn = 1.into(); // one namespace
    p.as_bytes().to_vec()
}

/// Identify Namespace (CNS 00h), 4096 bytes, carrying only an EUI64,
/// built on the decoder's own layout ([`IdNsPage`]).
pub fn nvme_identify_ns(eui64: [u8; 8]) -> Vec<u8> {
    let mut p = IdNsPage::zeroed();
    p.eui64 = eui64;
    p.as_bytes().to_vec()
}

/// The SMART / Health log's fields, in the log's own units.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NvmeHealth {
    pub critical_warning: u8,
    pub composite_c: f64,
    pub sensors_c: Vec<f64>,
    pub available_spare: u8,
    pub spare_threshold: u8,
    pub percent_used: u8,
    /// Thousands of 512-byte units.
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub host_reads: u128,
    pub host_writes: u128,
    pub busy_minutes: u128,
    pub power_cycles: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    pub error_entries: u128,
    pub warning_temp_minutes: u32,
    pub critical_temp_minutes: u32,
    pub tmt1_count: u32,
    pub tmt2_count: u32,
    pub tmt1_seconds: u32,
    pub tmt2_seconds: u32,
}

/// SMART / Health Information (log 02h), 512 bytes, built on the decoder's
/// own layout ([`SmartLogPage`]).
pub fn nvme_smart_log(h: &NvmeHealth) -> Vec<u8> {
    let mut p = SmartLogPage::zeroed();
    p.critical_warning = h.critical_warning;
    p.temperature = kelvin(h.composite_c).into();
    p.avail_spare = h.available_spare;
    p.spare_thresh = h.spare_threshold;
    p.percent_used = h.percent_used;
    p.data_units_read = h.data_units_read.into();
    p.data_units_written = h.data_units_written.into();
    p.host_reads = h.host_reads.into();
    p.host_writes = h.host_writes.into();
    p.ctrl_busy_time = h.busy_minutes.into();
    p.power_cycles = h.power_cycles.into();
    p.power_on_hours = h.power_on_hours.into();
    p.unsafe_shutdowns = h.unsafe_shutdowns.into();
    p.media_errors = h.media_errors.into();
    p.num_err_log_entries = h.error_entries.into();
    p.warning_temp_time = h.warning_temp_minutes.into();
    p.critical_comp_time = h.critical_temp_minutes.into();
    p.thm_temp1_trans_count = h.tmt1_count.into();
    p.thm_temp2_trans_count = h.tmt2_count.into();
    p.thm_temp1_total_time = h.tmt1_seconds.into();
    p.thm_temp2_total_time = h.tmt2_seconds.into();
    for (sensor, &c) in p.temp_sensor.iter_mut().zip(&h.sensors_c) {
        *sensor = kelvin(c).into();
    }
    p.as_bytes().to_vec()
}

/// The OCP extended SMART log's fields the demo varies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OcpHealth {
    pub media_written_bytes: u128,
    pub media_read_bytes: u128,
    pub bad_user_blocks: u64,
    pub bad_system_blocks: u64,
    pub uncorrectable_reads: u64,
    pub soft_ecc: u64,
    pub throttle_events: u8,
    pub throttling: bool,
    pub pcie_correctable: u64,
    pub incomplete_shutdowns: u32,
    /// Percent.
    pub capacitor_health: u16,
    pub plp_starts: u128,
    /// `(total, failure tolerance, offline)` media dies: a log page of
    /// version 5, which defines them; version 3 without.
    pub dies: Option<(u16, u16, u16)>,
}

/// OCP Datacenter NVMe SSD SMART / Health extended log (C0h), 512 bytes,
/// built on the decoder's own layout ([`OcpSmartLogPage`]).
pub fn ocp_smart_log(o: &OcpHealth) -> Vec<u8> {
    let mut p = OcpSmartLogPage::new();
    p.physical_media_units_written = o.media_written_bytes.into();
    p.physical_media_units_read = o.media_read_bytes.into();
    p.bad_user_nand_blocks_raw = le_bytes(o.bad_user_blocks);
    p.bad_system_nand_blocks_raw = le_bytes(o.bad_system_blocks);
    p.uncorrectable_read_errors = o.uncorrectable_reads.into();
    p.soft_ecc_errors = o.soft_ecc.into();
    p.thermal_throttling_events = o.throttle_events;
    p.current_throttling_status = u8::from(o.throttling);
    p.dssd_major_version = 2; // DSSD spec version 2.x
    p.pcie_correctable_errors = o.pcie_correctable.into();
    p.incomplete_shutdowns = o.incomplete_shutdowns.into();
    p.capacitor_health = o.capacitor_health.into();
    p.plp_start_count = o.plp_starts.into();
    p.log_page_version = 3.into();
    if let Some((total, tolerance, offline)) = o.dies {
        p.log_page_version = 5.into();
        p.total_media_dies = total.into();
        p.total_die_failure_tolerance = tolerance.into();
        p.media_dies_offline = offline.into();
    }
    p.as_bytes().to_vec()
}

/// Error Information (log 01h): `entries` 64-byte entries, the newest
/// carrying `count` (and an Unrecovered Read Error status) when non-zero;
/// built on the decoder's own layout ([`ErrorEntryLayout`]).
pub fn nvme_error_log(entries: usize, count: u64) -> Vec<u8> {
    let mut log = vec![ErrorEntryLayout::zeroed(); entries.max(1)];
    if count > 0 {
        let newest = &mut log[0];
        newest.error_count = count.into();
        newest.sqid = 1.into();
        // status: phase 1, SC 81h, SCT 2h (media errors)
        newest.status_field = (1 | (0x81 << 1) | (0x2 << 9)).into();
    }
    log.as_bytes().to_vec()
}

/// Device Self-test log (06h), 564 bytes: the newest entry is a short test
/// with `result` (0 passed, 7 = a segment failed) at `power_on_hours`;
/// built on the decoder's own layout ([`SelfTestLogPage`]).
pub fn nvme_self_test_log(result: u8, power_on_hours: u64) -> Vec<u8> {
    let mut p = SelfTestLogPage::empty();
    let newest = &mut p.result[0];
    newest.dsts = 0x10 | (result & 0x0F);
    newest.seg = if result == 7 { 3 } else { 0 };
    newest.poh = power_on_hours.into();
    p.as_bytes().to_vec()
}
