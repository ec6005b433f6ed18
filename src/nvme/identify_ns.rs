//! Identify Namespace (CNS 00h): only the globally unique identifiers the
//! exporter uses as the drive's world-wide name.

use zerocopy::little_endian::{U16, U32, U64, U128};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use crate::decode::{Bytes, ParseError};

const PAGE: &str = "identify namespace";

/// Identify Namespace data structure size.
pub const ID_NS_LEN: usize = 4096;

/// Bytes [`IdNs::parse`] requires: the identifiers end at byte 127.
pub const ID_NS_MIN_LEN: usize = 128;

/// The Identify Namespace data structure for the NVM command set, as NVMe
/// Base 2.0 lays it out (offsets and names as libnvme's `struct
/// nvme_id_ns`). The one definition of these offsets: the decoder reads
/// through it and the demo fills it. Fields nobody reads are byte ranges
/// named by offset. Little-endian, unaligned, exactly 4096 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct IdNsPage {
    /// Bytes 7:0, namespace size, logical blocks.
    pub nsze: U64,
    /// Bytes 15:8, namespace capacity, logical blocks.
    pub ncap: U64,
    /// Bytes 23:16, namespace utilization, logical blocks.
    pub nuse: U64,
    /// Byte 24, namespace features.
    pub nsfeat: u8,
    /// Byte 25, number of LBA formats, zero-based.
    pub nlbaf: u8,
    /// Byte 26, formatted LBA size (bits 3:0 the format index, low bits).
    pub flbas: u8,
    /// Bytes 47:27: MC, DPC, DPS, NMIC, RESCAP, FPI, DLFEAT, NAWUN .. NOIOB.
    pub rsvd27: [u8; 21],
    /// Bytes 63:48, NVM capacity, bytes.
    pub nvmcap: U128,
    /// Bytes 91:64: NPWG .. NULBAF, reserved.
    pub rsvd64: [u8; 28],
    /// Bytes 95:92, ANA group identifier.
    pub anagrpid: U32,
    /// Bytes 99:96: reserved, NSATTR.
    pub rsvd96: [u8; 4],
    /// Bytes 101:100, NVM set identifier.
    pub nvmsetid: U16,
    /// Bytes 103:102, endurance group identifier.
    pub endgid: U16,
    /// Bytes 119:104, namespace globally unique identifier (a byte string).
    pub nguid: [u8; 16],
    /// Bytes 127:120, IEEE extended unique identifier (a byte string).
    pub eui64: [u8; 8],
    /// Bytes 383:128, LBA formats 0..63.
    pub lbaf: [LbaFormat; 64],
    /// Bytes 3071:384, reserved.
    pub rsvd384: [u8; 2688],
    /// Bytes 4095:3072, vendor specific.
    pub vs: [u8; 1024],
}

const _: () = assert!(size_of::<IdNsPage>() == ID_NS_LEN);

/// One LBA format descriptor (libnvme `struct nvme_lbaf`), 4 bytes at
/// 128 + 4 × n.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct LbaFormat {
    /// Bytes 1:0, metadata bytes per logical block.
    pub ms: U16,
    /// Byte 2, LBA data size as a power of two (9 = 512 bytes).
    pub ds: u8,
    /// Byte 3, relative performance (bits 1:0).
    pub rp: u8,
}

const _: () = assert!(size_of::<LbaFormat>() == 4);

impl IdNsPage {
    /// A page of zeros, to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }
}

/// The namespace's globally unique identifiers (NVMe Base 2.0 Figure 280).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdNs {
    /// NGUID, bytes 104..120 (big-endian byte string); all zero = not reported.
    pub nguid: [u8; 16],
    /// EUI64, bytes 120..128; all zero = not reported.
    pub eui64: [u8; 8],
}

impl IdNs {
    /// Decodes the 128 bytes that hold the identifiers (a full page is 4096).
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, ID_NS_MIN_LEN)?;
        // A short transfer reads as zeros beyond its end.
        let mut p = IdNsPage::zeroed();
        let have = b.slice(0, buf.len().min(ID_NS_LEN));
        if let Some(dst) = p.as_mut_bytes().get_mut(..have.len()) {
            dst.copy_from_slice(have);
        }
        Ok(Self {
            nguid: p.nguid,
            eui64: p.eui64,
        })
    }

    /// `eui.<hex>` from the NGUID, else from the EUI64 — the form Linux uses
    /// for a namespace's `wwid` in sysfs (`drivers/nvme/host/core.c`,
    /// `wwid_show`) when it has no UUID; `None` when neither is reported.
    pub fn wwn(&self) -> Option<String> {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        if self.nguid.iter().any(|&b| b != 0) {
            Some(format!("eui.{}", hex(&self.nguid)))
        } else if self.eui64.iter().any(|&b| b != 0) {
            Some(format!("eui.{}", hex(&self.eui64)))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests;
