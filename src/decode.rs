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
mod tests {
    use super::*;

    #[test]
    fn short_buffer_is_a_length_error() {
        let err = Bytes::new("smart log", &[0; 10], 512).unwrap_err();
        assert_eq!(
            err.to_string(),
            "smart log: expected at least 512 bytes, got 10"
        );
    }

    #[test]
    fn little_endian_fields() {
        let buf = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09];
        let b = Bytes::new("t", &buf, 9).unwrap();
        assert_eq!(b.u16(0), 0x0201);
        assert_eq!(b.u32(1), 0x0504_0302);
        assert_eq!(b.u64_n(0, 6), 0x0605_0403_0201);
        assert_eq!(b.u64(1), 0x0908_0706_0504_0302);
    }

    #[test]
    fn u128_keeps_the_high_half() {
        let mut buf = [0u8; 16];
        buf[15] = 0x80;
        buf[0] = 1;
        let b = Bytes::new("t", &buf, 16).unwrap();
        assert_eq!(b.u128(0), (1u128 << 127) | 1);
    }

    #[test]
    fn reads_past_the_end_are_zero_not_panics() {
        let b = Bytes::new("t", &[0xff, 0xff], 0).unwrap();
        assert_eq!(b.u32(1), 0xff);
        assert_eq!(b.u64(usize::MAX), 0);
        assert_eq!(b.slice(usize::MAX, 2), &[] as &[u8]);
    }

    #[test]
    fn big_endian_fields() {
        let b = Bytes::new("t", &[0x01, 0x02, 0x03, 0x04], 0).unwrap();
        assert_eq!(b.be(0, 2), 0x0102);
        assert_eq!(b.be(1, 3), 0x02_0304);
        // Past the end reads zeros, never panics.
        assert_eq!(b.be(3, 2), 0x0400);
        assert_eq!(b.be(usize::MAX, 4), 0);
    }

    #[test]
    fn ascii_is_trimmed_and_printable() {
        let b = Bytes::new("t", b"AB \x01\x00  ", 0).unwrap();
        assert_eq!(b.ascii(0, 7), "AB ?");
    }
}
