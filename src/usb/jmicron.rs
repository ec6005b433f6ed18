//! JMicron JMS58x USB-to-NVMe bridges (drivedb.h type `sntjmicron`): one
//! NVMe admin command is three SCSI commands, each a 12-byte CDB with the
//! ATA PASS-THROUGH (12) opcode A1h (the bridge takes it for its own):
//!
//! ```text
//! cdb[0]    A1h
//! cdb[1]    bit 7: admin command; bits 3:0 protocol
//!           (0 command block out, 2 DMA in, Fh reply in)
//! cdb[3..6] transfer length, big-endian, 24 bits
//! others    0
//! ```
//!
//! 1. the 512-byte [`CommandBlock`] out (the NVMe command, signature
//!    `NVME`); 2. the data in; 3. the 512-byte [`ReplyBlock`] in (signature,
//!    completion dword 0, status). Sources: smartmontools `scsinvme.cpp`,
//!    `sntjmicron_device::nvme_pass_through`; opensea-transport
//!    `jmicron_nvme_helper.c`, `build_JM_NVMe_CDB_And_Payload` and
//!    `send_JM_NVMe_Cmd`. Both send these bytes.
//!
//! Known misbehaviour: the self-test log read with more than 218h bytes
//! hangs the controller (smartmontools GitHub issue #256; smartctl then
//! reads 19 entries). The exporter reads the whole 564-byte log or none,
//! so it is not sent ([`carries`]).

use zerocopy::little_endian::U32;
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::{OPC_GET_LOG_PAGE, Refusal};
use crate::decode::ParseError;
use crate::sys::nvme::AdminCommand;

/// ATA PASS-THROUGH (12)'s opcode, which the bridge uses for its protocol.
pub const OPCODE: u8 = 0xA1;
pub const CDB_LEN: usize = 12;
/// Command block and reply block size.
pub const BLOCK_LEN: usize = 512;
/// `NVME` (smartmontools: 454D564Eh, little-endian).
pub const SIGNATURE: [u8; 4] = *b"NVME";
/// cdb\[1\] bit 7: an admin command.
const ADMIN: u8 = 0x80;
/// cdb\[1\] protocol: the command block out.
pub const PROTO_COMMAND: u8 = 0x0;
/// cdb\[1\] protocol: the command's data in.
pub const PROTO_DMA_IN: u8 = 0x2;
/// cdb\[1\] protocol: the reply block in.
pub const PROTO_REPLY: u8 = 0xF;
/// The largest transfer (opensea-transport's
/// `JMICRON_NVME_MAX_TRANSFER_SIZE_BYTES`).
pub const MAX_TRANSFER: usize = 65536;
/// The most of the self-test log the bridge reads without hanging.
pub const SELF_TEST_LOG_MAX: usize = 0x218;
const LID_SELF_TEST: u8 = 0x06;

/// The command block (opensea-transport's byte offsets; smartmontools'
/// `nvm_cmd[]` dwords): the NVMe submission entry's fields in their
/// places, the pointers left to the bridge.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct CommandBlock {
    /// Bytes 3:0: `NVME`.
    pub signature: [u8; 4],
    pub rsvd4: [u8; 4],
    /// Bytes 11:8: CDW0, the opcode in byte 8.
    pub cdw0: U32,
    /// Bytes 15:12.
    pub nsid: U32,
    /// Bytes 23:16 reserved, 31:24 metadata pointer, 47:32 data pointer.
    pub rsvd16: [u8; 32],
    /// Bytes 71:48: CDW10 to CDW15.
    pub cdw10: U32,
    pub cdw11: U32,
    pub cdw12: U32,
    pub cdw13: U32,
    pub cdw14: U32,
    pub cdw15: U32,
    /// Byte 72: vendor control; 0 = issue the command above (opensea's
    /// `JM_VENDOR_CTRL_SERVICE_PROTOCOL_FIELD`; other values power the
    /// drive off or reset the bridge, and are never sent).
    pub vendor_control: u8,
    pub rsvd73: [u8; 439],
}

const _: () = assert!(size_of::<CommandBlock>() == BLOCK_LEN);

