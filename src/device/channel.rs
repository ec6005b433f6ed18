//! How a CDB reaches a SCSI or SATA drive: the command channel under the
//! live SCSI and SATA sources (`scsi_live`, `sata_live`), so one source
//! (its CDBs, and what a completion means) serves every way to the drive.
//! [`SgChannel`] issues the CDB with `SG_IO` on the disk's block device
//! (libata, a SAS HBA, any SCSI host); `megaraid_live::MegaraidChannel`
//! passes it through a MegaRAID controller to one of its physical drives.
//!
//! A channel only moves bytes: it reports the SCSI status, the sense bytes
//! and how much data arrived, or a [`FetchError`] when the command did not
//! reach the drive or did not complete there. Whether a completion is a
//! success is the source's decision.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::FetchError;
use crate::sys::sg::{DataDir, ShortTransfer, sg_io};

/// What one command's data phase is.
#[derive(Debug)]
pub enum DataIn<'a> {
    /// No data phase (non-data ATA commands such as SMART RETURN STATUS).
    None,
    /// The device fills this buffer; its length is the transfer length.
    Buffer(&'a mut [u8]),
    /// The device reads this buffer: a USB bridge's command block
    /// (`crate::usb::jmicron`), never data for the medium.
    Out(&'a [u8]),
}

/// How a command the channel delivered completed at the drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// SAM status (00h GOOD, 02h CHECK CONDITION, ...).
    pub status: u8,
    /// Bytes of the sense buffer that hold sense data.
    pub sense_len: usize,
    /// Bytes of the data-in buffer the device filled (0 without a data
    /// phase; the whole buffer where the channel cannot tell).
    pub transferred: usize,
}

impl Completion {
    /// `Ok` when the data phase moved all `expected` bytes.
    pub fn check_transfer(&self, expected: usize) -> Result<(), ShortTransfer> {
        ShortTransfer::check(self.transferred, expected)
    }
}

/// A way to send CDBs to one drive.
pub trait Channel: Send {
    /// The drive as log lines and error messages name it (`/dev/sda`).
    fn origin(&self) -> String;
    /// Issues `cdb`, the device filling `data` and the sense data going to
    /// `sense` (32 to 64 bytes). `what` names the command in errors.
    fn issue(
        &mut self,
        what: &str,
        cdb: &[u8],
        data: DataIn<'_>,
        sense: &mut [u8],
    ) -> Result<Completion, FetchError>;
    /// Whether an ATA PASS-THROUGH with CK_COND gets the ATA registers back
    /// in the sense data. `None` when it cannot: then why, for the
    /// `Unsupported` error of a command that needs them.
    fn ata_registers_unavailable(&self) -> Option<&'static str> {
        None
    }
}

/// `SG_IO` on a SCSI block device (`/dev/sdX`) or its `/dev/sgN` node.
#[derive(Debug)]
pub struct SgChannel {
    path: PathBuf,
    file: Option<File>,
    timeout: Duration,
}

impl SgChannel {
    pub fn new(path: &Path, timeout: Duration) -> Self {
        Self {
            path: path.to_path_buf(),
            file: None,
            timeout,
        }
    }

    /// Opens read-only: SG_IO needs CAP_SYS_RAWIO for ATA pass-through (and
    /// its command filter may want it for the SCSI commands), not write
    /// access, and the exporter never writes to a drive.
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
}

impl Channel for SgChannel {
    fn origin(&self) -> String {
        self.path.display().to_string()
    }

    fn issue(
        &mut self,
        what: &str,
        cdb: &[u8],
        mut data: DataIn<'_>,
        sense: &mut [u8],
    ) -> Result<Completion, FetchError> {
        let timeout = self.timeout;
        let mut attempts = 0;
        let result = loop {
            let dir = match &mut data {
                DataIn::None => DataDir::None,
                DataIn::Buffer(buf) => DataDir::FromDevice(buf),
                DataIn::Out(buf) => DataDir::ToDevice(buf),
            };
            let result = sg_io(self.file()?, cdb, dir, sense, timeout);
            attempts += 1;
            match &result {
                // DID_SOFT_ERROR and friends: the block layer would issue the
                // command again; SG_IO leaves it to the caller. Once.
                Ok(out) if attempts < 2 && out.asks_for_retry() => sense.fill(0),
                _ => break result,
            }
        };
        let out = match result {
            Ok(out) => out,
            Err(e) => {
                self.file = None;
                return Err(self.os_error(what, e));
            }
        };
        // DID_NO_CONNECT and friends, or a driver timeout.
        if let Some(e) = FetchError::from_sg_transport(what, &self.path, &out) {
            return Err(e);
        }
        Ok(Completion {
            status: out.status,
            sense_len: usize::from(out.sense_len).min(sense.len()),
            transferred: out.transferred,
        })
    }
}
