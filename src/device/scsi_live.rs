//! A live SAS or SCSI disk (`/dev/sdX`), read through SG_IO with plain SCSI
//! commands (INQUIRY, LOG SENSE, READ CAPACITY(16), READ DEFECT DATA(10)):
//! the same ioctl and header as ATA pass-through (`sys::sg`), the CDBs of
//! `scsi::command`. Every command is data-in, none reads the medium.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{FetchError, ScsiRequest, ScsiSource};
use crate::ata::sense::parse_sense;
use crate::scsi::command;
use crate::sys::sg::{DataDir, sg_io};

/// Fixed or descriptor sense: 32 bytes hold key, ASC and ASCQ of either.
const SENSE_LEN: usize = 32;

/// A SCSI disk behind the Linux SCSI layer.
#[derive(Debug)]
pub struct ScsiLive {
    path: PathBuf,
    file: Option<File>,
    timeout: Duration,
    /// The disk's sysfs folder (`/sys/block/sdX`), for its SAS link.
    sysfs: Option<PathBuf>,
}

impl ScsiLive {
    pub fn new(path: &Path, timeout: Duration) -> Self {
        Self {
            path: path.to_path_buf(),
            file: None,
            timeout,
            sysfs: None,
        }
    }

    /// Reads the disk's SAS link from `block_dir` (`/sys/block/sdX`).
    pub fn with_sysfs(mut self, block_dir: &Path) -> Self {
        self.sysfs = Some(block_dir.to_path_buf());
        self
    }

    /// Opens read-only: the exporter never writes to a drive, and these
    /// commands move data from the device only (the systemd unit grants
    /// CAP_SYS_RAWIO, which SG_IO's command filter may otherwise want).
    fn file(&mut self) -> Result<&File, FetchError> {
        if self.file.is_none() {
            let f = File::open(&self.path).map_err(|e| self.os_error("open", e))?;
            self.file = Some(f);
        }
        Ok(self.file.as_ref().expect("just opened"))
    }

    fn os_error(&self, what: &str, e: io::Error) -> FetchError {
        FetchError::from_os(what, &self.path, e, "CAP_SYS_RAWIO")
    }

    fn failed(&self, what: &str, why: impl std::fmt::Display) -> FetchError {
        FetchError::Failed(format!("{what} on {}: {why}", self.path.display()))
    }
}

impl ScsiSource for ScsiLive {
    fn origin(&self) -> String {
        self.path.display().to_string()
    }

    fn sas_links(&mut self) -> Vec<(u8, u64)> {
        self.sysfs
            .as_deref()
            .map(super::discovery::sas::links)
            .unwrap_or_default()
    }

    fn read(&mut self, req: ScsiRequest) -> Result<Vec<u8>, FetchError> {
        let what = req.to_string();
        let (cdb, alloc) = req.cdb();
        let mut data = vec![0u8; alloc];
        let mut sense = [0u8; SENSE_LEN];
        let timeout = self.timeout;
        let mut attempts = 0;
        let result = loop {
            let result = sg_io(
                self.file()?,
                &cdb,
                DataDir::FromDevice(&mut data),
                &mut sense,
                timeout,
            );
            attempts += 1;
            match &result {
                // As for ATA pass-through: the kernel asks for it again.
                Ok(out) if attempts < 2 && out.asks_for_retry() => sense = [0u8; SENSE_LEN],
                _ => break result,
            }
        };
        let out = match result {
            Ok(out) => out,
            Err(e) => {
                self.file = None;
                return Err(self.os_error(&what, e));
            }
        };
        // DID_NO_CONNECT and friends, or a driver timeout.
        if let Some(e) = FetchError::from_sg_transport(&what, &self.path, &out) {
            return Err(e);
        }
        let sense = parse_sense(&sense[..usize::from(out.sense_len).min(SENSE_LEN)]);
        if let Err(e) = command::outcome(out.status, &sense) {
            return Err(if e.is_unsupported() {
                FetchError::Unsupported(format!("{what} on {}: {e}", self.path.display()))
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
