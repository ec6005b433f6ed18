//! SMART EXECUTE OFF-LINE IMMEDIATE (ACS-3 7.48.5: command B0h, feature
//! D4h), the SMART subcommand that starts or aborts a self-test: the one
//! ATA command the exporter sends that changes what a drive does, and only
//! when `selftest.schedule` asks for it. Non-data; the result lands in the
//! SMART self-test log ([`super::self_test`]) and in byte 363 of SMART READ
//! DATA (self-test execution status, high nibble Fh while one runs).
//!
//! ```text
//! FEATURE   D4h          LBA 7:0 (LBA low)  subroutine, ACS-3 table
//! COUNT     0              "Off-line immediate and self-test routines":
//! LBA 15:8  4Fh            01h short self-test, off-line mode
//! LBA 23:16 C2h            02h extended self-test, off-line mode
//! COMMAND   B0h            7Fh abort the off-line mode self-test
//! ```
//!
//! Off-line mode: the drive runs the test in the background and keeps
//! serving commands (captive mode, 81h/82h, would hold the bus until the
//! test ends, and is never sent).

use super::SMART_EXECUTE_OFFLINE_IMMEDIATE;
use super::passthrough::Command;

/// Subroutine 01h: short self-test in off-line mode.
pub const SHORT_OFFLINE: u8 = 0x01;
/// Subroutine 02h: extended self-test in off-line mode.
pub const EXTENDED_OFFLINE: u8 = 0x02;
/// Subroutine 7Fh: abort the off-line mode self-test routine.
pub const ABORT_OFFLINE: u8 = 0x7F;

/// SMART EXECUTE OFF-LINE IMMEDIATE with `subroutine` in LBA low, through
/// ATA PASS-THROUGH(16) as a non-data command (with CK_COND, so a
/// rejecting drive's registers come back).
pub fn command(subroutine: u8) -> Command {
    Command::smart(SMART_EXECUTE_OFFLINE_IMMEDIATE, subroutine, 0)
}

#[cfg(test)]
mod tests;
