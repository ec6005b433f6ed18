use super::*;
use crate::scsi::sense::parse_sense;

#[test]
fn cdbs_match_the_spc_and_sbc_layouts() {
    // INQUIRY, allocation length 96 (0060h) in bytes 3-4.
    assert_eq!(
        ScsiRequest::Inquiry.cdb(),
        (vec![0x12, 0, 0, 0, 0x60, 0], 96)
    );
    // EVPD page 83h, allocation 252 (00FCh).
    assert_eq!(
        ScsiRequest::Vpd(0x83).cdb(),
        (vec![0x12, 1, 0x83, 0, 0xFC, 0], 252)
    );
    // LOG SENSE 0Dh cumulative: byte 2 = 01b << 6 | 0Dh = 4Dh; 4096 = 1000h.
    let (cdb, n) = ScsiRequest::Log {
        page: 0x0D,
        subpage: 0,
    }
    .cdb();
    assert_eq!(
        (cdb, n),
        (vec![0x4D, 0, 0x4D, 0, 0, 0, 0, 0x10, 0, 0], 4096)
    );
    let (cdb, _) = ScsiRequest::Log {
        page: 0x0D,
        subpage: 0x01,
    }
    .cdb();
    assert_eq!(cdb[3], 0x01);
    // READ CAPACITY(16): 9Eh, service action 10h, allocation 32 in 10-13.
    let (cdb, n) = ScsiRequest::ReadCapacity16.cdb();
    assert_eq!(
        (cdb.len(), cdb[0], cdb[1], &cdb[10..14], n),
        (16, 0x9E, 0x10, &[0, 0, 0, 32][..], 32)
    );
    // READ DEFECT DATA(10): REQ_GLIST only, format 100b; 4-byte header.
    assert_eq!(
        ScsiRequest::GrownDefects10.cdb(),
        (vec![0x37, 0, 0x0C, 0, 0, 0, 0, 0, 4, 0], 4)
    );
    // READ DEFECT DATA(12): B7h, the same flags in byte 1, address
    // descriptor index 0 (2-5), allocation length 8 in 6-9.
    assert_eq!(
        ScsiRequest::GrownDefects12.cdb(),
        (vec![0xB7, 0x0C, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0], 8)
    );
}

#[test]
fn an_inquiry_shorter_than_it_claims_is_accepted_from_36_bytes() {
    // ADDITIONAL LENGTH 91 claims 96 bytes; the device moved 36 of them.
    let mut inq = vec![0u8; 96];
    inq[4] = 91;
    assert_eq!(ScsiRequest::Inquiry.accept(&inq[..36], 96), Ok(36));
    assert_eq!(ScsiRequest::Inquiry.accept(&inq[..50], 96), Ok(50));
    assert_eq!(ScsiRequest::Inquiry.accept(&inq, 96), Ok(96));
    // Less than the standard part is short.
    assert_eq!(
        ScsiRequest::Inquiry.accept(&inq[..35], 96),
        Err(ShortAnswer {
            expected: 96,
            got: 35
        })
    );
    assert!(ScsiRequest::Inquiry.accept(&inq[..4], 96).is_err());
    // Every other answer must arrive whole: a VPD page of length 6 is 10
    // bytes, 9 are short; a READ CAPACITY(16) answer is 32 bytes.
    let mut vpd = vec![0u8; 10];
    vpd[1] = 0x80;
    vpd[3] = 6;
    assert_eq!(ScsiRequest::Vpd(0x80).accept(&vpd, 252), Ok(10));
    let e = ScsiRequest::Vpd(0x80).accept(&vpd[..9], 252).unwrap_err();
    assert_eq!(
        e.to_string(),
        "short transfer: the device returned 9 of 10 bytes"
    );
    assert!(ScsiRequest::ReadCapacity16.accept(&[0; 12], 32).is_err());
    assert_eq!(ScsiRequest::GrownDefects12.accept(&[0; 8], 8), Ok(8));
    assert!(ScsiRequest::GrownDefects12.accept(&[0; 4], 8).is_err());
}

#[test]
fn the_answer_length_comes_from_the_page_and_is_bounded_by_the_buffer() {
    // A VPD page of length 6: 10 bytes, whatever the buffer holds after.
    let mut vpd = vec![0u8; 252];
    vpd[1] = 0x80;
    vpd[3] = 6;
    assert_eq!(ScsiRequest::Vpd(0x80).answer_len(&vpd, 252), Some(10));
    // A log page claiming more than was asked for: the allocation length.
    let log = [0x0D, 0, 0xFF, 0xFF];
    assert_eq!(
        ScsiRequest::Log {
            page: 0x0D,
            subpage: 0
        }
        .answer_len(&log, 4096),
        Some(4096)
    );
    // INQUIRY additional length 31: 36 bytes; 91: 96.
    let mut inq = vec![0u8; 96];
    inq[4] = 31;
    assert_eq!(ScsiRequest::Inquiry.answer_len(&inq, 96), Some(36));
    inq[4] = 91;
    assert_eq!(ScsiRequest::Inquiry.answer_len(&inq, 96), Some(96));
    inq[4] = 0;
    assert_eq!(ScsiRequest::Inquiry.answer_len(&inq, 96), Some(36));
    assert_eq!(ScsiRequest::Vpd(0).answer_len(&[0, 0, 0], 252), None);
    assert_eq!(ScsiRequest::ReadCapacity16.answer_len(&[], 32), Some(32));
}

/// Fixed-format sense, key / ASC / ASCQ at bytes 2 / 12 / 13.
fn fixed(key: u8, asc: u8, ascq: u8) -> Sense {
    let mut s = [0u8; 18];
    s[0] = 0x70;
    s[2] = key;
    s[7] = 10;
    s[12] = asc;
    s[13] = ascq;
    parse_sense(&s)
}

#[test]
fn illegal_request_for_a_page_is_unsupported_and_other_checks_are_failures() {
    assert_eq!(outcome(0, &Sense::default()), Ok(()));
    // RECOVERED ERROR: data valid.
    assert_eq!(outcome(2, &fixed(0x1, 0x5D, 0x00)), Ok(()));
    // ILLEGAL REQUEST, INVALID FIELD IN CDB (24h/00h): a page not kept.
    let e = outcome(2, &fixed(0x5, 0x24, 0x00)).unwrap_err();
    assert!(e.is_unsupported());
    assert_eq!(
        e.to_string(),
        "scsi check condition: illegal request (sense key 5h, asc 24h, ascq 00h)"
    );
    // INVALID COMMAND OPERATION CODE (20h): QEMU's answer to LOG SENSE.
    assert!(
        outcome(2, &fixed(0x5, 0x20, 0x00))
            .unwrap_err()
            .is_unsupported()
    );
    // UNIT ATTENTION (power on, reset): a failure, asked again next poll.
    assert!(
        !outcome(2, &fixed(0x6, 0x29, 0x00))
            .unwrap_err()
            .is_unsupported()
    );
    // GROWN DEFECT LIST NOT FOUND (1Ch/02h): the drive keeps none.
    assert!(
        outcome(2, &fixed(0x3, 0x1C, 0x02))
            .unwrap_err()
            .is_unsupported()
    );
    // MEDIUM ERROR is never "unsupported".
    assert!(
        !outcome(2, &fixed(0x3, 0x11, 0x00))
            .unwrap_err()
            .is_unsupported()
    );
    // CHECK CONDITION without sense data is a failure.
    assert!(outcome(2, &Sense::default()).is_err());
    assert_eq!(
        outcome(0x08, &Sense::default()).unwrap_err().to_string(),
        "scsi status 08h (busy)"
    );
}
