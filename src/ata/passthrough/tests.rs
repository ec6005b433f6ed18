use super::*;

// Expected CDBs are written out byte by byte from the SAT field table in
// the module docs and the bytes smartmontools' sat_device sends for the
// same ATA command (protocol 4 + t_length 2 for data-in, ck_cond only
// when output registers are needed, t_dir and byte_block default 1).

#[test]
fn identify_device_cdb() {
    let tf = Taskfile {
        command: 0xEC,
        count: 1,
        ..Default::default()
    };
    assert_eq!(
        cdb16(&tf, Protocol::PioIn, false, false),
        [
            0x85, 0x08, 0x0E, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0xEC, 0x00
        ]
    );
}

#[test]
fn smart_read_data_cdb() {
    let cmd = Command::smart(0xD0, 0, 1);
    assert_eq!(
        cmd.cdb(),
        [
            0x85, 0x08, 0x0E, 0x00, 0xD0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x4F, 0x00, 0xC2, 0x00,
            0xB0, 0x00
        ]
    );
    assert_eq!(cmd.data_len(), 512);
}

#[test]
fn smart_return_status_cdb_is_non_data_with_ck_cond() {
    let cmd = Command::smart(0xDA, 0, 0);
    assert_eq!(cmd.protocol, Protocol::NonData);
    assert_eq!(
        cmd.cdb(),
        [
            0x85, 0x06, 0x2C, 0x00, 0xDA, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4F, 0x00, 0xC2, 0x00,
            0xB0, 0x00
        ]
    );
    assert_eq!(cmd.data_len(), 0);
}

#[test]
fn smart_read_log_puts_the_address_in_lba_low() {
    // SMART READ LOG, log 06h, one sector.
    assert_eq!(
        Command::smart(0xD5, 0x06, 1).cdb(),
        [
            0x85, 0x08, 0x0E, 0x00, 0xD5, 0x00, 0x01, 0x00, 0x06, 0x00, 0x4F, 0x00, 0xC2, 0x00,
            0xB0, 0x00
        ]
    );
}

#[test]
fn read_log_ext_device_statistics_page_1() {
    // 2Fh, extend; log 04h in LBA 7:0 (byte 8), page 1 in LBA 15:8 (byte 10).
    let cmd = Command::read_log_ext(0x04, 1, 1);
    assert_eq!(
        cmd.cdb(),
        [
            0x85, 0x09, 0x0E, 0x00, 0x00, 0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
            0x2F, 0x00
        ]
    );
    assert_eq!(cmd.data_len(), 512);
}

#[test]
fn read_log_ext_high_page_byte_goes_to_lba_39_32() {
    // Page 0x0102: low byte 02h at byte 10 (LBA 15:8), high byte 01h at
    // byte 9 (LBA 39:32), count 0x0100 split over bytes 5/6.
    let cdb = Command::read_log_ext(0xE0, 0x0102, 0x0100).cdb();
    assert_eq!(
        &cdb[5..13],
        &[0x01, 0x00, 0x00, 0xE0, 0x01, 0x02, 0x00, 0x00]
    );
}

#[test]
fn high_bytes_only_with_extend() {
    let tf = Taskfile {
        command: 0x25,
        features: 0xAB_CD,
        count: 0x12_34,
        lba: 0x6655_4433_2211,
        device: 0x40,
    };
    assert_eq!(
        cdb16(&tf, Protocol::PioIn, true, true),
        [
            0x85, 0x09, 0x2E, 0xAB, 0xCD, 0x12, 0x34, 0x44, 0x11, 0x55, 0x22, 0x66, 0x33, 0x40,
            0x25, 0x00
        ]
    );
    assert_eq!(
        cdb16(&tf, Protocol::NonData, false, false),
        [
            0x85, 0x06, 0x0C, 0x00, 0xCD, 0x00, 0x34, 0x00, 0x11, 0x00, 0x22, 0x00, 0x33, 0x40,
            0x25, 0x00
        ]
    );
}

// ATA PASS-THROUGH(12), byte by byte from smartmontools `scsiata.cpp`
// `sat_device::ata_pass_through` with passthru_size 12: cdb[0] = A1h,
// cdb[1] = protocol << 1 | extend, cdb[2] = ck_cond << 5 | t_dir << 3 |
// byte_block << 2 | t_length, cdb[3] features, cdb[4] sector count,
// cdb[5..8] LBA low/mid/high, cdb[8] device, cdb[9] command.

#[test]
fn identify_and_smart_read_data_as_12_byte_cdbs() {
    let identify = Command {
        taskfile: Taskfile {
            command: 0xEC,
            count: 1,
            ..Default::default()
        },
        protocol: Protocol::PioIn,
        check_condition: false,
        extend: false,
    };
    assert_eq!(
        identify.cdb12(),
        Some([
            0xA1, 0x08, 0x0E, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xEC, 0x00, 0x00
        ])
    );
    assert_eq!(
        Command::smart(0xD0, 0, 1).cdb12(),
        Some([
            0xA1, 0x08, 0x0E, 0xD0, 0x01, 0x00, 0x4F, 0xC2, 0x00, 0xB0, 0x00, 0x00
        ])
    );
    // SMART READ LOG 06h: the address in LBA low.
    assert_eq!(
        Command::smart(0xD5, 0x06, 1).cdb12(),
        Some([
            0xA1, 0x08, 0x0E, 0xD5, 0x01, 0x06, 0x4F, 0xC2, 0x00, 0xB0, 0x00, 0x00
        ])
    );
}

#[test]
fn non_data_with_ck_cond_as_a_12_byte_cdb() {
    // SMART RETURN STATUS: protocol 3, ck_cond, t_length 0.
    assert_eq!(
        Command::smart(0xDA, 0, 0).cdb12(),
        Some([
            0xA1, 0x06, 0x2C, 0xDA, 0x00, 0x00, 0x4F, 0xC2, 0x00, 0xB0, 0x00, 0x00
        ])
    );
}

#[test]
fn no_48_bit_command_fits_in_12_bytes() {
    // smartmontools: "48-bit ATA commands require SAT ATA PASS-THROUGH (16)".
    assert_eq!(Command::read_log_ext(0x04, 1, 1).cdb12(), None);
}
