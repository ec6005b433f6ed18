use super::*;

fn host(host_status: u16) -> SgOutcome {
    SgOutcome {
        status: 0,
        masked_status: 0,
        host_status,
        driver_status: 0,
        sense_len: 0,
        resid: 0,
        transferred: 0,
        duration_ms: 0,
    }
}

#[test]
fn only_the_kernels_retry_statuses_are_retried() {
    let asks_for_retry = |h| host(h).asks_for_retry();
    // linux/include/scsi/scsi_status.h: DID_SOFT_ERROR 0Bh, DID_IMM_RETRY 0Ch,
    // DID_REQUEUE 0Dh
    assert!(asks_for_retry(0x0b) && asks_for_retry(0x0c) && asks_for_retry(0x0d));
    // DID_OK, DID_NO_CONNECT, DID_BUS_BUSY, DID_TIME_OUT, DID_BAD_TARGET,
    // DID_ABORT, DID_ERROR, DID_TRANSPORT_DISRUPTED
    for h in [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x0e] {
        assert!(!asks_for_retry(h), "{h:#x}");
    }
}

#[test]
fn transport_failures_are_host_statuses_and_driver_timeouts() {
    // DID_OK with DRIVER_SENSE (08h): the device answered.
    let sensed = SgOutcome {
        driver_status: 0x08,
        ..host(0)
    };
    assert_eq!(sensed.transport_failure(), None);
    // DID_NO_CONNECT (01h): gone; DID_TIME_OUT (03h): failed;
    // DRIVER_TIMEOUT (06h) with DID_OK: failed.
    assert_eq!(host(0x01).transport_failure(), Some(TransportFailure::Gone));
    assert_eq!(
        host(0x03).transport_failure(),
        Some(TransportFailure::Failed)
    );
    let timed_out = SgOutcome {
        driver_status: 0x06,
        ..host(0)
    };
    assert_eq!(
        timed_out.transport_failure(),
        Some(TransportFailure::Failed)
    );
}

#[test]
fn header_layout_matches_the_kernel() {
    // Offsets on x86_64 from <scsi/sg.h>: pointers at 16/24/32/56,
    // status at 64, resid at 72, info at 80.
    #[cfg(target_pointer_width = "64")]
    {
        assert_eq!(std::mem::offset_of!(sg_io_hdr, dxferp), 16);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, cmdp), 24);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, sbp), 32);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, timeout), 40);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, usr_ptr), 56);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, status), 64);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, host_status), 68);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, resid), 72);
        assert_eq!(std::mem::offset_of!(sg_io_hdr, info), 80);
    }
    assert_eq!(SG_IO, 0x2285);
}

#[test]
fn a_regular_file_is_refused_by_the_kernel_not_by_a_panic() {
    let f = tempfile::tempfile().unwrap();
    let cdb = [0x85u8, 0x08, 0x0E, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xEC, 0];
    let mut buf = [0u8; 512];
    let mut sense = [0u8; 32];
    let err = sg_io(
        &f,
        &cdb,
        DataDir::FromDevice(&mut buf),
        &mut sense,
        Duration::from_secs(1),
    )
    .unwrap_err();
    let errno = err.raw_os_error();
    assert!(
        errno == Some(libc::ENOTTY) || errno == Some(libc::EINVAL),
        "expected ENOTTY or EINVAL, got {err:?}"
    );
}

#[test]
fn the_residual_says_how_much_of_the_buffer_is_data() {
    assert_eq!(transferred_len(512, 0), 512);
    assert_eq!(transferred_len(512, 100), 412);
    assert_eq!(transferred_len(512, 512), 0);
    assert_eq!(transferred_len(512, 4096), 0);
    assert_eq!(transferred_len(512, -8), 512);
    assert_eq!(transferred_len(0, 0), 0);
    assert_eq!(transferred_len(0, i32::MIN), 0);
}

#[test]
fn a_short_transfer_is_an_error_naming_both_lengths() {
    let out = SgOutcome {
        status: 0,
        masked_status: 0,
        host_status: 0,
        driver_status: 0,
        sense_len: 0,
        resid: 312,
        transferred: transferred_len(512, 312),
        duration_ms: 1,
    };
    let e = out.check_transfer(512).unwrap_err();
    assert_eq!(
        e,
        ShortTransfer {
            expected: 512,
            got: 200
        }
    );
    assert_eq!(
        e.to_string(),
        "short transfer: the device returned 200 of 512 bytes"
    );
    assert_eq!(out.check_transfer(200), Ok(()));
    assert_eq!(out.check_transfer(0), Ok(()));
}

#[test]
fn empty_or_oversized_cdb_is_rejected_before_the_kernel() {
    let f = tempfile::tempfile().unwrap();
    let mut sense = [0u8; 0];
    let e = sg_io(&f, &[], DataDir::None, &mut sense, Duration::ZERO).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let long = [0u8; 256];
    let e = sg_io(&f, &long, DataDir::None, &mut sense, Duration::ZERO).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn a_data_out_command_on_a_regular_file_is_refused_by_the_kernel() {
    let f = tempfile::tempfile().unwrap();
    let block = [0u8; 512];
    let mut sense = [0u8; 32];
    let cdb = [0xA1u8, 0x80, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
    let err = sg_io(
        &f,
        &cdb,
        DataDir::ToDevice(&block),
        &mut sense,
        Duration::from_secs(1),
    )
    .unwrap_err();
    let errno = err.raw_os_error();
    assert!(
        errno == Some(libc::ENOTTY) || errno == Some(libc::EINVAL),
        "{err:?}"
    );
}
