//! SCSI generic pass-through: the `SG_IO` ioctl on a SCSI block device
//! (`/dev/sdX`) or its `/dev/sgN` node, which is how ATA commands reach a
//! SATA drive behind libata or a SAT-capable HBA (ATA PASS-THROUGH(16)).
//!
//! [`sg_io`] only moves bytes: it issues one CDB and reports what the kernel
//! wrote back (SCSI status, host and driver status, sense length). Deciding
//! whether that was a success is `crate::ata::passthrough::outcome`'s job.
//! ATA pass-through CDBs need `CAP_SYS_RAWIO`.

use std::ffi::{c_int, c_uchar, c_uint, c_ushort, c_void};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::time::Duration;

/// `struct sg_io_hdr` from `<scsi/sg.h>`, field names as the kernel spells
/// them. The kernel writes the status fields, `sb_len_wr`, `resid`,
/// `duration` and `info` back into it, so it is always passed `&mut`.
#[repr(C)]
#[allow(non_camel_case_types)]
struct sg_io_hdr {
    interface_id: c_int,
    dxfer_direction: c_int,
    cmd_len: c_uchar,
    mx_sb_len: c_uchar,
    iovec_count: c_ushort,
    dxfer_len: c_uint,
    dxferp: *mut c_void,
    /// `unsigned char __user *cmdp` in the header; the kernel only reads
    /// through it, so a const pointer has the same layout and is honest.
    cmdp: *const c_uchar,
    sbp: *mut c_uchar,
    timeout: c_uint,
    flags: c_uint,
    pack_id: c_int,
    usr_ptr: *mut c_void,
    status: c_uchar,
    masked_status: c_uchar,
    msg_status: c_uchar,
    sb_len_wr: c_uchar,
    host_status: c_ushort,
    driver_status: c_ushort,
    resid: c_int,
    duration: c_uint,
    info: c_uint,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<sg_io_hdr>() == 88);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<sg_io_hdr>() == 64);

/// `SG_IO` from `<scsi/sg.h>`: a legacy number, not `_IOWR`-encoded.
pub const SG_IO: u32 = 0x2285;
/// `interface_id` must be `'S'`.
const SG_INTERFACE_ID: c_int = b'S' as c_int;
const SG_DXFER_NONE: c_int = -1;
const SG_DXFER_TO_DEV: c_int = -2;
const SG_DXFER_FROM_DEV: c_int = -3;

mod ffi {
    // The generated function is `pub unsafe`; this private module keeps it
    // inside `sys::sg`, which exports only the safe `sg_io`.
    nix::ioctl_readwrite_bad!(sg_io, super::SG_IO, super::sg_io_hdr);
}

/// Which way data moves. The exporter never writes to a drive's medium:
/// the only data out is a USB bridge's command block (JMicron's NVMe
/// pass-through, `crate::usb::jmicron`), which the bridge reads to know
/// which command to send.
#[derive(Debug)]
pub enum DataDir<'a> {
    /// No data phase (non-data ATA commands such as SMART RETURN STATUS).
    None,
    /// The device fills this buffer (PIO data-in). Its length is the
    /// transfer length.
    FromDevice(&'a mut [u8]),
    /// The device reads this buffer (a bridge's command block).
    ToDevice(&'a [u8]),
}

/// What the kernel reported for one `SG_IO` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SgOutcome {
    /// SCSI status byte (0 GOOD, 02h CHECK CONDITION, 08h BUSY, ...).
    pub status: u8,
    /// `status` shifted right by one and masked (the obsolete form).
    pub masked_status: u8,
    /// Host adapter status (`DID_*`); non-zero means the command did not
    /// reach the device or did not complete (timeout, no connect).
    pub host_status: u16,
    /// Driver status (`DRIVER_*`); `DRIVER_SENSE` (08h) only says sense
    /// data was written.
    pub driver_status: u16,
    /// Bytes of sense data the kernel wrote (`sb_len_wr`).
    pub sense_len: u8,
    /// Requested minus transferred bytes (0 for a full transfer), as the
    /// kernel reported it.
    pub resid: i32,
    /// Bytes of the data-in buffer the device actually filled
    /// ([`transferred_len`] of the buffer length and `resid`); 0 without a
    /// data phase.
    pub transferred: usize,
    /// Time the command took, in milliseconds.
    pub duration_ms: u32,
}

/// How an `SG_IO` call failed below the device: the command did not reach
/// it or did not complete there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportFailure {
    /// `DID_NO_CONNECT`: the device is gone.
    Gone,
    /// Any other host status, or a driver timeout.
    Failed,
}

impl SgOutcome {
    /// `None` when the command reached the device and completed there (its
    /// SCSI status and sense then say how); else how it failed: a non-zero
    /// host status (`DID_*`), or `DRIVER_TIMEOUT` (06h) in the driver status.
    pub fn transport_failure(&self) -> Option<TransportFailure> {
        if self.host_status == 0 && self.driver_status & 0x0F != 0x06 {
            None
        } else if self.host_status == 0x01 {
            Some(TransportFailure::Gone)
        } else {
            Some(TransportFailure::Failed)
        }
    }

