//! Telemetry Controller-Initiated log page (LID 08h): its first 512 bytes,
//! the header, and nothing of the data area.
//!
//! NVMe Base 2.0 section 5.16.1.9: byte 0 the log identifier (08h), bytes
//! 7:5 the IEEE OUI of the vendor who can read the data, bytes 9:8, 11:10,
//! 13:12 the last block of data areas 1, 2 and 3, byte 382 Telemetry
//! Controller-Initiated Data Available (1: the controller saved its
//! internal state, latched until the host reads the log with RAE cleared),
//! byte 383 its Data Generation Number (incremented each time the
//! controller captures its state), bytes 511:384 the vendor's reason
//! identifier. The exporter reads the header with RAE set (as nvme-cli
//! does), so the saved data and its event stay for the vendor's tools.

use serde::Serialize;
use zerocopy::little_endian::{U16, U32};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::{LID_TELEMETRY_CTRL, TELEMETRY_HEADER_LEN};
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "telemetry controller-initiated log";

/// The header (libnvme `struct nvme_telemetry_log` up to the data area).
/// The one definition of these offsets: the decoder reads through it, the
/// demo and the fixture builder fill it. Exactly 512 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct TelemetryHeaderPage {
    /// Byte 0, log identifier: 08h.
    pub lpi: u8,
    /// Bytes 4:1, reserved.
    pub rsvd1: [u8; 4],
    /// Bytes 7:5, IEEE OUI, least significant byte first.
    pub ieee: [u8; 3],
    /// Bytes 9:8, data area 1 last block.
    pub dalb1: U16,
    /// Bytes 11:10, data area 2 last block.
    pub dalb2: U16,
    /// Bytes 13:12, data area 3 last block.
    pub dalb3: U16,
    /// Bytes 15:14, reserved.
    pub rsvd14: [u8; 2],
    /// Bytes 19:16, data area 4 last block (NVMe 2.0, extended telemetry).
    pub dalb4: U32,
    /// Bytes 380:20, reserved for this log.
    pub rsvd20: [u8; 361],
    /// Byte 381, host-initiated generation number (host log) or
    /// controller-initiated scope (newer revisions); not read.
    pub byte381: u8,
    /// Byte 382, Telemetry Controller-Initiated Data Available.
    pub ctrlavail: u8,
    /// Byte 383, Telemetry Controller-Initiated Data Generation Number.
    pub ctrldgn: u8,
    /// Bytes 511:384, reason identifier (vendor specific).
    pub rsnident: [u8; 128],
}

const _: () = assert!(size_of::<TelemetryHeaderPage>() == TELEMETRY_HEADER_LEN);

impl TelemetryHeaderPage {
    /// A header with the log identifier set, to fill in.
    pub fn new() -> Self {
        let mut p = Self::new_zeroed();
        p.lpi = LID_TELEMETRY_CTRL;
        p
    }
}

impl Default for TelemetryHeaderPage {
    fn default() -> Self {
        Self::new()
    }
}

/// The controller-initiated telemetry header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TelemetryCtrlHeader {
    /// Bytes 7:5, IEEE OUI, little-endian 24-bit.
    pub ieee_oui: u32,
    /// Bytes 9:8, 11:10, 13:12 and 19:16: last block of data areas 1..4.
    pub data_area_last_block: [u32; 4],
    /// Byte 382 is 1: saved internal state is waiting to be read.
    pub data_available: bool,
    /// Byte 382 as reported (values other than 0 and 1 are reserved).
    pub data_available_raw: u8,
    /// Byte 383: Data Generation Number.
    pub generation: u8,
    /// Whether the reason identifier (bytes 511:384) holds anything.
    pub has_reason: bool,
}

impl TelemetryCtrlHeader {
    /// Decodes the first 512 bytes of log 08h; rejects a page whose log
    /// identifier (byte 0) is not 08h, since it is not this log.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, TELEMETRY_HEADER_LEN)?;
        let (p, _) =
            TelemetryHeaderPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
                page: PAGE,
                expected: TELEMETRY_HEADER_LEN,
                got: buf.len(),
            })?;
        if p.lpi != LID_TELEMETRY_CTRL {
            return Err(ParseError::Invalid {
                page: PAGE,
                reason: format!(
                    "log identifier (byte 0) is {:02x}h, not 08h: not this log",
                    p.lpi
                ),
            });
        }
        let [o0, o1, o2] = p.ieee;
        Ok(Self {
            ieee_oui: u32::from_le_bytes([o0, o1, o2, 0]),
            data_area_last_block: [
                u32::from(p.dalb1.get()),
                u32::from(p.dalb2.get()),
                u32::from(p.dalb3.get()),
                p.dalb4.get(),
            ],
            data_available: p.ctrlavail == 1,
            data_available_raw: p.ctrlavail,
            generation: p.ctrldgn,
            has_reason: p.rsnident.iter().any(|&b| b != 0),
        })
    }
}

#[cfg(test)]
mod tests;
