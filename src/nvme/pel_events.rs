//! Persistent Event Log event types and the event data the exporter
//! decodes (NVMe Base 2.0 section 5.16.1.14.1; layouts as libnvme's
//! `struct nvme_fw_commit_event`, `nvme_power_on_reset_info_list`,
//! `nvme_thermal_exc_event`, `nvme_nss_hw_err_event`). Other types are
//! counted and shown by type alone.

use serde::Serialize;
use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::decode::printable;

/// An event type: the `type` label of `ssd_pel_events_total`. One enum
/// from the decoder to the metrics, so a label cannot be misspelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum PelEventType {
    SmartSnapshot,
    FirmwareCommit,
    TimestampChange,
    PowerOnReset,
    HardwareError,
    ChangeNamespace,
    FormatStart,
    FormatComplete,
    SanitizeStart,
    SanitizeComplete,
    SetFeature,
    TelemetryLogCreated,
    ThermalExcursion,
    Vendor,
    /// A type this exporter does not name (a newer revision's, or TCG's).
    Other,
}

impl PelEventType {
    pub const ALL: [PelEventType; 15] = [
        Self::SmartSnapshot,
        Self::FirmwareCommit,
        Self::TimestampChange,
        Self::PowerOnReset,
        Self::HardwareError,
        Self::ChangeNamespace,
        Self::FormatStart,
        Self::FormatComplete,
        Self::SanitizeStart,
        Self::SanitizeComplete,
        Self::SetFeature,
        Self::TelemetryLogCreated,
        Self::ThermalExcursion,
        Self::Vendor,
        Self::Other,
    ];

    /// The type of Event Type code `code`: 01h..0Dh, DEh vendor specific.
    pub fn from_code(code: u8) -> Self {
        Self::ALL
            .into_iter()
            .find(|t| t.code() == Some(code))
            .unwrap_or(Self::Other)
    }

    /// The Event Type code; `None` for [`PelEventType::Other`].
    pub fn code(self) -> Option<u8> {
        let code = match self {
            Self::SmartSnapshot => 0x01,
            Self::FirmwareCommit => 0x02,
            Self::TimestampChange => 0x03,
            Self::PowerOnReset => 0x04,
            Self::HardwareError => 0x05,
            Self::ChangeNamespace => 0x06,
            Self::FormatStart => 0x07,
            Self::FormatComplete => 0x08,
            Self::SanitizeStart => 0x09,
            Self::SanitizeComplete => 0x0A,
            Self::SetFeature => 0x0B,
            Self::TelemetryLogCreated => 0x0C,
            Self::ThermalExcursion => 0x0D,
            Self::Vendor => 0xDE,
            Self::Other => return None,
        };
        Some(code)
    }

    pub fn as_label(self) -> &'static str {
        match self {
            Self::SmartSnapshot => "smart_snapshot",
            Self::FirmwareCommit => "firmware_commit",
            Self::TimestampChange => "timestamp_change",
            Self::PowerOnReset => "power_on_reset",
            Self::HardwareError => "hardware_error",
            Self::ChangeNamespace => "change_namespace",
            Self::FormatStart => "format_start",
            Self::FormatComplete => "format_complete",
            Self::SanitizeStart => "sanitize_start",
            Self::SanitizeComplete => "sanitize_complete",
            Self::SetFeature => "set_feature",
            Self::TelemetryLogCreated => "telemetry_log_created",
            Self::ThermalExcursion => "thermal_excursion",
            Self::Vendor => "vendor",
            Self::Other => "other",
        }
    }
}

/// Firmware Commit event data (type 02h), 22 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct FwCommitEventData {
    /// Bytes 7:0, old firmware revision (ASCII).
    pub old_fw_rev: [u8; 8],
    /// Bytes 15:8, new firmware revision (ASCII).
    pub new_fw_rev: [u8; 8],
    /// Byte 16, Firmware Commit action (CDW10 bits 5:3 of the command).
    pub fw_commit_action: u8,
    /// Byte 17, firmware slot.
    pub fw_slot: u8,
    /// Byte 18, status code type of the Firmware Commit command.
    pub sct_fw: u8,
    /// Byte 19, status code of the Firmware Commit command.
    pub sc_fw: u8,
    /// Bytes 21:20, vendor assigned firmware commit result code.
    pub vndr_assign_fw_commit_rc: U16,
}

