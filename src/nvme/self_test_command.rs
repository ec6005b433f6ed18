//! The Device Self-test admin command (NVMe Base Specification 2.0,
//! "Device Self-test command", admin opcode 14h): the one command the
//! exporter sends that changes what a drive does, and only when
//! `selftest.schedule` asks for it. No data transfer; the result lands in
//! the Device Self-test log (LID 06h, [`super::self_test`]).
//!
//! ```text
//! CDW0 opcode   14h
//! NSID          FFFFFFFFh: the controller and every active namespace
//!               (0 = the controller only; a namespace ID = that one)
//! CDW10 [3:0]   Self-test Code (STC): 1h short, 2h extended, Eh vendor,
//!               Fh abort the device self-test in progress
//! CDW11..15     reserved (0)
//! ```
//!
//! A controller that has no self-test (Identify Controller OACS bit 4
//! clear) completes it with Invalid Command Opcode; one with a test in
//! progress completes a new one with Device Self-test in Progress (SCT 1h,
//! SC 1Dh).

/// Admin opcode of Device Self-test.
pub const OPC_DEVICE_SELF_TEST: u8 = 0x14;
/// NSID FFFFFFFFh: test the controller and all of its namespaces.
pub const NSID_ALL: u32 = 0xFFFF_FFFF;
/// STC 1h: short device self-test operation.
pub const STC_SHORT: u8 = 0x1;
/// STC 2h: extended device self-test operation.
pub const STC_EXTENDED: u8 = 0x2;
/// STC Fh: abort the device self-test operation in progress.
pub const STC_ABORT: u8 = 0xF;

/// The fields of a Device Self-test command the exporter sets; every other
/// dword is zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceSelfTest {
    pub opcode: u8,
    pub nsid: u32,
    pub cdw10: u32,
}

/// Device Self-test with self-test code `stc` (bits 3:0 of CDW10) on the
/// controller and all its namespaces.
pub fn command(stc: u8) -> DeviceSelfTest {
    DeviceSelfTest {
        opcode: OPC_DEVICE_SELF_TEST,
        nsid: NSID_ALL,
        cdw10: u32::from(stc & 0x0F),
    }
}

#[cfg(test)]
mod tests;
