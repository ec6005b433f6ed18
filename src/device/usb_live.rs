//! A live NVMe drive behind a USB bridge: each admin command carried in
//! the bridge family's vendor SCSI commands (`crate::usb`) through a
//! command channel (SG_IO on the disk's `/dev/sdX`). What the family
//! cannot carry, and what the exporter never sends through a bridge, is
//! unsupported before anything is sent; no self-test is ever sent.

use std::path::Path;
use std::time::Duration;

use super::channel::{Channel, DataIn, SgChannel};
use super::nvme_live::command_for;
use super::{FetchError, NvmeRequest, NvmeSource, SelfTestOp};
use crate::ata::sense::parse_sense;
use crate::nvme::NvmeStatus;
use crate::scsi::command::{self, ScsiError};
use crate::usb::{NvmeBridge, asmedia, jmicron, realtek};

/// Fixed or descriptor sense: 32 bytes hold key, ASC and ASCQ of either.
const SENSE_LEN: usize = 32;

/// An NVMe drive reached through a USB bridge of one family.
pub struct BridgedNvme {
    chan: Box<dyn Channel>,
    family: NvmeBridge,
}

impl BridgedNvme {
    /// The disk at `path` (`/dev/sdX`), through SG_IO.
    pub fn new(path: &Path, family: NvmeBridge, timeout: Duration) -> Self {
        Self::over(Box::new(SgChannel::new(path, timeout)), family)
    }

    /// The drive `chan` reaches.
    pub fn over(chan: Box<dyn Channel>, family: NvmeBridge) -> Self {
        Self { chan, family }
    }

    /// One SCSI command of the bridge's protocol; `Ok` with the bytes the
    /// device moved when it completed.
    fn issue(&mut self, what: &str, cdb: &[u8], data: DataIn<'_>) -> Result<usize, FetchError> {
        let mut sense = [0u8; SENSE_LEN];
        let out = self.chan.issue(what, cdb, data, &mut sense)?;
        let sense = parse_sense(&sense[..out.sense_len.min(SENSE_LEN)]);
        command::outcome(out.status, &sense).map_err(|e| self.refused(what, e))?;
        Ok(out.transferred)
    }

    /// A command the bridge (or the drive behind it) refused.
    fn refused(&self, what: &str, e: ScsiError) -> FetchError {
        let msg = format!(
            "{what} on {} ({:?} bridge): {e}",
            self.chan.origin(),
            self.family
        );
        if e.is_unsupported() {
            FetchError::Unsupported(msg)
        } else {
            FetchError::Failed(msg)
        }
    }

    fn short(&self, what: &str, got: usize, want: usize) -> Result<(), FetchError> {
        if got >= want {
            return Ok(());
        }
        Err(FetchError::Failed(format!(
            "{what} on {}: short transfer: the bridge returned {got} of {want} bytes",
            self.chan.origin()
        )))
    }

    /// One data-in command (ASMedia, Realtek): the page.
    fn one(&mut self, what: &str, cdb: &[u8], len: usize) -> Result<Vec<u8>, FetchError> {
        let mut data = vec![0u8; len];
        let got = self.issue(what, cdb, DataIn::Buffer(&mut data))?;
        self.short(what, got, len)?;
        Ok(data)
    }

    /// JMicron's three steps: the command block out, the page in, the
    /// reply in (its NVMe status decides).
    fn jmicron(
        &mut self,
        what: &str,
        cmd: &crate::sys::nvme::AdminCommand,
        len: usize,
    ) -> Result<Vec<u8>, FetchError> {
        let block = jmicron::command_block(cmd);
        self.issue(what, &jmicron::command_cdb(), DataIn::Out(&block))?;
        let mut data = vec![0u8; len];
        let got = self.issue(what, &jmicron::data_in_cdb(len), DataIn::Buffer(&mut data))?;
        let mut reply = vec![0u8; jmicron::BLOCK_LEN];
        let replied = self.issue(what, &jmicron::reply_cdb(), DataIn::Buffer(&mut reply))?;
        self.short(what, replied, jmicron::BLOCK_LEN)?;
        let origin = self.chan.origin();
        let r = jmicron::parse_reply(&reply)
            .map_err(|e| FetchError::Failed(format!("{what} on {origin}: {e}")))?;
        if r.status != 0 {
            let status = NvmeStatus::from_ioctl_result(u32::from(r.status));
            let msg = format!("{what} on {origin}: {status}");
            return Err(if status.is_unsupported() {
                FetchError::Unsupported(msg)
            } else {
                FetchError::Failed(msg)
            });
        }
        self.short(what, got, len)?;
        Ok(data)
    }
}

impl NvmeSource for BridgedNvme {
    fn origin(&self) -> String {
        self.chan.origin()
    }

    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        let what = req.to_string();
        let (cmd, len) = command_for(req);
        let origin = self.chan.origin();
        let unsupported = |why: crate::usb::Refusal| {
            FetchError::Unsupported(format!("{what} on {origin}: {why}"))
        };
        self.family.carries(&cmd, len).map_err(unsupported)?;
        match self.family {
            NvmeBridge::Jmicron => self.jmicron(&what, &cmd, len),
            NvmeBridge::Asmedia => {
                let cdb = asmedia::cdb(&cmd, len).map_err(unsupported)?;
                self.one(&what, &cdb, len)
            }
            NvmeBridge::Realtek => {
                let cdb = realtek::cdb(&cmd, len).map_err(unsupported)?;
                self.one(&what, &cdb, len)
            }
        }
    }

    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        Err(FetchError::Unsupported(format!(
            "{op} on {}: not sent to a drive behind a USB bridge",
            self.chan.origin()
        )))
    }
}

#[cfg(test)]
mod tests;
