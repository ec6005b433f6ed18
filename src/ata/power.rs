//! CHECK POWER MODE (E5h, non-data): the drive's power state, returned in
//! the count register. Asked before anything that might spin a disk up, so
//! a poll can skip a drive in standby.

use serde::Serialize;

use super::CMD_CHECK_POWER_MODE;
use super::passthrough::{Command, Protocol, Taskfile};

/// The CHECK POWER MODE command: non-data with CK_COND, because the answer
/// is the count register.
pub fn command() -> Command {
    Command {
        taskfile: Taskfile {
            command: CMD_CHECK_POWER_MODE,
            ..Taskfile::default()
        },
        protocol: Protocol::NonData,
        check_condition: true,
        extend: false,
    }
}

/// The power mode in the count register (ACS-3 table "CHECK POWER MODE
/// normal output").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PowerMode {
    /// 00h: Standby; also 01h, ACS-4's Standby_y (EPC).
    Standby,
    /// 40h: NV Cache power mode, spindle spun or spinning down.
    NvCacheSpunDown,
    /// 41h: NV Cache power mode, spindle spun or spinning up.
    NvCacheSpunUp,
    /// 80h: Idle; also 81h–83h, ACS-4's Idle_a/b/c (EPC).
    Idle,
    /// FFh: Active or Idle.
    ActiveOrIdle,
    /// Any other (reserved) value.
    Unknown(u8),
}

impl PowerMode {
    /// Decodes the count register 7:0.
    pub fn from_count(count: u8) -> Self {
        match count {
            0x00 | 0x01 => PowerMode::Standby,
            0x40 => PowerMode::NvCacheSpunDown,
            0x41 => PowerMode::NvCacheSpunUp,
            0x80..=0x83 => PowerMode::Idle,
            0xFF => PowerMode::ActiveOrIdle,
            other => PowerMode::Unknown(other),
        }
    }

    /// In standby: reading SMART data may spin the drive up.
    pub fn is_standby(&self) -> bool {
        matches!(self, PowerMode::Standby)
    }

    /// A snake_case label.
    pub fn name(&self) -> &'static str {
        match self {
            PowerMode::Standby => "standby",
            PowerMode::NvCacheSpunDown => "nv_cache_spun_down",
            PowerMode::NvCacheSpunUp => "nv_cache_spun_up",
            PowerMode::Idle => "idle",
            PowerMode::ActiveOrIdle => "active_or_idle",
            PowerMode::Unknown(_) => "unknown",
        }
    }
}

#[cfg(test)]
mod tests;
