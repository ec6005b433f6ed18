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
