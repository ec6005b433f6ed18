//! Bounds-checked little-endian field access shared by every pure decoder.
//!
//! Decoders check a page's length once ([`Bytes::new`]) and then read fields
//! through these helpers, which never panic: a read past the end yields zero
//! for the missing bytes (it cannot happen after the length check, but a
//! helper that can panic would make "no panic on any input" depend on every
//! caller getting its arithmetic right).

use thiserror::Error;

/// Why a page could not be decoded. Text is lower case and names the page.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// The buffer is shorter than the page's fixed layout.
    #[error("{page}: expected at least {expected} bytes, got {got}")]
    Length {
        page: &'static str,
        expected: usize,
        got: usize,
    },
    /// The bytes are the right size but fail the page's own validation
    /// (a GUID, a signature, a checksum).
    #[error("{page}: {reason}")]
    Invalid { page: &'static str, reason: String },
}

/// A length-checked view of a page.
#[derive(Debug, Clone, Copy)]
pub struct Bytes<'a> {
    buf: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// Checks that `buf` holds at least `min_len` bytes of `page`.
    pub fn new(page: &'static str, buf: &'a [u8], min_len: usize) -> Result<Self, ParseError> {
        if buf.len() < min_len {
            return Err(ParseError::Length {
                page,
                expected: min_len,
                got: buf.len(),
            });
        }
        Ok(Self { buf })
    }

    /// The underlying buffer.
    pub fn raw(&self) -> &'a [u8] {
        self.buf
    }

    /// `len` bytes from `off`, or an empty slice if out of range.
    pub fn slice(&self, off: usize, len: usize) -> &'a [u8] {
        off.checked_add(len)
            .and_then(|end| self.buf.get(off..end))
            .unwrap_or(&[])
    }

    /// Little-endian unsigned integer of `len` (≤ 16) bytes at `off`.
    pub fn uint(&self, off: usize, len: usize) -> u128 {
        let len = len.min(16);
        let mut le = [0u8; 16];
        let end = off.saturating_add(len).min(self.buf.len());
        let src = self.buf.get(off..end).unwrap_or(&[]);
        le[..src.len()].copy_from_slice(src);
        u128::from_le_bytes(le)
    }

    /// Big-endian unsigned integer of `len` (≤ 16) bytes at `off`, as SCSI
    /// fields are; missing bytes read as zero.
    pub fn be(&self, off: usize, len: usize) -> u128 {
        let len = len.min(16);
        (0..len).fold(0u128, |acc, i| {
            (acc << 8) | u128::from(off.checked_add(i).map_or(0, |o| self.u8(o)))
        })
    }

    pub fn u8(&self, off: usize) -> u8 {
        self.buf.get(off).copied().unwrap_or(0)
    }
    pub fn u16(&self, off: usize) -> u16 {
        self.uint(off, 2) as u16
    }
    pub fn u32(&self, off: usize) -> u32 {
        self.uint(off, 4) as u32
    }
    /// Up to 8 bytes (also for the 6- and 7-byte fields some pages use).
    pub fn u64_n(&self, off: usize, len: usize) -> u64 {
        self.uint(off, len.min(8)) as u64
    }
    pub fn u64(&self, off: usize) -> u64 {
        self.u64_n(off, 8)
    }
    pub fn u128(&self, off: usize) -> u128 {
        self.uint(off, 16)
    }

    /// An ASCII string field, NUL- and space-trimmed; non-printable bytes
    /// become `?` so a label value is always printable.
    pub fn ascii(&self, off: usize, len: usize) -> String {
        printable(self.slice(off, len))
    }
}

/// Printable, trimmed text from raw identity bytes.
pub fn printable(raw: &[u8]) -> String {
    let s: String = raw
        .iter()
        .map(|&b| match b {
            0 => ' ',
            0x20..=0x7e => b as char,
            _ => '?',
        })
        .collect();
    s.trim().to_string()
}

#[cfg(test)]
mod tests;
