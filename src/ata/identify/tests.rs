//! IDENTIFY DEVICE buffers built word by word; strings written already
//! byte-swapped, as a drive sends them.

use super::*;

fn put_word(buf: &mut [u8], n: usize, v: u16) {
    buf[2 * n..2 * n + 2].copy_from_slice(&v.to_le_bytes());
}

fn blank() -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    // Strings are space padded.
    buf[20..40].fill(b' ');
    buf[46..94].fill(b' ');
    buf
}

/// QEMU-like identity: serial "12345", firmware "2.5+", model "QEMU
/// HARDDISK", each word's two bytes swapped.
fn qemu_like() -> Vec<u8> {
    let mut buf = blank();
    buf[20..26].copy_from_slice(b"2143 5"); // words 10-12
    buf[46..50].copy_from_slice(b".2+5"); // words 23-24
    buf[54..68].copy_from_slice(b"EQUMH RADDSI K"); // words 27-33
    buf
}

#[test]
fn strings_are_byte_swapped_and_trimmed() {
    let id = Identify::parse(&qemu_like()).unwrap();
    assert_eq!(id.serial, "12345");
    assert_eq!(id.firmware, "2.5+");
    assert_eq!(id.model, "QEMU HARDDISK");
}

#[test]
fn lba48_capacity_of_a_1tb_drive() {
    let mut buf = qemu_like();
    put_word(&mut buf, 82, 0x0001); // SMART supported
    put_word(&mut buf, 83, 0x4400); // valid, 48-bit address
    put_word(&mut buf, 85, 0x0001); // SMART enabled
    put_word(&mut buf, 87, 0x4000); // words 85-87 valid
    // 1 953 525 168 = 7470_6DB0h sectors in words 100-103.
    put_word(&mut buf, 100, 0x6DB0);
    put_word(&mut buf, 101, 0x7470);
    // Words 60-61 saturate at 0FFF_FFFFh on big drives.
    put_word(&mut buf, 60, 0xFFFF);
    put_word(&mut buf, 61, 0x0FFF);
    let id = Identify::parse(&buf).unwrap();
    assert!(id.lba48 && id.smart_supported && id.smart_enabled);
    assert_eq!(id.sectors, 1_953_525_168);
    assert_eq!(id.capacity_bytes, 1_000_204_886_016);
    assert_eq!(
        (id.logical_sector_size, id.physical_sector_size),
        (512, 512)
    );
}

#[test]
fn lba28_capacity_without_48_bit_support() {
    let mut buf = blank();
    put_word(&mut buf, 60, 0xFFFF);
    put_word(&mut buf, 61, 0x0FFF);
    put_word(&mut buf, 100, 0x1234); // ignored: word 83 not valid
    let id = Identify::parse(&buf).unwrap();
    assert!(!id.lba48);
    assert_eq!(id.sectors, 268_435_455);
    assert_eq!(id.capacity_bytes, 268_435_455 * 512);
}

#[test]
fn sector_sizes_512e_and_4kn() {
    // 512e: word 106 = 6003h (valid, multiple logical per physical, 2^3).
    let mut buf = blank();
    put_word(&mut buf, 106, 0x6003);
    put_word(&mut buf, 60, 1000);
    let id = Identify::parse(&buf).unwrap();
    assert_eq!(
        (id.logical_sector_size, id.physical_sector_size),
        (512, 4096)
    );
    assert_eq!(id.capacity_bytes, 512_000);

    // 4Kn: word 106 = 5000h (valid, logical > 256 words), words 117-118 =
    // 2048 words = 4096 bytes.
    let mut buf = blank();
    put_word(&mut buf, 106, 0x5000);
    put_word(&mut buf, 117, 0x0800);
    put_word(&mut buf, 60, 1000);
    let id = Identify::parse(&buf).unwrap();
    assert_eq!(
        (id.logical_sector_size, id.physical_sector_size),
        (4096, 4096)
    );
    assert_eq!(id.capacity_bytes, 4_096_000);

    // Word 106 not valid (bit 15 set): defaults, whatever the bits say.
    let mut buf = blank();
    put_word(&mut buf, 106, 0xF003);
    let id = Identify::parse(&buf).unwrap();
    assert_eq!(
        (id.logical_sector_size, id.physical_sector_size),
        (512, 512)
    );
}

#[test]
fn wwn_word_108_first() {
    let mut buf = blank();
    for (n, w) in [(108, 0x5002), (109, 0x5380), (110, 0x1234), (111, 0xABCD)] {
        put_word(&mut buf, n, w);
    }
    let id = Identify::parse(&buf).unwrap();
    assert_eq!(id.wwn, Some(0x5002_5380_1234_ABCD));
    assert_eq!(id.wwn.unwrap() >> 60, 5); // NAA 5: IEEE registered
    assert_eq!(id.wwn_string().as_deref(), Some("naa.500253801234abcd"));
    assert_eq!(Identify::parse(&blank()).unwrap().wwn_string(), None);
}

#[test]
fn rotation_rate() {
    let mut buf = blank();
    assert_eq!(Identify::parse(&buf).unwrap().rotation_rate, None);
    assert!(!Identify::parse(&buf).unwrap().is_ssd());
    put_word(&mut buf, 217, 1);
    assert!(Identify::parse(&buf).unwrap().is_ssd());
    put_word(&mut buf, 217, 7200);
    let id = Identify::parse(&buf).unwrap();
    assert_eq!((id.rotation_rate, id.is_ssd()), (Some(7200), false));
}

