//! Identify UUID List (CNS 17h): finds the index of the OCP UUID, which
//! Get Log Page needs in `CDW14[6:0]` to reach the OCP pages (C0h ...).
//!
//! Layout: 32 reserved bytes, then up to 127 entries of 32 bytes
//! `{ u8 header; u8 rsvd[15]; u8 uuid[16] }` (32 + 127 × 32 = 4096;
//! libnvme `NVME_ID_UUID_LIST_MAX = 127`). The list ends at the first entry
//! whose UUID is all zero, as nvme-cli's printer treats it.

use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::UUID_LIST_LEN;
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "uuid list";

/// The UUID List (layouts.md; libnvme `struct nvme_id_uuid_list`). The one
/// definition of these offsets: the decoder reads through it and the
/// poller's tests build their lists with it. Exactly 4096 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct UuidListPage {
    /// Bytes 31:0, reserved.
    pub rsvd0: [u8; 32],
    /// Bytes 4095:32, UUID list entries 1..127 (32 bytes each).
    pub entry: [UuidEntry; 127],
}

const _: () = assert!(size_of::<UuidListPage>() == UUID_LIST_LEN);

/// One UUID List entry (libnvme `struct nvme_id_uuid_list_entry`), 32
/// bytes at 32 + 32 × n.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct UuidEntry {
    /// Byte 0, identifier association (bits 1:0).
    pub header: u8,
    /// Bytes 15:1, reserved.
    pub rsvd1: [u8; 15],
    /// Bytes 31:16, the UUID.
    pub uuid: [u8; 16],
}

const _: () = assert!(size_of::<UuidEntry>() == 32);

impl UuidListPage {
    /// An empty list, to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }
}

/// The OCP Datacenter NVMe SSD UUID `c194d55b-e094-4794-a21d-29998f56be6f`,
/// in the byte order it appears in the list (RFC 4122 order, as nvme-cli
/// `plugins/ocp/ocp-utils.c` compares it).
pub const OCP_UUID: [u8; 16] = [
    0xc1, 0x94, 0xd5, 0x5b, 0xe0, 0x94, 0x47, 0x94, 0xa2, 0x1d, 0x29, 0x99, 0x8f, 0x56, 0xbe, 0x6f,
];

/// The UUIDs in list order, up to the first all-zero UUID.
/// Requires the full 4096-byte Identify transfer.
pub fn parse(buf: &[u8]) -> Result<Vec<[u8; 16]>, ParseError> {
    let b = Bytes::new(PAGE, buf, UUID_LIST_LEN)?;
    let (p, _) = UuidListPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
        page: PAGE,
        expected: UUID_LIST_LEN,
        got: buf.len(),
    })?;
    let uuids = p
        .entry
        .iter()
        .map(|e| e.uuid)
        .take_while(|uuid| *uuid != [0u8; 16])
        .collect();
    Ok(uuids)
}

/// The UUID index of the OCP UUID (entry position + 1), or `None` if the
/// drive does not list it (then the OCP pages are not reachable by UUID).
///
/// Also matches the UUID with its 16 bytes reversed: nvme-cli's Solidigm
/// plugin notes some drives report it that way.
pub fn ocp_uuid_index(buf: &[u8]) -> Result<Option<u8>, ParseError> {
    let mut reversed = OCP_UUID;
    reversed.reverse();
    let pos = parse(buf)?
        .iter()
        .position(|u| *u == OCP_UUID || *u == reversed);
    Ok(pos.and_then(|p| u8::try_from(p + 1).ok()))
}

#[cfg(test)]
mod tests;