/// Power-on or Reset event data (type 04h): the firmware revision, then
/// one of these 36-byte entries per controller.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PowerOnResetInfo {
    /// Bytes 1:0, controller identifier.
    pub cid: U16,
    /// Byte 2, firmware activation (bit 0: a firmware activation occurred).
    pub fw_act: u8,
    /// Byte 3, operation in progress.
    pub op_in_prog: u8,
    /// Bytes 15:4, reserved.
    pub rsvd4: [u8; 12],
    /// Bytes 19:16, controller power cycle.
    pub ctrl_power_cycle: U32,
    /// Bytes 27:20, power on milliseconds.
    pub power_on_ml_seconds: U64,
    /// Bytes 35:28, controller timestamp.
    pub ctrl_time_stamp: U64,
}

/// The firmware revision opening a power-on or reset event's data.
pub const POWER_ON_FW_REV_LEN: usize = 8;

/// Thermal Excursion event data (type 0Dh), as reported.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct ThermalExcursionData {
    /// Byte 0, over temperature.
    pub over_temp: u8,
    /// Byte 1, threshold.
    pub threshold: u8,
}

/// What an event's data says, for the types the exporter reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum PelDetail {
    None,
    FirmwareCommit {
        old: String,
        new: String,
        action: u8,
        slot: u8,
        sct: u8,
        sc: u8,
    },
    PowerOnReset {
        firmware: String,
        /// Controllers whose entry says a firmware activation occurred.
        activations: u32,
        controllers: u32,
    },
    ThermalExcursion {
        over_temperature: u8,
        threshold: u8,
    },
    HardwareError {
        code: u16,
    },
}

/// The detail of an event of type `code` with event data `data` (the
/// vendor information already skipped); `None` when the data is too short.
pub fn detail(code: u8, data: &[u8]) -> PelDetail {
    match PelEventType::from_code(code) {
        PelEventType::FirmwareCommit => FwCommitEventData::ref_from_prefix(data)
            .map(|(d, _)| PelDetail::FirmwareCommit {
                old: printable(&d.old_fw_rev),
                new: printable(&d.new_fw_rev),
                action: d.fw_commit_action,
                slot: d.fw_slot,
                sct: d.sct_fw,
                sc: d.sc_fw,
            })
            .unwrap_or(PelDetail::None),
        PelEventType::PowerOnReset => power_on(data),
        PelEventType::ThermalExcursion => ThermalExcursionData::ref_from_prefix(data)
            .map(|(d, _)| PelDetail::ThermalExcursion {
                over_temperature: d.over_temp,
                threshold: d.threshold,
            })
            .unwrap_or(PelDetail::None),
        PelEventType::HardwareError => U16::ref_from_prefix(data)
            .map(|(c, _)| PelDetail::HardwareError { code: c.get() })
            .unwrap_or(PelDetail::None),
        _ => PelDetail::None,
    }
}

fn power_on(data: &[u8]) -> PelDetail {
    let Some((rev, rest)) = data.split_at_checked(POWER_ON_FW_REV_LEN) else {
        return PelDetail::None;
    };
    let n = rest.len() / size_of::<PowerOnResetInfo>();
    let entries = <[PowerOnResetInfo]>::ref_from_prefix_with_elems(rest, n)
        .map(|(e, _)| e)
        .unwrap_or_default();
    PelDetail::PowerOnReset {
        firmware: printable(rev),
        activations: entries.iter().filter(|e| e.fw_act & 1 != 0).count() as u32,
        controllers: entries.len() as u32,
    }
}

impl PelDetail {
    /// One line for people; empty for [`PelDetail::None`].
    pub fn describe(&self) -> String {
        match self {
            Self::None => String::new(),
            Self::FirmwareCommit {
                old,
                new,
                action,
                slot,
                sct,
                sc,
            } => {
                let status = if (*sct, *sc) == (0, 0) {
                    "succeeded".to_string()
                } else {
                    format!("status sct {sct:x}h sc {sc:02x}h")
                };
                format!("firmware {old} -> {new}, slot {slot}, commit action {action}, {status}")
            }
            Self::PowerOnReset {
                firmware,
                activations,
                controllers,
            } => {
                let act = if *activations > 0 {
                    ", firmware activated"
                } else {
                    ""
                };
                format!("firmware {firmware}, {controllers} controller(s){act}")
            }
            Self::ThermalExcursion {
                over_temperature,
                threshold,
            } => {
                format!("over temperature {over_temperature}, threshold {threshold} (as reported)")
            }
            Self::HardwareError { code } => format!("hardware error code {code:04x}h"),
        }
    }
}

#[cfg(test)]
mod tests;