/// The reply block.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct ReplyBlock {
    /// Bytes 3:0: `NVME`.
    pub signature: [u8; 4],
    pub rsvd4: [u8; 4],
    /// Bytes 11:8: completion dword 0 (command specific).
    pub dw0: U32,
    pub rsvd12: [u8; 8],
    /// Bytes 23:20: the status field in bits 31:17 (completion dword 3's
    /// place; smartmontools `nvm_reply[5] >> 17`).
    pub dw3: U32,
    pub rsvd24: [u8; 488],
}

const _: () = assert!(size_of::<ReplyBlock>() == BLOCK_LEN);

/// A CDB of `protocol` for an admin command moving `len` bytes.
fn cdb(protocol: u8, len: usize) -> [u8; CDB_LEN] {
    let [_, b2, b1, b0] = (len as u32).to_be_bytes();
    [OPCODE, ADMIN | protocol, 0, b2, b1, b0, 0, 0, 0, 0, 0, 0]
}

/// Step 1's CDB: the command block goes out.
pub fn command_cdb() -> [u8; CDB_LEN] {
    cdb(PROTO_COMMAND, BLOCK_LEN)
}

/// Step 1's data: the command block for `cmd`.
pub fn command_block(cmd: &AdminCommand) -> [u8; BLOCK_LEN] {
    let mut b = CommandBlock::new_zeroed();
    b.signature = SIGNATURE;
    b.cdw0 = U32::new(u32::from(cmd.opcode));
    b.nsid = U32::new(cmd.nsid);
    b.cdw10 = U32::new(cmd.cdw10);
    b.cdw11 = U32::new(cmd.cdw11);
    b.cdw12 = U32::new(cmd.cdw12);
    b.cdw13 = U32::new(cmd.cdw13);
    b.cdw14 = U32::new(cmd.cdw14);
    b.cdw15 = U32::new(cmd.cdw15);
    let mut out = [0u8; BLOCK_LEN];
    out.copy_from_slice(b.as_bytes());
    out
}

/// Step 2's CDB: `len` bytes of data come in.
pub fn data_in_cdb(len: usize) -> [u8; CDB_LEN] {
    cdb(PROTO_DMA_IN, len)
}

/// Step 3's CDB: the reply block comes in.
pub fn reply_cdb() -> [u8; CDB_LEN] {
    cdb(PROTO_REPLY, BLOCK_LEN)
}

/// Whether the bridge takes `cmd` with `len` bytes of data in.
pub fn carries(cmd: &AdminCommand, len: usize) -> Result<(), Refusal> {
    if len == 0 || len > MAX_TRANSFER {
        return Err(Refusal(format!(
            "the bridge moves 1 to {MAX_TRANSFER} bytes, not {len}"
        )));
    }
    if cmd.opcode == OPC_GET_LOG_PAGE && cmd.cdw10 as u8 == LID_SELF_TEST && len > SELF_TEST_LOG_MAX
    {
        return Err(Refusal(format!(
            "the self-test log read with more than {SELF_TEST_LOG_MAX:#x} bytes hangs this bridge (smartmontools issue #256)"
        )));
    }
    Ok(())
}

/// What the reply block says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    /// Completion dword 0.
    pub dw0: u32,
    /// The NVMe status field (bits 14:0 as the admin ioctl returns it:
    /// SC 7:0, SCT 10:8, More 13, DNR 14); 0 = success.
    pub status: u16,
}

/// Decodes a reply block: its signature checked, the status taken from
/// completion dword 3 bits 31:17.
pub fn parse_reply(buf: &[u8]) -> Result<Reply, ParseError> {
    const PAGE: &str = "jmicron reply";
    let (block, _) = ReplyBlock::ref_from_prefix(buf).map_err(|_| ParseError::Length {
        page: PAGE,
        expected: BLOCK_LEN,
        got: buf.len(),
    })?;
    if block.signature != SIGNATURE {
        return Err(ParseError::Invalid {
            page: PAGE,
            reason: format!(
                "signature {:02x?} is not NVME: an out of spec reply",
                block.signature
            ),
        });
    }
    Ok(Reply {
        dw0: block.dw0.get(),
        status: (block.dw3.get() >> 17) as u16,
    })
}

#[cfg(test)]
mod tests;
