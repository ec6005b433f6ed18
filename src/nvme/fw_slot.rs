//! Firmware Slot Information log page (LID 03h, 512 bytes): which slot the
//! controller runs, which it activates at the next reset, and each slot's
//! firmware revision.
//!
//! NVMe Base 2.0 section 5.16.1.4: byte 0 is the Active Firmware Info
//! (AFI): bits 2:0 the active slot, bits 6:4 the slot activated at the
//! next Controller Level Reset (0 = none indicated); bytes 8 + 8 × (n − 1)
//! hold slot n's revision (FRS1..FRS7), 8 ASCII bytes, all zero for an
//! empty slot.

use serde::Serialize;
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::FW_SLOT_LOG_LEN;
use crate::decode::{Bytes, ParseError, printable};

const PAGE: &str = "firmware slot log";

/// The page (libnvme `struct nvme_firmware_slot`). The one definition of
/// these offsets: the decoder reads through it, the demo and the fixture
/// builder fill it. Exactly 512 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct FwSlotLogPage {
    /// Byte 0, Active Firmware Info: bits 2:0 active slot, 6:4 next slot.
    pub afi: u8,
    /// Bytes 7:1, reserved.
    pub rsvd1: [u8; 7],
    /// Bytes 63:8, firmware revision for slots 1..7, 8 ASCII bytes each.
    pub frs: [[u8; 8]; 7],
    /// Bytes 511:64, reserved.
    pub rsvd64: [u8; 448],
}

const _: () = assert!(size_of::<FwSlotLogPage>() == FW_SLOT_LOG_LEN);

impl FwSlotLogPage {
    /// A page of zeros, to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }
}

/// One slot that holds an image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FwSlot {
    /// 1..=7.
    pub slot: u8,
    /// The revision, trimmed ASCII (`?` for a byte that is not printable).
    pub revision: String,
    /// The 8 bytes as a little-endian u64, as nvme-cli prints `frsN`.
    pub raw: u64,
}

/// The firmware slots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FwSlotLog {
    /// Byte 0 as reported.
    pub afi: u8,
    /// AFI bits 2:0: the slot the running firmware came from (0 is not a
    /// valid slot; a controller reporting it is served as it is).
    pub active_slot: u8,
    /// AFI bits 6:4: the slot activated at the next reset, `None` when 0.
    pub next_slot: Option<u8>,
    /// Slots whose revision is not empty, in slot order.
    pub slots: Vec<FwSlot>,
}

impl FwSlotLog {
    /// Decodes a 512-byte Firmware Slot Information page.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, FW_SLOT_LOG_LEN)?;
        let (p, _) = FwSlotLogPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
            page: PAGE,
            expected: FW_SLOT_LOG_LEN,
            got: buf.len(),
        })?;
        let next = (p.afi >> 4) & 0x07;
        let slots = p
            .frs
            .iter()
            .zip(1u8..)
            .map(|(frs, slot)| FwSlot {
                slot,
                revision: printable(frs),
                raw: u64::from_le_bytes(*frs),
            })
            .filter(|s| !s.revision.is_empty())
            .collect();
        Ok(Self {
            afi: p.afi,
            active_slot: p.afi & 0x07,
            next_slot: (next != 0).then_some(next),
            slots,
        })
    }

    /// Whether the next reset activates a slot other than the running one
    /// (`ssd_firmware_activation_pending`): the test Linux makes before it
    /// warns "firmware is activated after next Controller Level Reset"
    /// (`drivers/nvme/host/core.c`, `nvme_get_fw_slot_info`).
    pub fn activation_pending(&self) -> bool {
        self.next_slot.is_some_and(|n| n != self.active_slot)
    }
}

#[cfg(test)]
mod tests;
