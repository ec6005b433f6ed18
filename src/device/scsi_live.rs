//! A live SAS or SCSI disk, read with plain SCSI commands (INQUIRY, LOG
//! SENSE, READ CAPACITY(16), READ DEFECT DATA(10)), the CDBs of
//! `scsi::command`, through a command channel (`channel`): SG_IO on
//! `/dev/sdX` (the same ioctl as ATA pass-through, `sys::sg`), or a
//! MegaRAID controller's pass-through to one of its physical drives. Every
//! command is data-in, none reads the medium, but SEND DIAGNOSTIC, sent
//! only for a scheduled self-test (`selftest.schedule`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::channel::{Channel, DataIn, SgChannel};
use super::{FetchError, ScsiRequest, ScsiSource};
use crate::scsi::sense::parse_sense;
use crate::scsi::{command, diagnostic};

/// Fixed or descriptor sense: 32 bytes hold key, ASC and ASCQ of either.
const SENSE_LEN: usize = 32;

/// A SCSI disk, reached through a command channel: SG_IO on its block
/// device, or a RAID controller's pass-through (`megaraid_live`).
pub struct ScsiLive {
    chan: Box<dyn Channel>,
    /// The disk's sysfs folder (`/sys/block/sdX`), for its SAS link.
    sysfs: Option<PathBuf>,
}

impl ScsiLive {
    /// The disk at `path` (`/dev/sdX`), through SG_IO.
    pub fn new(path: &Path, timeout: Duration) -> Self {
        Self::over(Box::new(SgChannel::new(path, timeout)))
    }

    /// The disk `chan` reaches.
    pub fn over(chan: Box<dyn Channel>) -> Self {
        Self { chan, sysfs: None }
    }

    /// Reads the disk's SAS link from `block_dir` (`/sys/block/sdX`).
    pub fn with_sysfs(mut self, block_dir: &Path) -> Self {
        self.sysfs = Some(block_dir.to_path_buf());
        self
    }

    fn failed(&self, what: &str, why: impl std::fmt::Display) -> FetchError {
        FetchError::Failed(format!("{what} on {}: {why}", self.chan.origin()))
    }
}

impl ScsiSource for ScsiLive {
    fn origin(&self) -> String {
        self.chan.origin()
    }

    fn sas_links(&mut self) -> Vec<(u8, u64)> {
        self.sysfs
            .as_deref()
            .map(super::discovery::sas::links)
            .unwrap_or_default()
    }

    fn self_test(&mut self, op: super::SelfTestOp) -> Result<(), FetchError> {
        let code = match op {
            super::SelfTestOp::Short => diagnostic::BACKGROUND_SHORT,
            super::SelfTestOp::Extended => diagnostic::BACKGROUND_EXTENDED,
            super::SelfTestOp::Abort => diagnostic::ABORT_BACKGROUND,
        };
        let what = op.to_string();
        let mut sense = [0u8; SENSE_LEN];
        let out = self
            .chan
            .issue(&what, &diagnostic::cdb(code), DataIn::None, &mut sense)?;
        let sense = parse_sense(&sense[..out.sense_len.min(SENSE_LEN)]);
        command::outcome(out.status, &sense).map_err(|e| {
            if e.is_unsupported() {
                FetchError::Unsupported(format!("{what} on {}: {e}", self.chan.origin()))
            } else {
                self.failed(&what, e)
            }
        })
    }

    fn read(&mut self, req: ScsiRequest) -> Result<Vec<u8>, FetchError> {
        let what = req.to_string();
        let (cdb, alloc) = req.cdb();
        let mut data = vec![0u8; alloc];
        let mut sense = [0u8; SENSE_LEN];
        let out = self
            .chan
            .issue(&what, &cdb, DataIn::Buffer(&mut data), &mut sense)?;
        let sense = parse_sense(&sense[..out.sense_len.min(SENSE_LEN)]);
        if let Err(e) = command::outcome(out.status, &sense) {
            return Err(if e.is_unsupported() {
                FetchError::Unsupported(format!("{what} on {}: {e}", self.chan.origin()))
            } else {
                self.failed(&what, e)
            });
        }
        // The answer's own length, checked against what the device moved:
        // what it did not fill is zero padding, not data.
        let filled = &data[..out.transferred.min(alloc)];
        let len = req
            .accept(filled, alloc)
            .map_err(|e| self.failed(&what, e))?;
        data.truncate(len);
        Ok(data)
    }
}
