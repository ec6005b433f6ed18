//! Pure decoders for the NVMe pages the exporter reads: Identify Controller,
//! Identify Namespace, SMART / Health (02h), OCP SMART Extended (C0h), Error
//! Information (01h), Device Self-test (06h), the Identify UUID list (CNS
//! 17h), and NVMe completion status codes.
//!
//! Every decoder takes the raw page bytes and returns a typed value or a
//! [`ParseError`](crate::decode::ParseError); none performs I/O or panics.
//! Each page's layout is described once, as a `zerocopy` struct beside its
//! decoder ([`identify::IdCtrlPage`], [`identify_ns::IdNsPage`],
//! [`smart_log::SmartLogPage`], [`ocp::OcpSmartLogPage`],
//! [`error_log::ErrorEntryLayout`], [`self_test::SelfTestLogPage`],
//! [`uuid_list::UuidListPage`]): the decoder reads through it, and the
//! demo's page builders and the test fixture builder write through it.
//! Offsets come from `shared/reference/layouts.md` and are named in each
//! field's doc comment. Units are converted at decode time (Kelvin → °C,
//! minutes → seconds, data units → bytes, percent → ratio).

pub mod error_log;
pub mod identify;
pub mod identify_ns;
pub mod ocp;
pub mod self_test;
pub mod smart_log;
pub mod status;
pub mod uuid_list;

#[cfg(test)]
mod testutil;

pub use error_log::ErrorLog;
pub use identify::IdCtrl;
pub use ocp::OcpSmartLog;
pub use self_test::{SelfTestLog, SelfTestResult};
pub use smart_log::{Condition, CriticalWarning, SmartLog};
pub use status::NvmeStatus;

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

/// Error Information log identifier.
pub const LID_ERROR: u8 = 0x01;
/// SMART / Health Information log identifier.
pub const LID_SMART: u8 = 0x02;
/// Device Self-test log identifier.
pub const LID_SELF_TEST: u8 = 0x06;
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
