//! Test-only helpers that place little-endian values into a page buffer.
//! Tests write offsets literally (from layouts.md), not via decoder constants.

pub fn put(buf: &mut [u8], off: usize, bytes: &[u8]) {
    buf[off..off + bytes.len()].copy_from_slice(bytes);
}

pub fn put_u16(buf: &mut [u8], off: usize, v: u16) {
    put(buf, off, &v.to_le_bytes());
}

pub fn put_u32(buf: &mut [u8], off: usize, v: u32) {
    put(buf, off, &v.to_le_bytes());
}

pub fn put_u64(buf: &mut [u8], off: usize, v: u64) {
    put(buf, off, &v.to_le_bytes());
}

/// Low `len` bytes of `v`, little-endian (for 3-, 6- and 7-byte fields).
pub fn put_uint(buf: &mut [u8], off: usize, v: u64, len: usize) {
    put(buf, off, &v.to_le_bytes()[..len]);
}

pub fn put_u128(buf: &mut [u8], off: usize, v: u128) {
    put(buf, off, &v.to_le_bytes());
}
