//! The MegaRAID firmware interface's message frames (MFI), laid out once as
//! little-endian `zerocopy` structs with the field names of the Linux
//! driver's `drivers/scsi/megaraid/megaraid_sas.h` (each field's doc gives
//! its offset as the header's comments do), and the two frames the exporter
//! builds: a DCMD that reads (the physical drive list) and a SCSI
//! pass-through to one physical drive (`MFI_CMD_PD_SCSI_IO`). Pure: no I/O.
//!
//! The driver copies the first two 64-byte frames of the ioctl packet to
//! the firmware, writes the DMA address of its own copy of each data buffer
//! into the frame's scatter-gather list at `sgl_off`, and the sense buffer's
//! at `sense_off` (`megasas_mgmt_fw_ioctl`); so the frame carries no
//! addresses of ours except the sense pointer the driver reads back.
#![allow(non_camel_case_types, non_snake_case)]

use zerocopy::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

/// `MFI_CMD_PD_SCSI_IO`: a SCSI command to one physical drive.
pub const MFI_CMD_PD_SCSI_IO: u8 = 0x04;
/// `MFI_CMD_DCMD`: a firmware (direct) command, by opcode.
pub const MFI_CMD_DCMD: u8 = 0x05;
/// `MFI_FRAME_DIR_NONE`, `MFI_FRAME_DIR_READ` (frame `flags`): no data, or
/// data from the device.
pub const MFI_FRAME_DIR_NONE: u16 = 0x0000;
pub const MFI_FRAME_DIR_READ: u16 = 0x0010;
/// `MFI_CMD_STATUS_POLL_MODE`: what `cmd_status` holds until the firmware
/// completes the frame (smartmontools sets it before the ioctl).
pub const MFI_CMD_STATUS_POLL_MODE: u8 = 0xFF;
/// `MR_DCMD_PD_GET_LIST`: the controller's physical drives, as a
/// [`MR_PD_LIST`] header and one [`MR_PD_ADDRESS`] per drive.
pub const MR_DCMD_PD_GET_LIST: u32 = 0x0201_0000;
/// `MEGAMFI_FRAME_SIZE`: one frame; the ioctl packet holds two.
pub const MEGAMFI_FRAME_SIZE: usize = 64;

/// `struct megasas_sge64`: one 64-bit scatter-gather element.
#[derive(Debug, Clone, Copy, Default, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct megasas_sge64 {
    /// 00h
    pub phys_addr: U64,
    /// 08h
    pub length: U32,
}

const _: () = assert!(size_of::<megasas_sge64>() == 12);

/// `union megasas_sgl` (one `megasas_sge32`, `megasas_sge64` or
/// `megasas_sge_skinny`, the largest 16 bytes): the driver writes its own
/// element here, so the frame leaves it zero.
pub type megasas_sgl = [u8; 16];

/// `struct megasas_pthru_frame`: a SCSI command passed through to a drive.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct megasas_pthru_frame {
    /// 00h: `MFI_CMD_PD_SCSI_IO`.
    pub cmd: u8,
    /// 01h: the sense buffer's length, which the firmware writes at most.
    pub sense_len: u8,
    /// 02h: the MFI completion status; the one field the driver copies back.
    pub cmd_status: u8,
    /// 03h: the SCSI status (not copied back to the caller).
    pub scsi_status: u8,
    /// 04h
    pub target_id: u8,
    /// 05h
    pub lun: u8,
    /// 06h
    pub cdb_len: u8,
    /// 07h: scatter-gather elements (1 with data, 0 without).
    pub sge_count: u8,
    /// 08h: the driver overwrites it with its command index.
    pub context: U32,
    /// 0Ch
    pub pad_0: U32,
    /// 10h: `MFI_FRAME_DIR_*`; the driver adds its SGL64/SENSE64 bits.
    pub flags: U16,
    /// 12h: seconds (as the driver sets it for tapes in `megasas_build_dcdb`).
    pub timeout: U16,
    /// 14h
    pub data_xfer_len: U32,
    /// 18h: where the caller's sense pointer goes (`sense_off`); the
    /// driver puts its own buffer's DMA address here for the firmware.
    pub sense_buf_phys_addr_lo: U32,
    /// 1Ch
    pub sense_buf_phys_addr_hi: U32,
    /// 20h
    pub cdb: [u8; 16],
    /// 30h
    pub sgl: megasas_sgl,
}

const _: () = assert!(size_of::<megasas_pthru_frame>() == MEGAMFI_FRAME_SIZE);

