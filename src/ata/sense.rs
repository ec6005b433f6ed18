//! The classification of one ATA PASS-THROUGH completion into success,
//! "the drive refused the command" or a SCSI-level failure, from the SCSI
//! status and the sense data [`crate::scsi::sense`] decodes (re-exported
//! here with the ATA registers it carries).

use thiserror::Error;

use crate::scsi::sense::{
    ASCQ_ATA_INFO_AVAILABLE, KEY_ABORTED_COMMAND, KEY_ILLEGAL_REQUEST, KEY_NO_SENSE,
    KEY_RECOVERED_ERROR, STATUS_CHECK_CONDITION, STATUS_GOOD, scsi_status_name, sense_key_name,
};
pub use crate::scsi::sense::{AtaRegisters, Sense, parse_sense};

/// ATA status register bit 0: ERR, the command failed (see `error`).
pub const STATUS_ERR: u8 = 0x01;
/// ATA error register bit 2: ABRT, command aborted (unsupported or invalid).
pub const ERROR_ABRT: u8 = 0x04;

/// The drive reports an error: status ERR, or ABRT in the error register.
pub fn is_error(r: &AtaRegisters) -> bool {
    r.status & STATUS_ERR != 0 || r.error & ERROR_ABRT != 0
}

/// Why an ATA pass-through command did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum AtaError {
    /// The drive completed the command with ERR or ABRT: it refused it or
    /// does not support it (a log it does not keep, SMART disabled, ...).
    #[error("ata command aborted (status {status:02x}h, error {error:02x}h)")]
    Aborted { error: u8, status: u8 },
    /// CHECK CONDITION without usable ATA registers.
    #[error(
        "scsi check condition: {} (sense key {key:x}h, asc {asc:02x}h, ascq {ascq:02x}h)",
        sense_key_name(*key)
    )]
    Check { key: u8, asc: u8, ascq: u8 },
    /// A SCSI status other than GOOD or CHECK CONDITION (BUSY, TASK SET
    /// FULL, ...): the command may succeed if retried later.
    #[error("scsi status {status:02x}h ({})", scsi_status_name(*status))]
    ScsiStatus { status: u8 },
}

impl AtaError {
    /// The command will keep failing on this drive and path: the drive
    /// aborted it, or the translating layer reported the ATA abort only as
    /// ABORTED COMMAND 00h/00h (SAT's mapping of ABRT, and what Linux sends
    /// when it cannot place the registers), or refused the CDB as ILLEGAL
    /// REQUEST (20h invalid command operation code, 24h invalid field in
    /// CDB). The caller records the page as unsupported, not the drive as
    /// failed.
    pub fn is_unsupported(&self) -> bool {
        match *self {
            AtaError::Aborted { .. } => true,
            AtaError::Check { key, asc, ascq } => {
                (key == KEY_ABORTED_COMMAND && asc == 0 && ascq == 0)
                    || (key == KEY_ILLEGAL_REQUEST && (asc == 0x20 || asc == 0x24) && ascq == 0)
            }
            AtaError::ScsiStatus { .. } => false,
        }
    }
}

/// Classifies a completed pass-through command from its SCSI `status` and
/// decoded `sense`.
///
/// Success: GOOD (with or without sense: some HBAs return none), or CHECK
/// CONDITION with RECOVERED ERROR / NO SENSE and ASC/ASCQ 00h/1Dh (the
/// normal answer to CK_COND, e.g. QEMU's AHCI disk for SMART RETURN
/// STATUS), or NO SENSE with registers. `expect_registers` says CK_COND was
/// set: then a 00h/1Dh answer without decodable registers is an error
/// rather than a success without registers. Registers with ERR or ABRT give
/// [`AtaError::Aborted`] whatever the SCSI status.
pub fn outcome(
    status: u8,
    sense: &Sense,
    expect_registers: bool,
) -> Result<Option<AtaRegisters>, AtaError> {
    if let Some(r) = sense.ata.filter(is_error) {
        return Err(AtaError::Aborted {
            error: r.error,
            status: r.status,
        });
    }
    let check = AtaError::Check {
        key: sense.key,
        asc: sense.asc,
        ascq: sense.ascq,
    };
    match status {
        STATUS_GOOD => Ok(sense.ata),
        STATUS_CHECK_CONDITION => {
            let info = sense.asc == 0 && sense.ascq == ASCQ_ATA_INFO_AVAILABLE;
            let benign = sense.key == KEY_NO_SENSE || sense.key == KEY_RECOVERED_ERROR;
            match sense.ata {
                Some(r) if benign && info => Ok(Some(r)),
                Some(r) if sense.key == KEY_NO_SENSE => Ok(Some(r)),
                None if benign && info && !expect_registers => Ok(None),
                _ => Err(check),
            }
        }
        other => Err(AtaError::ScsiStatus { status: other }),
    }
}

#[cfg(test)]
mod tests;
