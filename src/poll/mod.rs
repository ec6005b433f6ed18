//! One poll of one drive: fetch its pages, decode them, map them onto the
//! unified reading, and say what failed. Pollers are synchronous (they run
//! on a poll worker thread under a deadline, see `app::schedule`).

pub mod fabric;
pub mod factory;
pub mod fallback;
pub mod nvme;
pub mod refresh;
pub mod sata;
pub mod scsi;
pub mod selftest;
pub mod source;
pub mod standby;
pub mod tracker;
pub mod unprivileged;
pub mod usb;

pub use source::Source;

use std::time::Duration;

/// Default of `poll.interval`: how often each drive is polled.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);
/// Default of `poll.timeout`: one poll's deadline, and each command's
/// kernel timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

use crate::device::{FetchError, SelfTestOp};
use crate::reading::{Identity, Reading};

/// A counted failure: the `source` label of `ssd_poll_errors_total` and a
/// message naming the device and the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollError {
    pub source: Source,
    pub message: String,
}

/// What one poll produced.
#[derive(Debug, Clone, Default)]
pub struct PollOutcome {
    /// Identity from the drive's own identify data, when it could be read.
    pub identity: Option<Identity>,
    /// The reading built from every page's newest good decode; `None` when
    /// no page has ever been decoded.
    pub reading: Option<Reading>,
    /// Whether this poll read and decoded the drive's core health page.
    pub up: bool,
    /// Failures to count, one per page that failed.
    pub errors: Vec<PollError>,
    /// The device no longer exists (unplugged, removed, dump folder gone).
    pub gone: bool,
    /// Why the drive was deliberately not polled (`standby`): nothing else
    /// in the outcome is meaningful then.
    pub skipped: Option<&'static str>,
    /// The drive rejected a mandatory command as one it does not have (an
    /// ATA pass-through to a disk with no ATA behind its SAT layer): it is
    /// not the kind of drive this poller drives (see [`fallback`]).
    pub mandatory_unsupported: bool,
    /// The power mode the drive reported (SATA CHECK POWER MODE).
    pub power_mode: Option<&'static str>,
    /// What the poller believes about each page it has asked for
    /// (`ssd_page_supported`); empty when the poll was skipped.
    pub pages: Vec<(Source, bool)>,
    /// Pages the exporter was not permitted to read (EPERM, EACCES): their
    /// failures are in `errors` until [`unprivileged::serve`] takes them
    /// out and serves what sysfs gives instead.
    pub denied: Vec<Source>,
    /// The poller reads no health from this device, and why (a disk behind
    /// a USB bridge that answers no health command): its verdict is "not
    /// judged", as a virtual volume's, never ok.
    pub not_judged: Option<&'static str>,
}

/// Replaces a cached page with a new good decode; keeps it otherwise.
pub(crate) fn keep<T>(slot: &mut Option<T>, new: Option<T>) {
    if new.is_some() {
        *slot = new;
    }
}

/// Something that can poll one drive.
pub trait Poller: Send {
    /// Where the pages come from (device node or dump folder), for logs.
    fn origin(&self) -> String;
    /// Reads and decodes every page once.
    fn poll(&mut self) -> PollOutcome;
    /// Forgets everything learned so far (cached pages, page support), as
    /// after a panic in `poll`: the next poll starts like the first.
    fn reset(&mut self);
    /// Sends self-test command `op` to the drive (`selftest.schedule`);
    /// a poller that cannot (a replay, a remote fabric target) says it is
    /// unsupported.
    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        Err(FetchError::Unsupported(format!(
            "{op} on {}: not sent to this kind of drive",
            self.origin()
        )))
    }
}

#[cfg(test)]
mod tests;
