//! Realtek RTL9210/9220 USB-to-NVMe bridges (drivedb.h type
//! `sntrealtek`): one NVMe admin command is one vendor SCSI command E4h
//! with the data in, carrying the transfer length, the opcode and CDW10's
//! low byte:
//!
//! ```text
//! cdb[0]     E4h
//! cdb[1..3]  transfer length, little-endian, 16 bits
//! cdb[3]     NVMe opcode
//! cdb[4]     CDW10 bits 7:0   (CNS; log page identifier)
//! others     0
//! ```
//!
//! Nothing else of the command reaches the drive, so only Identify
//! Controller, Identify Namespace 1 and whole log pages of at most 512
//! bytes are sent: reading more "apparently returns old data from previous
//! command" (smartmontools truncates to 200h and zero-fills the rest; the
//! exporter does not send it). Sources: smartmontools `scsinvme.cpp`,
//! `sntrealtek_device::nvme_pass_through`; opensea-transport
//! `realtek_nvme_helper.c`, `build_Realtek_Basic_NVMe_CDB_And_Payload`.
//! Both send these bytes.

use super::{CNS_CONTROLLER, CNS_NAMESPACE, OPC_GET_LOG_PAGE, OPC_IDENTIFY, Refusal, zero};
use crate::sys::nvme::AdminCommand;

pub const OPCODE: u8 = 0xE4;
pub const CDB_LEN: usize = 16;
/// The most of a log page the bridge returns correctly.
pub const LOG_MAX: usize = 0x200;
const IDENTIFY_LEN: usize = 4096;

/// The CDB for `cmd` with `len` bytes of data in, or why the bridge
/// cannot carry it.
pub fn cdb(cmd: &AdminCommand, len: usize) -> Result<[u8; CDB_LEN], Refusal> {
    zero(cmd.cdw11 | cmd.cdw12 | cmd.cdw13, "cdw11 to cdw13")?;
    zero(cmd.cdw14 | cmd.cdw15, "cdw14 or cdw15")?;
    match cmd.opcode {
        OPC_IDENTIFY => match (cmd.cdw10, cmd.nsid) {
            (CNS_CONTROLLER, _) | (CNS_NAMESPACE, 1) if len == IDENTIFY_LEN => {}
            _ => {
                return Err(Refusal(
                    "only identify controller and namespace 1, 4096 bytes".into(),
                ));
            }
        },
        OPC_GET_LOG_PAGE => {
            if !(cmd.nsid == 0xFFFF_FFFF || cmd.nsid == 0) {
                return Err(Refusal("a log page of one namespace".into()));
            }
            // Only the identifier reaches the drive: the length is the
            // bridge's, and LSP, RAE and NUMD are lost.
            zero(cmd.cdw10 & 0xFF00, "lsp or rae (cdw10 bits 15:8)")?;
            if len == 0 || len > LOG_MAX {
                return Err(Refusal(format!(
                    "a log read of {len} bytes (more than {LOG_MAX} returns stale data)"
                )));
            }
        }
        op => return Err(Refusal(format!("admin opcode {op:02x}h"))),
    }
    let [l0, l1, ..] = (len as u32).to_le_bytes();
    let mut cdb = [0u8; CDB_LEN];
    cdb[..5].copy_from_slice(&[OPCODE, l0, l1, cmd.opcode, cmd.cdw10 as u8]);
    Ok(cdb)
}

#[cfg(test)]
mod tests;
