//! The pages and commands a poll reads, by name: the `source` label of
//! `ssd_poll_errors_total` and the `page` label of `ssd_page_supported`.
//! One enum, so a new page cannot be forgotten by the metrics and a typo
//! does not compile.

use crate::ata::devstat;
use crate::scsi::identity::{
    VPD_BLOCK_CHARACTERISTICS, VPD_DEVICE_ID, VPD_SUPPORTED, VPD_UNIT_SERIAL,
};
use crate::scsi::log;

/// One page (or command) a poller reads, plus `Poll` for the poll as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// NVMe Identify Controller or ATA IDENTIFY DEVICE.
    Identify,
    /// NVMe Identify Namespace (the drive's WWN).
    IdentifyNs,
    /// NVMe Identify UUID List (CNS 17h).
    UuidList,
    /// NVMe SMART / Health Information (02h).
    SmartLog,
    /// OCP SMART / Health Information Extended (C0h).
    OcpLog,
    /// NVMe Error Information (01h).
    ErrorLog,
    /// NVMe Device Self-test (06h).
    SelfTestLog,
    /// NVMe Identify Endurance Group List (CNS 19h).
    EnduranceGroupList,
    /// NVMe Endurance Group Information (09h), every group it lists.
    EnduranceGroupLog,
    /// NVMe Firmware Slot Information (03h).
    FwSlotLog,
    /// NVMe Telemetry Controller-Initiated (08h), its header.
    TelemetryLog,
    /// NVMe Persistent Event Log (0Dh), read within a reporting context.
    PersistentEventLog,
    /// ATA CHECK POWER MODE.
    PowerMode,
    /// ATA SMART READ DATA.
    AtaSmart,
    /// ATA SMART READ THRESHOLDS.
    AtaThresholds,
    /// ATA SMART RETURN STATUS.
    AtaStatus,
    /// ATA Device Statistics page 00h: the list of supported pages.
    AtaDevstat,
    /// ATA Device Statistics page `n` (one of [`DEVSTAT_PAGES`]): each page
    /// has its own support, so one aborted page does not drop the others.
    AtaDevstatPage(u8),
    /// ATA SMART self-test log.
    AtaSelfTest,
    /// ATA SMART summary error log.
    AtaErrorLog,
    /// SCSI standard INQUIRY: how the drive is known at all.
    ScsiInquiry,
    /// SCSI INQUIRY VPD page `n` (one of [`SCSI_VPD_PAGES`]).
    ScsiVpd(u8),
    /// SCSI READ CAPACITY(16).
    ScsiReadCapacity,
    /// SCSI LOG SENSE page `n` (one of [`SCSI_LOG_PAGES`]), each with its
    /// own support.
    ScsiLog(u8),
    /// SCSI READ DEFECT DATA(10), the grown list's header.
    ScsiDefects,
    /// SCSI READ DEFECT DATA(12), the grown list's header: asked first,
    /// (10) when the drive does not have it.
    ScsiDefects12,
    /// The PCIe link and AER files of an NVMe controller's PCI function in
    /// sysfs: counted when one does not read as the kernel writes it.
    Pcie,
    /// A scheduled self-test command (`selftest.schedule`) the drive
    /// rejected or that failed: served only once counted, so drives without
    /// a schedule carry no extra series.
    SelfTest,
    /// The poll as a whole: it overran its deadline (counted once per
    /// interval while it stays stuck) or its thread panicked.
    Poll,
}

/// Device Statistics pages the exporter reads, when the drive lists them.
pub const DEVSTAT_PAGES: [u8; 5] = [
    devstat::PAGE_GENERAL,
    devstat::PAGE_GENERAL_ERRORS,
    devstat::PAGE_TEMPERATURE,
    devstat::PAGE_TRANSPORT,
    devstat::PAGE_SSD,
];

/// VPD pages a SCSI poll reads, when page 00h lists them.
pub const SCSI_VPD_PAGES: [u8; 4] = [
    VPD_SUPPORTED,
    VPD_UNIT_SERIAL,
    VPD_DEVICE_ID,
    VPD_BLOCK_CHARACTERISTICS,
];

/// LOG SENSE pages a SCSI poll reads, when page 00h lists them.
pub const SCSI_LOG_PAGES: [u8; 12] = log::READ_PAGES;

impl Source {
    /// What an NVMe drive can fail on, in exposition order.
    pub const NVME: [Source; 13] = [
        Source::Identify,
        Source::IdentifyNs,
        Source::UuidList,
        Source::SmartLog,
        Source::OcpLog,
        Source::ErrorLog,
        Source::SelfTestLog,
        Source::EnduranceGroupList,
        Source::EnduranceGroupLog,
        Source::FwSlotLog,
        Source::TelemetryLog,
        Source::PersistentEventLog,
        Source::Poll,
    ];

    /// What a SATA drive can fail on, in exposition order.
    pub const SATA: [Source; 14] = [
        Source::PowerMode,
        Source::Identify,
        Source::AtaSmart,
        Source::AtaThresholds,
        Source::AtaStatus,
        Source::AtaDevstat,
        Source::AtaDevstatPage(DEVSTAT_PAGES[0]),
        Source::AtaDevstatPage(DEVSTAT_PAGES[1]),
        Source::AtaDevstatPage(DEVSTAT_PAGES[2]),
        Source::AtaDevstatPage(DEVSTAT_PAGES[3]),
        Source::AtaDevstatPage(DEVSTAT_PAGES[4]),
        Source::AtaSelfTest,
        Source::AtaErrorLog,
        Source::Poll,
    ];

