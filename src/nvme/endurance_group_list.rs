//! Identify Endurance Group List (CNS 19h, 4096 bytes): the identifiers of
//! the controller's endurance groups, which the Endurance Group Information
//! log (09h) is read for one by one.
//!
//! Layout (NVMe Base 2.0, Identify, Endurance Group List): bytes 1:0 the
//! number of identifiers, then up to 2047 identifiers of two bytes each,
//! in increasing order; 0 is not a valid identifier.

use zerocopy::little_endian::U16;
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::IDENTIFY_LIST_LEN;
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "endurance group list";

/// The list's capacity: (4096 − 2) / 2 identifiers.
pub const MAX_IDS: usize = 2047;

/// The Endurance Group List. The one definition of these offsets: the
/// decoder reads through it, tests build their lists with it.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct EnduranceGroupListPage {
    /// Bytes 1:0, number of identifiers.
    pub num: U16,
    /// Bytes 4095:2, identifiers 0..2046.
    pub ids: [U16; MAX_IDS],
}

const _: () = assert!(size_of::<EnduranceGroupListPage>() == IDENTIFY_LIST_LEN);

impl EnduranceGroupListPage {
    /// An empty list, to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }

    /// A list of `ids` (at most [`MAX_IDS`] of them are kept).
    pub fn of(ids: &[u16]) -> Self {
        let mut p = Self::zeroed();
        let n = ids.len().min(MAX_IDS);
        p.num = (n as u16).into();
        for (slot, &id) in p.ids.iter_mut().zip(&ids[..n]) {
            *slot = id.into();
        }
        p
    }
}

/// The listed identifiers (the count is capped at the list's capacity;
/// zeros, which name no group, are dropped).
pub fn parse(buf: &[u8]) -> Result<Vec<u16>, ParseError> {
    let b = Bytes::new(PAGE, buf, IDENTIFY_LIST_LEN)?;
    let (p, _) =
        EnduranceGroupListPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
            page: PAGE,
            expected: IDENTIFY_LIST_LEN,
            got: buf.len(),
        })?;
    let n = usize::from(p.num.get()).min(MAX_IDS);
    Ok(p.ids[..n]
        .iter()
        .map(|id| id.get())
        .filter(|&id| id != 0)
        .collect())
}

#[cfg(test)]
mod tests;
