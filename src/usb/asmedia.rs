//! ASMedia ASM236x USB-to-NVMe bridges (drivedb.h type `sntasmedia`): one
//! NVMe admin command is one vendor SCSI command E6h with the data in,
//! carrying the opcode, CDW10 and (for log pages) CDW12/CDW13:
//!
//! ```text
//! cdb[0]      E6h
//! cdb[1]      NVMe opcode
//! cdb[3]      CDW10 bits 7:0    (CNS; log page identifier)
//! cdb[6]      CDW10 bits 31:24  (NUMDL high byte)
//! cdb[7]      CDW10 bits 23:16  (NUMDL low byte)
//! cdb[8..12]  CDW13, big-endian (log page offset, upper)
//! cdb[12..16] CDW12, big-endian (log page offset, lower)
//! others      0
//! ```
//!
//! No NSID and no CDW11, CDW14, CDW15 reach the drive, nor CDW10 bits 15:8
//! (LSP, RAE): a command that needs them is refused rather than sent
//! without them. Sources: smartmontools `scsinvme.cpp`,
//! `sntasmedia_device::nvme_pass_through` (which also allows Identify
//! Namespace only for NSID 1 and log pages only for NSID FFFFFFFFh or 0);
//! opensea-transport `asmedia_nvme_helper.c`,
//! `build_Basic_Passthrough_CDB`. Both send these bytes.

use super::{CNS_CONTROLLER, CNS_NAMESPACE, OPC_GET_LOG_PAGE, OPC_IDENTIFY, Refusal, zero};
use crate::sys::nvme::AdminCommand;

pub const OPCODE: u8 = 0xE6;
pub const CDB_LEN: usize = 16;
/// Identify moves 4096 bytes.
const IDENTIFY_LEN: usize = 4096;

/// The CDB for `cmd` with `len` bytes of data in, or why the bridge
/// cannot carry it.
pub fn cdb(cmd: &AdminCommand, len: usize) -> Result<[u8; CDB_LEN], Refusal> {
    zero(cmd.cdw11, "cdw11")?;
    zero(cmd.cdw14, "cdw14 (uuid index)")?;
    zero(cmd.cdw15, "cdw15")?;
    match cmd.opcode {
        OPC_IDENTIFY => {
            match (cmd.cdw10, cmd.nsid) {
                (CNS_CONTROLLER, _) | (CNS_NAMESPACE, 1) => {}
                _ => return Err(Refusal("only identify controller and namespace 1".into())),
            }
            if len != IDENTIFY_LEN {
                return Err(Refusal(format!("identify moves {IDENTIFY_LEN} bytes")));
            }
            zero(cmd.cdw12 | cmd.cdw13, "cdw12/cdw13 in identify")?;
        }
        OPC_GET_LOG_PAGE => {
            if !(cmd.nsid == 0xFFFF_FFFF || cmd.nsid == 0) {
                return Err(Refusal("a log page of one namespace".into()));
            }
            zero(cmd.cdw10 & 0xFF00, "lsp or rae (cdw10 bits 15:8)")?;
            let numd = (cmd.cdw10 >> 16) as usize + 1;
            if len != numd * 4 {
                return Err(Refusal(format!("{len} bytes is not numd {numd} dwords")));
            }
        }
        op => return Err(Refusal(format!("admin opcode {op:02x}h"))),
    }
    let [c10_0, _, c10_2, c10_3] = cmd.cdw10.to_le_bytes();
    let [c13_3, c13_2, c13_1, c13_0] = cmd.cdw13.to_be_bytes();
    let [c12_3, c12_2, c12_1, c12_0] = cmd.cdw12.to_be_bytes();
    Ok([
        OPCODE, cmd.opcode, 0, c10_0, 0, 0, c10_3, c10_2, c13_3, c13_2, c13_1, c13_0, c12_3, c12_2,
        c12_1, c12_0,
    ])
}

#[cfg(test)]
mod tests;
