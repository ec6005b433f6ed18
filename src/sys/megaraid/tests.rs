//! The frames byte by byte at the offsets `megaraid_sas.h` gives (its
//! `/*xxh*/` comments), and the ioctl packet's shape.

use super::frame::*;
use super::*;

#[test]
fn the_packet_is_the_drivers_shape_and_the_request_number_its() {
    assert_eq!(std::mem::offset_of!(megasas_iocpacket, sgl_off), 4);
    assert_eq!(std::mem::offset_of!(megasas_iocpacket, sense_len), 16);
    assert_eq!(std::mem::offset_of!(megasas_iocpacket, frame), 20);
    assert_eq!(std::mem::offset_of!(megasas_iocpacket, sgl), 148);
    // _IOWR('M', 1, 404 bytes): direction 3 << 30, size << 16, 'M' << 8, 1.
    #[cfg(target_pointer_width = "64")]
    assert_eq!(
        nix::request_code_readwrite!(b'M', 1, size_of::<megasas_iocpacket>()) as u64,
        0xC194_4D01
    );
}

#[test]
fn a_pass_through_frame_puts_each_field_where_the_firmware_reads_it() {
    // INQUIRY, allocation length 96.
    let cdb = [0x12, 0, 0, 0, 96, 0];
    let f = pthru_frame(5, 1, &cdb, 96, 64, 10).unwrap();
    let b = f.as_bytes();
    assert_eq!(b.len(), 64);
    assert_eq!(b[0x00], 0x04, "cmd MFI_CMD_PD_SCSI_IO");
    assert_eq!(b[0x01], 64, "sense_len");
    assert_eq!(b[0x02], 0xFF, "cmd_status MFI_CMD_STATUS_POLL_MODE");
    assert_eq!(b[0x03], 0, "scsi_status");
    assert_eq!(b[0x04], 5, "target_id");
    assert_eq!(b[0x05], 1, "lun");
    assert_eq!(b[0x06], 6, "cdb_len");
    assert_eq!(b[0x07], 1, "sge_count");
    assert_eq!(&b[0x08..0x10], &[0; 8], "context, pad_0");
    assert_eq!(&b[0x10..0x12], &[0x10, 0x00], "flags MFI_FRAME_DIR_READ");
    assert_eq!(&b[0x12..0x14], &[10, 0], "timeout, seconds");
    assert_eq!(&b[0x14..0x18], &[96, 0, 0, 0], "data_xfer_len");
    assert_eq!(&b[0x18..0x20], &[0; 8], "sense address: the driver's");
    assert_eq!(&b[0x20..0x26], &cdb, "cdb");
    assert_eq!(&b[0x26..0x40], &[0; 26], "rest of cdb, sgl: the driver's");
}

#[test]
fn a_frame_without_data_has_no_element_and_no_direction() {
    let f = pthru_frame(0, 0, &[0x85; 16], 0, 32, 1).unwrap();
    let b = f.as_bytes();
    assert_eq!((b[0x06], b[0x07]), (16, 0));
    assert_eq!(&b[0x10..0x12], &[0, 0]);
    assert_eq!(&b[0x20..0x30], &[0x85; 16]);
    // A CDB the frame cannot hold is refused, not cut.
    assert!(pthru_frame(0, 0, &[0; 17], 0, 0, 1).is_none());
    assert!(pthru_frame(0, 0, &[], 0, 0, 1).is_none());
}

#[test]
fn a_dcmd_frame_carries_its_opcode_at_18h() {
    let f = dcmd_read_frame(MR_DCMD_PD_GET_LIST, 4096);
    let b = f.as_bytes();
    assert_eq!(b.len(), 56);
    assert_eq!((b[0x00], b[0x02], b[0x07]), (0x05, 0xFF, 1));
    assert_eq!(&b[0x10..0x12], &[0x10, 0x00]);
    assert_eq!(&b[0x12..0x14], &[0, 0], "timeout 0, as the driver's DCMDs");
    assert_eq!(&b[0x14..0x18], &[0x00, 0x10, 0, 0], "data_xfer_len 4096");
    assert_eq!(
        &b[0x18..0x1C],
        &[0x00, 0x00, 0x01, 0x02],
        "opcode 02010000h"
    );
    assert_eq!(&b[0x1C..0x38], &[0; 28], "mbox, sgl");
}

#[test]
fn the_timeout_is_whole_seconds_rounded_up() {
    assert_eq!(timeout_seconds(Duration::from_millis(1)), 1);
    assert_eq!(timeout_seconds(Duration::ZERO), 1);
    assert_eq!(timeout_seconds(Duration::from_millis(2500)), 3);
    assert_eq!(timeout_seconds(Duration::from_secs(10)), 10);
    assert_eq!(timeout_seconds(Duration::from_secs(1 << 20)), u16::MAX);
}
