//! The MegaRAID SAS management interface: `MEGASAS_IOC_FIRMWARE` on
//! `/dev/megaraid_sas_ioctl_node`, the character device the `megaraid_sas`
//! driver registers as `megaraid_sas_ioctl` in `/proc/devices` (it makes no
//! node itself). One ioctl carries one MFI frame ([`frame`]) to the
//! controller that SCSI host `host_no` names, with at most one data buffer
//! and one sense buffer; the driver copies the buffers through kernel
//! copies and gives back only the frame's `cmd_status`
//! (`drivers/scsi/megaraid/megaraid_sas_base.c`, `megasas_mgmt_fw_ioctl`).
//! Opening the node needs `CAP_SYS_ADMIN` (`megasas_mgmt_open`).
//!
//! [`pd_scsi_io`] and [`dcmd_read`] only move bytes and report the MFI
//! status; what it means is `device::megaraid_live`'s job.

pub mod frame;

use std::ffi::c_void;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::time::Duration;

use zerocopy::IntoBytes;

/// `MAX_IOCTL_SGE`: scatter-gather entries in the packet.
const MAX_IOCTL_SGE: usize = 16;

/// `struct megasas_iocpacket` from `megaraid_sas.h`, field names as the
/// kernel spells them (packed, as there). The driver writes the frame's
/// `cmd_status` back into it, so it is always passed `&mut`.
#[repr(C, packed)]
#[allow(non_camel_case_types)]
struct megasas_iocpacket {
    host_no: u16,
    __pad1: u16,
    sgl_off: u32,
    sge_count: u32,
    sense_off: u32,
    sense_len: u32,
    /// `union { u8 raw[128]; struct megasas_header hdr; } frame`: two MFI frames.
    frame: [u8; 2 * frame::MEGAMFI_FRAME_SIZE],
    sgl: [libc::iovec; MAX_IOCTL_SGE],
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<megasas_iocpacket>() == 404);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<megasas_iocpacket>() == 276);

/// Where `cmd_status` sits in the frame (`struct megasas_header`, 02h).
const CMD_STATUS: usize = 2;

mod ffi {
    // MEGASAS_IOC_FIRMWARE = _IOWR('M', 1, struct megasas_iocpacket)
    // (0xC1944D01 with 64-bit pointers). The generated function is `pub
    // unsafe`; this private module keeps it inside `sys::megaraid`.
    nix::ioctl_readwrite!(megasas_ioc_firmware, b'M', 1, super::megasas_iocpacket);
}

/// The frame's `timeout` field: whole seconds, rounded up, at least 1.
fn timeout_seconds(timeout: Duration) -> u16 {
    let s = timeout.as_secs() + u64::from(timeout.subsec_nanos() > 0);
    u16::try_from(s.max(1)).unwrap_or(u16::MAX)
}

/// Sends SCSI `cdb` (at most 16 bytes) to the physical drive at
/// `target_id`/`lun` of the controller `host_no`, the device filling
/// `data` (empty: no data phase) and the firmware writing at most
/// `sense.len()` (≤ 255) bytes of sense data into `sense`. Returns the MFI
/// `cmd_status` (`MFI_STAT_OK` 0: the command completed GOOD).
///
/// `Err` only when the driver refused the ioctl (`EACCES` on open without
/// `CAP_SYS_ADMIN`, `ENODEV` for a host that is not a MegaRAID controller,
/// `EINVAL` for a bad CDB length, ...).
#[allow(clippy::too_many_arguments)]
pub fn pd_scsi_io(
    file: &File,
    host_no: u16,
    target_id: u8,
    lun: u8,
    cdb: &[u8],
    data: &mut [u8],
    sense: &mut [u8],
    timeout: Duration,
) -> io::Result<u8> {
    let invalid = || io::Error::from(io::ErrorKind::InvalidInput);
    let data_len = u32::try_from(data.len()).map_err(|_| invalid())?;
    let sense_len = u8::try_from(sense.len()).map_err(|_| invalid())?;
    let f = frame::pthru_frame(
        target_id,
        lun,
        cdb,
        data_len,
        sense_len,
        timeout_seconds(timeout),
    )
    .ok_or_else(invalid)?;
    let sense = Some((frame::PTHRU_SENSE_OFF, sense)).filter(|(_, s)| !s.is_empty());
    firmware(
        file,
        host_no,
        f.as_bytes(),
        frame::PTHRU_SGL_OFF,
        data,
        sense,
    )
}

/// Issues the DCMD `opcode` to the controller `host_no`, the firmware
/// filling `data`; returns the MFI `cmd_status`.
pub fn dcmd_read(file: &File, host_no: u16, opcode: u32, data: &mut [u8]) -> io::Result<u8> {
    let data_len =
        u32::try_from(data.len()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let f = frame::dcmd_read_frame(opcode, data_len);
    firmware(file, host_no, f.as_bytes(), frame::DCMD_SGL_OFF, data, None)
}

/// One `MEGASAS_IOC_FIRMWARE`: `frame_bytes` (one frame) with `data` as
/// its only buffer and `sense` (its offset in the frame, the buffer) for
/// the sense data.
fn firmware(
    file: &File,
    host_no: u16,
    frame_bytes: &[u8],
    sgl_off: u32,
    data: &mut [u8],
    sense: Option<(u32, &mut [u8])>,
) -> io::Result<u8> {
    let mut raw = [0u8; 2 * frame::MEGAMFI_FRAME_SIZE];
    raw[..frame_bytes.len()].copy_from_slice(frame_bytes);
    let (sense_off, sense_len) = match sense {
        Some((off, buf)) => {
            // The driver reads the caller's sense pointer from the frame
            // (64 bits, little endian; a 32-bit caller's is the low half).
            let at = off as usize;
            let ptr = buf.as_mut_ptr() as usize as u64;
            raw[at..at + 8].copy_from_slice(&ptr.to_le_bytes());
            (off, buf.len() as u32)
        }
        None => (0, 0),
    };
    let mut sgl = [libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    }; MAX_IOCTL_SGE];
    let sge_count = if data.is_empty() {
        0
    } else {
        sgl[0] = libc::iovec {
            iov_base: data.as_mut_ptr().cast::<c_void>(),
            iov_len: data.len(),
        };
        1
    };
    let mut ioc = megasas_iocpacket {
        host_no,
        __pad1: 0,
        sgl_off,
        sge_count,
        sense_off,
        sense_len,
        frame: raw,
        sgl,
    };
    // SAFETY: `ioc` is a correctly laid out `megasas_iocpacket` (size
    // asserted above) passed by `&mut` because the driver writes
    // `cmd_status` back into its frame. `sgl[0]` (when `sge_count` is 1)
    // points to `data`, the caller's exclusive buffer, valid for
    // `data.len()` bytes, which the driver both copies in and fills. The
    // sense pointer in the frame (when `sense_len` > 0) points to the
    // caller's exclusive sense buffer of `sense_len` bytes, which the driver
    // fills. Every borrow outlives the call, which is synchronous.
    let ret = unsafe { ffi::megasas_ioc_firmware(file.as_raw_fd(), &mut ioc) };
    ret.map_err(io::Error::from)?;
    let frame = ioc.frame;
    Ok(frame[CMD_STATUS])
}

#[cfg(test)]
mod tests;
