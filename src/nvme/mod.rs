//! Pure decoders for the NVMe pages the exporter reads: Identify Controller,
//! Identify Namespace, SMART / Health (02h), OCP SMART Extended (C0h), Error
//! Information (01h), Device Self-test (06h), the Identify UUID list (CNS
//! 17h), Firmware Slot Information (03h), Telemetry Controller-Initiated
//! (08h, its header), Endurance Group Information (09h) and the Identify
//! Endurance Group List (CNS 19h), the Persistent Event Log (0Dh), and
//! NVMe completion status codes.
//!
//! Every decoder takes the raw page bytes and returns a typed value or a
//! [`ParseError`](crate::decode::ParseError); none performs I/O or panics.
//! Each page's layout is described once, as a `zerocopy` struct beside its
//! decoder ([`identify::IdCtrlPage`], [`identify_ns::IdNsPage`],
//! [`smart_log::SmartLogPage`], [`ocp::OcpSmartLogPage`],
//! [`error_log::ErrorEntryLayout`], [`self_test::SelfTestLogPage`],
//! [`uuid_list::UuidListPage`], [`fw_slot::FwSlotLogPage`],
//! [`telemetry::TelemetryHeaderPage`],
//! [`endurance_group::EnduranceGroupLogPage`],
//! [`endurance_group_list::EnduranceGroupListPage`],
//! [`pel::PelHeaderPage`] and [`pel::PelEventHeader`] with the event data
//! of [`pel_events`]): the decoder reads through it, and the
//! demo's page builders and the test fixture builder write through it.
//! Offsets come from `shared/reference/layouts.md` and are named in each
//! field's doc comment. Units are converted at decode time (Kelvin → °C,
//! minutes → seconds, data units → bytes, percent → ratio).

pub mod endurance_group;
pub mod endurance_group_list;
pub mod error_log;
pub mod fw_slot;
pub mod identify;
pub mod identify_ns;
pub mod ocp;
pub mod pel;
pub mod pel_events;
pub mod self_test;
pub mod self_test_command;
pub mod smart_log;
pub mod status;
pub mod telemetry;
pub mod uuid_list;

#[cfg(test)]
mod testutil;

pub use endurance_group::EnduranceGroupLog;
pub use error_log::ErrorLog;
pub use fw_slot::FwSlotLog;
pub use identify::IdCtrl;
pub use ocp::OcpSmartLog;
pub use pel::PersistentEventLog;
pub use self_test::{SelfTestLog, SelfTestResult};
pub use smart_log::{Condition, CriticalWarning, SmartLog};
pub use status::NvmeStatus;
pub use telemetry::TelemetryCtrlHeader;

/// Identify Controller data structure (CNS 01h) transfer size.
pub const ID_CTRL_LEN: usize = 4096;
/// SMART / Health Information log page (LID 02h) size.
pub const SMART_LOG_LEN: usize = 512;
/// OCP SMART / Health Information Extended log page (LID C0h) size.
pub const OCP_SMART_LOG_LEN: usize = 512;
/// One Error Information log entry (LID 01h); the page holds ELPE+1 of them.
pub const ERROR_LOG_ENTRY_LEN: usize = 64;
/// Device Self-test log page (LID 06h) size.
pub const SELF_TEST_LOG_LEN: usize = 564;
/// Identify UUID List (CNS 17h) transfer size.
pub const UUID_LIST_LEN: usize = 4096;
/// Identify Endurance Group List (CNS 19h) transfer size.
pub const IDENTIFY_LIST_LEN: usize = 4096;
/// Firmware Slot Information log page (LID 03h) size.
pub const FW_SLOT_LOG_LEN: usize = 512;
/// Telemetry Controller-Initiated log (LID 08h): the header the exporter
/// reads (the data area is never read).
pub const TELEMETRY_HEADER_LEN: usize = 512;
/// Endurance Group Information log page (LID 09h) size.
pub const ENDURANCE_GROUP_LOG_LEN: usize = 512;
/// Persistent Event Log (LID 0Dh) header size; events follow it.
pub const PEL_HEADER_LEN: usize = 512;

/// Error Information log identifier.
pub const LID_ERROR: u8 = 0x01;
/// SMART / Health Information log identifier.
pub const LID_SMART: u8 = 0x02;
/// Firmware Slot Information log identifier.
pub const LID_FW_SLOT: u8 = 0x03;
/// Device Self-test log identifier.
pub const LID_SELF_TEST: u8 = 0x06;
/// Telemetry Controller-Initiated log identifier.
pub const LID_TELEMETRY_CTRL: u8 = 0x08;
/// Endurance Group Information log identifier (the group in the LSI).
pub const LID_ENDURANCE_GROUP: u8 = 0x09;
/// Persistent Event Log identifier (read within a reporting context).
pub const LID_PERSISTENT_EVENT: u8 = 0x0D;

/// Persistent Event Log Log Specific Parameter (CDW10 bits 14:8,
/// "Log Specific Field" bits 1:0, NVMe Base 2.0 §5.16.1.14): read within
/// the context that exists.
pub const PEL_READ: u8 = 0;
/// Establish a reporting context and read.
pub const PEL_ESTABLISH: u8 = 1;
/// Release the reporting context.
pub const PEL_RELEASE: u8 = 2;
/// OCP SMART / Health Information Extended log identifier (needs the OCP
/// UUID index in CDW14, see [`uuid_list::ocp_uuid_index`]).
pub const LID_OCP_SMART: u8 = 0xC0;

/// A Kelvin reading as degrees Celsius; 0 K means "not reported".
///
/// Uses the integer offset 273 (not 273.15), as nvme-cli and smartctl do, so
/// our values equal theirs.
pub fn kelvin_to_celsius(k: u16) -> Option<f64> {
    if k == 0 {
        None
    } else {
        Some(f64::from(k) - 273.0)
    }
}

#[cfg(test)]
mod tests;