    /// What a SAS or SCSI drive can fail on, in exposition order.
    pub const SCSI: [Source; 21] = [
        Source::ScsiInquiry,
        Source::ScsiVpd(SCSI_VPD_PAGES[0]),
        Source::ScsiVpd(SCSI_VPD_PAGES[1]),
        Source::ScsiVpd(SCSI_VPD_PAGES[2]),
        Source::ScsiVpd(SCSI_VPD_PAGES[3]),
        Source::ScsiReadCapacity,
        Source::ScsiLog(SCSI_LOG_PAGES[0]),
        Source::ScsiLog(SCSI_LOG_PAGES[1]),
        Source::ScsiLog(SCSI_LOG_PAGES[2]),
        Source::ScsiLog(SCSI_LOG_PAGES[3]),
        Source::ScsiLog(SCSI_LOG_PAGES[4]),
        Source::ScsiLog(SCSI_LOG_PAGES[5]),
        Source::ScsiLog(SCSI_LOG_PAGES[6]),
        Source::ScsiLog(SCSI_LOG_PAGES[7]),
        Source::ScsiLog(SCSI_LOG_PAGES[8]),
        Source::ScsiLog(SCSI_LOG_PAGES[9]),
        Source::ScsiLog(SCSI_LOG_PAGES[10]),
        Source::ScsiLog(SCSI_LOG_PAGES[11]),
        Source::ScsiDefects,
        Source::ScsiDefects12,
        Source::Poll,
    ];

    /// The label value.
    pub fn as_label(self) -> &'static str {
        match self {
            Source::Identify => "identify",
            Source::SelfTest => "self_test",
            Source::IdentifyNs => "identify_ns",
            Source::UuidList => "uuid_list",
            Source::SmartLog => "smart_log",
            Source::OcpLog => "ocp_log",
            Source::ErrorLog => "error_log",
            Source::SelfTestLog => "self_test_log",
            Source::EnduranceGroupList => "endurance_group_list",
            Source::EnduranceGroupLog => "endurance_group_log",
            Source::FwSlotLog => "fw_slot_log",
            Source::TelemetryLog => "telemetry_log",
            Source::PersistentEventLog => "persistent_event_log",
            Source::PowerMode => "power_mode",
            Source::AtaSmart => "ata_smart",
            Source::AtaThresholds => "ata_thresholds",
            Source::AtaStatus => "ata_status",
            Source::AtaDevstat => "ata_devstat",
            Source::AtaDevstatPage(devstat::PAGE_GENERAL) => "ata_devstat_01",
            Source::AtaDevstatPage(devstat::PAGE_GENERAL_ERRORS) => "ata_devstat_04",
            Source::AtaDevstatPage(devstat::PAGE_TEMPERATURE) => "ata_devstat_05",
            Source::AtaDevstatPage(devstat::PAGE_TRANSPORT) => "ata_devstat_06",
            Source::AtaDevstatPage(devstat::PAGE_SSD) => "ata_devstat_07",
            // Pages outside DEVSTAT_PAGES are never read.
            Source::AtaDevstatPage(_) => "ata_devstat_other",
            Source::AtaSelfTest => "ata_self_test",
            Source::AtaErrorLog => "ata_error_log",
            Source::ScsiInquiry => "scsi_inquiry",
            Source::ScsiVpd(0x00) => "scsi_vpd_00",
            Source::ScsiVpd(0x80) => "scsi_vpd_80",
            Source::ScsiVpd(0x83) => "scsi_vpd_83",
            Source::ScsiVpd(0xB1) => "scsi_vpd_b1",
            // Pages outside SCSI_VPD_PAGES are never read.
            Source::ScsiVpd(_) => "scsi_vpd_other",
            Source::ScsiReadCapacity => "scsi_read_capacity",
            Source::ScsiLog(0x00) => "scsi_log_00",
            Source::ScsiLog(0x02) => "scsi_log_02",
            Source::ScsiLog(0x03) => "scsi_log_03",
            Source::ScsiLog(0x05) => "scsi_log_05",
            Source::ScsiLog(0x06) => "scsi_log_06",
            Source::ScsiLog(0x0D) => "scsi_log_0d",
            Source::ScsiLog(0x0E) => "scsi_log_0e",
            Source::ScsiLog(0x10) => "scsi_log_10",
            Source::ScsiLog(0x11) => "scsi_log_11",
            Source::ScsiLog(0x15) => "scsi_log_15",
            Source::ScsiLog(0x18) => "scsi_log_18",
            Source::ScsiLog(0x2F) => "scsi_log_2f",
            // Pages outside SCSI_LOG_PAGES are never read.
            Source::ScsiLog(_) => "scsi_log_other",
            Source::ScsiDefects => "scsi_defects",
            Source::ScsiDefects12 => "scsi_defects_12",
            Source::Pcie => "pcie",
            Source::Poll => "poll",
        }
    }

    /// A page every drive of its transport has: failing to read it is a
    /// counted failure on every poll, never "not supported". The NVMe Base
    /// specification's log page table marks SMART / Health Information
    /// mandatory, Identify is how a controller is known at all, and a SATA
    /// drive that cannot answer SMART READ DATA has nothing for the
    /// exporter to serve. A SCSI drive is known by its standard INQUIRY
    /// (mandatory for every device, SPC-5 6.7); its log pages are all
    /// optional.
    pub fn mandatory(self) -> bool {
        matches!(
            self,
            Source::Identify | Source::SmartLog | Source::AtaSmart | Source::ScsiInquiry
        )
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_label())
    }
}

#[cfg(test)]
mod tests;