#[test]
fn checksum_right_wrong_and_absent() {
    let mut buf = vec![0u8; 512];
    assert_eq!(Identify::parse(&buf).unwrap().checksum_valid, None);
    buf[510] = 0xA5;
    buf[511] = 0x5B; // A5h + 5Bh = 100h
    assert_eq!(Identify::parse(&buf).unwrap().checksum_valid, Some(true));
    buf[511] = 0x5C;
    assert_eq!(Identify::parse(&buf).unwrap().checksum_valid, Some(false));
    buf[0] = 0xFF; // FFh + A5h + 5Ch = 200h
    assert_eq!(Identify::parse(&buf).unwrap().checksum_valid, Some(true));
}

#[test]
fn feature_words_need_their_validity_bits() {
    let mut buf = blank();
    put_word(&mut buf, 82, 0x0001);
    put_word(&mut buf, 85, 0x0001);
    put_word(&mut buf, 83, 0x8400); // bits 15:14 = 10b: not valid
    let id = Identify::parse(&buf).unwrap();
    assert!(!id.smart_supported && !id.smart_enabled && !id.lba48);
}

#[test]
fn gpl_from_word_84_then_87() {
    let mut buf = blank();
    put_word(&mut buf, 84, 0x4020);
    assert!(Identify::parse(&buf).unwrap().gpl_supported);
    put_word(&mut buf, 84, 0x0020); // not valid: fall back to word 87
    put_word(&mut buf, 87, 0x4020);
    assert!(Identify::parse(&buf).unwrap().gpl_supported);
    put_word(&mut buf, 84, 0x4000); // valid and clear: word 84 decides
    assert!(!Identify::parse(&buf).unwrap().gpl_supported);
}

#[test]
fn ata_major_version() {
    let mut buf = blank();
    assert_eq!(Identify::parse(&buf).unwrap().ata_major_version, None);
    put_word(&mut buf, 80, 0x0FF0); // ATA/ATAPI-4 .. ACS-4
    let id = Identify::parse(&buf).unwrap();
    assert_eq!(id.ata_major_version, Some(11));
    assert_eq!(id.ata_version_name(), Some("ACS-4"));
    put_word(&mut buf, 80, 0xFFFF);
    assert_eq!(Identify::parse(&buf).unwrap().ata_major_version, None);
}

#[test]
fn command_and_short_buffer() {
    let cmd = command();
    assert_eq!(cmd.taskfile.command, 0xEC);
    assert_eq!(cmd.data_len(), 512);
    assert!(matches!(
        Identify::parse(&[0u8; 511]),
        Err(ParseError::Length { expected: 512, .. })
    ));
}

/// The layout's fields sit at the bytes ACS-4 gives (word N at byte 2N).
#[test]
fn layout_offsets_are_the_spec_words() {
    use std::mem::offset_of;
    let words = [
        (offset_of!(IdentifyPage, serial), 10),
        (offset_of!(IdentifyPage, firmware), 23),
        (offset_of!(IdentifyPage, model), 27),
        (offset_of!(IdentifyPage, lba28_sectors), 60),
        (offset_of!(IdentifyPage, major_version), 80),
        (offset_of!(IdentifyPage, command_set_1), 82),
        (offset_of!(IdentifyPage, command_set_2), 83),
        (offset_of!(IdentifyPage, command_set_extension), 84),
        (offset_of!(IdentifyPage, command_set_enabled_1), 85),
        (offset_of!(IdentifyPage, command_set_enabled_2), 86),
        (offset_of!(IdentifyPage, command_set_default), 87),
        (offset_of!(IdentifyPage, lba48_sectors), 100),
        (offset_of!(IdentifyPage, sector_size), 106),
        (offset_of!(IdentifyPage, wwn), 108),
        (offset_of!(IdentifyPage, logical_sector_words), 117),
        (offset_of!(IdentifyPage, form_factor), 168),
        (offset_of!(IdentifyPage, rotation_rate), 217),
        (offset_of!(IdentifyPage, transport_major), 222),
    ];
    for (off, word) in words {
        assert_eq!(off, 2 * word, "word {word}");
    }
    assert_eq!(offset_of!(IdentifyPage, integrity_signature), 510);
    assert_eq!(offset_of!(IdentifyPage, checksum), 511);
}

/// Filled in through the layout, the sector reads back the same at the
/// spec's words (written here by hand, not through the struct).
#[test]
fn layout_writes_land_on_the_spec_words() {
    let mut p = IdentifyPage::zeroed();
    put_ata_string(&mut p.serial, "AB");
    p.lba48_sectors = 0x0001_0002_0003_0004.into();
    p.set_wwn(0x5002_6B78_0000_0001);
    p.rotation_rate = 1.into();
    p.integrity_signature = INTEGRITY_SIGNATURE;
    p.seal();
    let b = zerocopy::IntoBytes::as_bytes(&p);
    assert_eq!(&b[20..24], b"BA  ");
    assert_eq!(&b[200..208], &[4, 0, 3, 0, 2, 0, 1, 0]);
    assert_eq!(&b[216..224], &[0x02, 0x50, 0x78, 0x6B, 0, 0, 0x01, 0]);
    assert_eq!(&b[434..436], &[1, 0]);
    assert_eq!(b[510], 0xA5);
    assert_eq!(b.iter().fold(0u8, |a, &x| a.wrapping_add(x)), 0);
}