/// `struct megasas_dcmd_frame`: a firmware command by opcode.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct megasas_dcmd_frame {
    /// 00h: `MFI_CMD_DCMD`.
    pub cmd: u8,
    /// 01h
    pub reserved_0: u8,
    /// 02h: the MFI completion status.
    pub cmd_status: u8,
    /// 03h
    pub reserved_1: [u8; 4],
    /// 07h
    pub sge_count: u8,
    /// 08h
    pub context: U32,
    /// 0Ch
    pub pad_0: U32,
    /// 10h
    pub flags: U16,
    /// 12h: 0, as the driver's own DCMDs.
    pub timeout: U16,
    /// 14h
    pub data_xfer_len: U32,
    /// 18h: `MR_DCMD_*`.
    pub opcode: U32,
    /// 1Ch: `union { u8 b[12]; u16 s[6]; u32 w[3]; } mbox`.
    pub mbox: [u8; 12],
    /// 28h
    pub sgl: megasas_sgl,
}

const _: () = assert!(size_of::<megasas_dcmd_frame>() == 56);

/// Offsets the ioctl packet names: where the driver writes its data
/// buffer's scatter-gather element, and where the caller's sense pointer is.
pub const PTHRU_SGL_OFF: u32 = std::mem::offset_of!(megasas_pthru_frame, sgl) as u32;
pub const PTHRU_SENSE_OFF: u32 =
    std::mem::offset_of!(megasas_pthru_frame, sense_buf_phys_addr_lo) as u32;
pub const DCMD_SGL_OFF: u32 = std::mem::offset_of!(megasas_dcmd_frame, sgl) as u32;

const _: () = assert!(PTHRU_SGL_OFF == 0x30 && PTHRU_SENSE_OFF == 0x18 && DCMD_SGL_OFF == 0x28);

/// `struct MR_PD_ADDRESS`: one physical drive of `MR_DCMD_PD_GET_LIST`.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct MR_PD_ADDRESS {
    /// 00h: the drive's device ID (storcli's DID, smartctl's `megaraid,N`).
    pub deviceId: U16,
    /// 02h: the enclosure's device ID (FFFFh: none).
    pub enclDeviceId: U16,
    /// 04h: `mrPdAddress.enclIndex`.
    pub enclIndex: u8,
    /// 05h: `mrPdAddress.slotNumber`.
    pub slotNumber: u8,
    /// 06h: the SCSI peripheral device type (0: disk).
    pub scsiDevType: u8,
    /// 07h
    pub connectedPortBitmap: u8,
    /// 08h
    pub sasAddr: [U64; 2],
}

const _: () = assert!(size_of::<MR_PD_ADDRESS>() == 24);

/// `struct MR_PD_LIST` without its `addr[]`: the bytes the whole list
/// needs (`size`) and how many drives follow (`count`).
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct MR_PD_LIST {
    /// 00h
    pub size: U32,
    /// 04h
    pub count: U32,
}

const _: () = assert!(size_of::<MR_PD_LIST>() == 8);

/// A data-in (or no-data) pass-through of `cdb` (1..=16 bytes) to the
/// drive at `target_id`/`lun`, with room for `sense_len` bytes of sense;
/// `None` for a CDB that does not fit the frame.
pub fn pthru_frame(
    target_id: u8,
    lun: u8,
    cdb: &[u8],
    data_len: u32,
    sense_len: u8,
    timeout_s: u16,
) -> Option<megasas_pthru_frame> {
    let cdb_len = u8::try_from(cdb.len())
        .ok()
        .filter(|&n| (1..=16).contains(&n))?;
    let mut f = megasas_pthru_frame::new_zeroed();
    f.cmd = MFI_CMD_PD_SCSI_IO;
    f.sense_len = sense_len;
    f.cmd_status = MFI_CMD_STATUS_POLL_MODE;
    f.target_id = target_id;
    f.lun = lun;
    f.cdb_len = cdb_len;
    f.sge_count = u8::from(data_len > 0);
    f.flags.set(if data_len > 0 {
        MFI_FRAME_DIR_READ
    } else {
        MFI_FRAME_DIR_NONE
    });
    f.timeout.set(timeout_s);
    f.data_xfer_len.set(data_len);
    f.cdb[..cdb.len()].copy_from_slice(cdb);
    Some(f)
}

/// A DCMD `opcode` that reads `data_len` bytes (mailbox zero).
pub fn dcmd_read_frame(opcode: u32, data_len: u32) -> megasas_dcmd_frame {
    let mut f = megasas_dcmd_frame::new_zeroed();
    f.cmd = MFI_CMD_DCMD;
    f.cmd_status = MFI_CMD_STATUS_POLL_MODE;
    f.sge_count = u8::from(data_len > 0);
    f.flags.set(if data_len > 0 {
        MFI_FRAME_DIR_READ
    } else {
        MFI_FRAME_DIR_NONE
    });
    f.data_xfer_len.set(data_len);
    f.opcode.set(opcode);
    f
}
