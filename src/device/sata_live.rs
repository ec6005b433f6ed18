//! A live SATA disk, read with ATA PASS-THROUGH(16) CDBs through a command
//! channel (`channel`): SG_IO on `/dev/sdX`, or a MegaRAID controller's
//! pass-through to one of its physical drives; behind a USB bridge that
//! takes only 12-byte CDBs, ATA PASS-THROUGH(12).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::channel::{Channel, DataIn, SgChannel};
use super::{AtaRead, AtaSource, FetchError};
use crate::ata::passthrough::{Command, Protocol};
use crate::ata::smart::SmartStatus;
use crate::ata::{
    PowerMode, SECTOR, devstat, error_log, identify, offline, power, self_test, sense, smart,
};

/// Sense buffer size: enough for descriptor-format sense with the 14-byte
/// ATA Status Return descriptor.
const SENSE_LEN: usize = 64;
/// Data buffers are page aligned (see `issue`).
const BUFFER_ALIGN: usize = 4096;

/// A SATA disk behind a SAT layer (libata, a SAT-capable HBA, a RAID
/// controller's firmware), reached through a command channel.
pub struct SataLive {
    chan: Box<dyn Channel>,
    /// READ LOG EXT was aborted once: read Device Statistics through SMART
    /// READ LOG instead (drives without the General Purpose Logging feature).
    devstat_via_smart_log: bool,
    /// `<sysfs>/block/sdX`, for drivetemp's hwmon chip; `None` for `dump`.
    sysfs: Option<PathBuf>,
    /// Send ATA PASS-THROUGH(12) (a USB bridge of drivedb.h type
    /// `sat,12`): 48-bit commands are then unsupported.
    cdb12: bool,
}

impl SataLive {
    /// The disk at `path` (`/dev/sdX`), through SG_IO.
    pub fn new(path: &Path, timeout: Duration) -> Self {
        Self::over(Box::new(SgChannel::new(path, timeout)))
    }

    /// The disk `chan` reaches.
    pub fn over(chan: Box<dyn Channel>) -> Self {
        Self {
            chan,
            devstat_via_smart_log: false,
            sysfs: None,
            cdb12: false,
        }
    }

    /// Sends ATA PASS-THROUGH(12) instead of (16).
    pub fn with_12_byte_cdbs(mut self) -> Self {
        self.cdb12 = true;
        self
    }

    /// The CDB of `cmd` in the length this disk takes.
    fn cdb(&self, what: &str, cmd: &Command) -> Result<Vec<u8>, FetchError> {
        if !self.cdb12 {
            return Ok(cmd.cdb().to_vec());
        }
        cmd.cdb12().map(|c| c.to_vec()).ok_or_else(|| {
            FetchError::Unsupported(format!(
                "{what} on {}: a 48-bit command needs ATA PASS-THROUGH(16), which this bridge does not take",
                self.chan.origin()
            ))
        })
    }

    /// Reads the disk's hwmon temperature under `block_dir` (`<sysfs>/block/sdX`)
    /// when the exporter may not read its pages.
    pub fn with_sysfs(mut self, block_dir: &Path) -> Self {
        self.sysfs = Some(block_dir.to_path_buf());
        self
    }

    fn failed(&self, what: &str, why: impl std::fmt::Display) -> FetchError {
        FetchError::Failed(format!("{what} on {}: {why}", self.chan.origin()))
    }

    /// Issues `cmd`; returns the data (for PIO in) and the ATA registers
    /// (when `CK_COND` asked for them).
    fn issue(
        &mut self,
        what: &str,
        cmd: &Command,
    ) -> Result<(Vec<u8>, Option<sense::AtaRegisters>), FetchError> {
        self.issue_with(what, cmd, sense::AtaError::is_unsupported)
    }