    /// Whether the host status asks the caller to issue the command again:
    /// `DID_SOFT_ERROR` (0Bh), `DID_IMM_RETRY` (0Ch) or `DID_REQUEUE` (0Dh),
    /// which libata's error handling gives a command queued behind a failed
    /// one (QEMU's AHCI aborting an NCQ read does it a few times a run). The
    /// block layer would retry; `SG_IO` leaves it to the caller, and the
    /// live sources retry such a command once before counting it.
    pub fn asks_for_retry(&self) -> bool {
        matches!(self.host_status, 0x0b..=0x0d)
    }
}

/// A data-in command that filled less of its buffer than it asked for: the
/// rest of the buffer is the zero padding it was allocated with, not data,
/// and must not be decoded as a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("short transfer: the device returned {got} of {expected} bytes")]
pub struct ShortTransfer {
    pub expected: usize,
    pub got: usize,
}

impl ShortTransfer {
    /// `Ok` when a data phase that moved `transferred` bytes moved all
    /// `expected`.
    pub fn check(transferred: usize, expected: usize) -> Result<(), ShortTransfer> {
        if transferred >= expected {
            Ok(())
        } else {
            Err(ShortTransfer {
                expected,
                got: transferred,
            })
        }
    }
}

impl SgOutcome {
    /// `Ok` when the data phase moved all `expected` bytes.
    pub fn check_transfer(&self, expected: usize) -> Result<(), ShortTransfer> {
        ShortTransfer::check(self.transferred, expected)
    }
}

/// How many bytes of a `dxfer_len`-byte buffer hold data, from the
/// kernel's `resid` (requested minus transferred). A negative residual
/// (an overrun some low-level drivers report) still filled at most the
/// buffer; a residual larger than the buffer means nothing arrived.
pub fn transferred_len(dxfer_len: usize, resid: i32) -> usize {
    match usize::try_from(resid) {
        Ok(short) => dxfer_len.saturating_sub(short),
        Err(_) => dxfer_len,
    }
}

/// Issues `cdb` on `file` (an open SCSI block or sg device), with `data` as
/// the data phase and `sense` as the sense buffer (at most 255 bytes are
/// offered; 32 is plenty for ATA pass-through). `timeout` is always explicit
/// and at least 1 ms: 0 would mean the kernel's default.
///
/// Returns `Err` only when the kernel refused the ioctl (`ENOTTY` on a file
/// that is not a SCSI device, `EPERM` without `CAP_SYS_RAWIO`, ...); a
/// command the device failed is an `Ok` whose status and sense say so.
pub fn sg_io(
    file: &File,
    cdb: &[u8],
    data: DataDir<'_>,
    sense: &mut [u8],
    timeout: Duration,
) -> Result<SgOutcome, io::Error> {
    let cmd_len = u8::try_from(cdb.len())
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    let len_of = |buf: &[u8]| {
        c_uint::try_from(buf.len()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
    };
    let (dxfer_direction, dxferp, dxfer_len) = match data {
        DataDir::None => (SG_DXFER_NONE, std::ptr::null_mut(), 0),
        DataDir::FromDevice(buf) => {
            let len = len_of(buf)?;
            (SG_DXFER_FROM_DEV, buf.as_mut_ptr().cast::<c_void>(), len)
        }
        // The header's pointer is `void *` for both directions; with
        // SG_DXFER_TO_DEV the kernel only reads through it.
        DataDir::ToDevice(buf) => (
            SG_DXFER_TO_DEV,
            buf.as_ptr().cast::<c_void>().cast_mut(),
            len_of(buf)?,
        ),
    };
    let mx_sb_len = u8::try_from(sense.len()).unwrap_or(u8::MAX);
    let sbp = if mx_sb_len == 0 {
        std::ptr::null_mut()
    } else {
        sense.as_mut_ptr()
    };
    let timeout_ms = c_uint::try_from(timeout.as_millis())
        .unwrap_or(c_uint::MAX)
        .max(1);
    let mut hdr = sg_io_hdr {
        interface_id: SG_INTERFACE_ID,
        dxfer_direction,
        cmd_len,
        mx_sb_len,
        iovec_count: 0,
        dxfer_len,
        dxferp,
        cmdp: cdb.as_ptr(),
        sbp,
        timeout: timeout_ms,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: `hdr` is a correctly laid out `sg_io_hdr` (size asserted
    // above) passed by `&mut` because the kernel writes the status fields
    // back. `cmdp` points to `cdb`, readable for `cmd_len` bytes; `dxferp`
    // (when not null) points to the caller's exclusive buffer, writable for
    // `dxfer_len` bytes, or with SG_DXFER_TO_DEV to the caller's shared
    // buffer, which the kernel only reads, for `dxfer_len` bytes; `sbp`
    // (when not null) points to `sense`, writable for `mx_sb_len` ≤
    // `sense.len()` bytes. All three borrows outlive the
    // call, which is synchronous. No iovec is used (`iovec_count` 0).
    let ret = unsafe { ffi::sg_io(file.as_raw_fd(), &mut hdr) };
    ret.map_err(io::Error::from)?;
    Ok(SgOutcome {
        status: hdr.status,
        masked_status: hdr.masked_status,
        host_status: hdr.host_status,
        driver_status: hdr.driver_status,
        sense_len: hdr.sb_len_wr.min(mx_sb_len),
        resid: hdr.resid,
        transferred: match dxfer_direction {
            SG_DXFER_FROM_DEV => transferred_len(dxfer_len as usize, hdr.resid),
            _ => 0,
        },
        duration_ms: hdr.duration,
    })
}

#[cfg(test)]
mod tests;
