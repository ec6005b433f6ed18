//! SEND DIAGNOSTIC (SPC-5, operation code 1Dh) with a background self-test
//! code: the one SCSI command the exporter sends that changes what a drive
//! does, and only when `selftest.schedule` asks for it. No parameter list
//! (non-data); the result lands in the self-test results log page (10h,
//! [`super::self_test`]), whose newest entry says Fh while the test runs.
//!
//! ```text
//! byte 0   1Dh
//! byte 1   SELF-TEST CODE (7:5) | PF (4) | SELFTEST (2) | DEVOFFL (1)
//!          | UNITOFFL (0); SELFTEST 0 with a non-zero code:
//!            001b background short self-test
//!            010b background extended self-test
//!            100b abort background self-test
//! byte 3-4 PARAMETER LIST LENGTH (0)
//! byte 5   CONTROL (0)
//! ```
//!
//! Background: the device runs the test and keeps serving commands
//! (foreground codes 101b/110b would hold them until it ends, and are
//! never sent).

/// Operation code of SEND DIAGNOSTIC.
pub const SEND_DIAGNOSTIC: u8 = 0x1D;
/// SELF-TEST CODE 001b: background short self-test.
pub const BACKGROUND_SHORT: u8 = 0b001;
/// SELF-TEST CODE 010b: background extended self-test.
pub const BACKGROUND_EXTENDED: u8 = 0b010;
/// SELF-TEST CODE 100b: abort the background self-test.
pub const ABORT_BACKGROUND: u8 = 0b100;

/// The 6-byte SEND DIAGNOSTIC CDB with SELF-TEST CODE `code` (3 bits),
/// every other field zero.
pub fn cdb(code: u8) -> [u8; 6] {
    [SEND_DIAGNOSTIC, (code & 0b111) << 5, 0, 0, 0, 0]
}

#[cfg(test)]
mod tests;
