//! What every ATA page layout here shares: it is one 512-byte sector, laid
//! out as a `zerocopy` struct of unaligned little-endian fields, viewed in
//! place by its decoder and filled in by the demo and the fixture builder;
//! and most of them end in a checksum byte (511) that makes the sector sum
//! to 0 modulo 256 (ACS-4 "data structure checksum").

use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::{SECTOR, byte_sum};
use crate::decode::ParseError;

/// A 512-byte ATA data structure.
pub trait Sector: FromBytes + IntoBytes + Immutable + KnownLayout + Sized {
    /// The page's name in error messages.
    const PAGE: &'static str;

    /// A sector of zeros, to fill in.
    fn zeroed() -> Self {
        Self::new_zeroed()
    }

    /// The first 512 bytes of `buf` seen through the layout: the one
    /// length check; never panics (every layout has alignment 1).
    fn view(buf: &[u8]) -> Result<&Self, ParseError> {
        Self::ref_from_prefix(buf)
            .map(|(page, _)| page)
            .map_err(|_| ParseError::Length {
                page: Self::PAGE,
                expected: SECTOR,
                got: buf.len(),
            })
    }
}

/// A sector whose byte 511 is a checksum: the one rule, for the decoders
/// that verify it and the builders that write it.
pub trait Checksummed: Sector {
    /// All 512 bytes sum to 0 modulo 256.
    fn checksum_valid(&self) -> bool {
        byte_sum(self.as_bytes()) == 0
    }

    /// Sets byte 511 so that the sector sums to 0 modulo 256, as a drive
    /// does.
    fn seal(&mut self) -> &mut Self {
        if let Some((checksum, rest)) = self.as_mut_bytes().split_last_mut() {
            *checksum = byte_sum(rest).wrapping_neg();
        }
        self
    }
}