    /// [`Self::issue`], with `unsupported` saying which errors mean the
    /// device does not have the command.
    fn issue_with(
        &mut self,
        what: &str,
        cmd: &Command,
        unsupported: fn(&sense::AtaError) -> bool,
    ) -> Result<(Vec<u8>, Option<sense::AtaRegisters>), FetchError> {
        if let (true, Some(why)) = (cmd.check_condition, self.chan.ata_registers_unavailable()) {
            let origin = self.chan.origin();
            return Err(FetchError::Unsupported(format!(
                "{what} on {origin}: {why}"
            )));
        }
        // A page-aligned buffer lets the block layer map it for the transfer
        // instead of bouncing it through a kernel copy (an unaligned 512-byte
        // Vec is only 16-byte aligned; libata wants at least 512).
        let len = cmd.data_len();
        let mut storage = vec![0u8; len + BUFFER_ALIGN];
        let start = storage
            .as_ptr()
            .align_offset(BUFFER_ALIGN)
            .min(BUFFER_ALIGN);
        let data = &mut storage[start..start + len];
        let mut sense_buf = [0u8; SENSE_LEN];
        let dir = match cmd.protocol {
            Protocol::PioIn => DataIn::Buffer(data),
            Protocol::NonData => DataIn::None,
        };
        let cdb = self.cdb(what, cmd)?;
        let out = self.chan.issue(what, &cdb, dir, &mut sense_buf)?;
        let sense = sense::parse_sense(&sense_buf[..out.sense_len.min(SENSE_LEN)]);
        match sense::outcome(out.status, &sense, cmd.check_condition) {
            Ok(regs) => {
                // What the device did not fill is the buffer's zero padding:
                // decoding it would report zeros as the drive's values.
                out.check_transfer(len).map_err(|e| self.failed(what, e))?;
                Ok((storage[start..start + len].to_vec(), regs))
            }
            Err(e) => {
                let msg = format!("{what} on {}: {e}", self.chan.origin());
                Err(if unsupported(&e) {
                    FetchError::Unsupported(msg)
                } else {
                    FetchError::Failed(msg)
                })
            }
        }
    }

    fn devstat(&mut self, page: u8) -> Result<Vec<u8>, FetchError> {
        let what = AtaRead::DevStat { page }.to_string();
        if !self.devstat_via_smart_log {
            match self.issue(&what, &devstat::read_log_ext_command(page)) {
                Err(FetchError::Unsupported(_)) => self.devstat_via_smart_log = true,
                other => return other.map(|(d, _)| d),
            }
        }
        // SMART READ LOG always starts at sector 0: page N is the last of N+1.
        let (data, _) = self.issue(&what, &devstat::smart_read_log_command(page))?;
        let start = data.len().saturating_sub(SECTOR);
        Ok(data[start..].to_vec())
    }
}

/// Whether an IDENTIFY through ATA PASS-THROUGH was refused: the layer
/// answered it, but not with the drive's identify data. Beside what refuses
/// any command ([`sense::AtaError::is_unsupported`]), any CHECK CONDITION
/// but NOT READY and UNIT ATTENTION (asked again next poll): a SAT layer
/// with an ATA drive behind it answers IDENTIFY, so smartmontools'
/// `autodetect_sat_device` takes a failed IDENTIFY as "not SAT" and drives
/// the disk as SCSI (`poll::fallback`).
fn refuses_identify(e: &sense::AtaError) -> bool {
    const NOT_READY: u8 = 0x2;
    const UNIT_ATTENTION: u8 = 0x6;
    match *e {
        sense::AtaError::Check { key, .. } => key != NOT_READY && key != UNIT_ATTENTION,
        _ => e.is_unsupported(),
    }
}

impl AtaSource for SataLive {
    fn origin(&self) -> String {
        self.chan.origin()
    }

    fn hwmon(&mut self) -> Option<super::sysfs::hwmon::Temps> {
        super::sysfs::hwmon::drivetemp(self.sysfs.as_ref()?)
    }

    fn read(&mut self, req: AtaRead) -> Result<Vec<u8>, FetchError> {
        let what = req.to_string();
        let cmd = match req {
            AtaRead::Identify => {
                let cmd = identify::command();
                return self
                    .issue_with(&what, &cmd, refuses_identify)
                    .map(|(d, _)| d);
            }
            AtaRead::SmartData => smart::read_data_command(),
            AtaRead::SmartThresholds => smart::read_thresholds_command(),
            AtaRead::SelfTestLog => self_test::command(),
            AtaRead::ErrorLog => error_log::command(),
            AtaRead::DevStat { page } => return self.devstat(page),
        };
        self.issue(&what, &cmd).map(|(data, _)| data)
    }

    fn smart_status(&mut self) -> Result<SmartStatus, FetchError> {
        let (_, regs) = self.issue("smart return status", &smart::return_status_command())?;
        Ok(regs.map_or(
            SmartStatus::Unknown {
                lba_mid: 0,
                lba_high: 0,
            },
            |r| SmartStatus::from_registers(&r),
        ))
    }

    fn self_test(&mut self, op: super::SelfTestOp) -> Result<(), FetchError> {
        let sub = match op {
            super::SelfTestOp::Short => offline::SHORT_OFFLINE,
            super::SelfTestOp::Extended => offline::EXTENDED_OFFLINE,
            super::SelfTestOp::Abort => offline::ABORT_OFFLINE,
        };
        self.issue(&op.to_string(), &offline::command(sub))
            .map(|_| ())
    }

    fn power_mode(&mut self) -> Result<PowerMode, FetchError> {
        let (_, regs) = self.issue("check power mode", &power::command())?;
        let regs = regs.ok_or_else(|| self.failed("check power mode", "no registers returned"))?;
        Ok(PowerMode::from_count(regs.count as u8))
    }
}

#[cfg(test)]
mod tests;
