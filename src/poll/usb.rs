//! Polling a disk behind a USB bridge (`device::discovery::usb` decides
//! how): ATA through SAT, or NVMe through the bridge family's frames, each
//! with the same pages, series and verdict as a SATA or NVMe drive on the
//! host's own controller; or, for a bridge the exporter leaves alone, no
//! command at all ([`Alone`]: identity and capacity from what the kernel
//! read, never judged).
//!
//! The way chosen is tried ([`Tried`]): a bridge that refuses the drive's
//! identify that way (a mandatory command refused and no identity read,
//! [`no_ata_behind`]; for drivedb.h's `snt…/sat` types also an
//! Identify Controller naming no model, as smartmontools'
//! `nvme_or_sat_device` decides) is given the next way, and logged once. A
//! bridge that answers nothing at all (timeouts, transport errors) is
//! counted each poll and left alone after [`MAX_UNANSWERED`] such polls
//! in a row, unless it has answered before: every command to a hung
//! bridge costs a USB reset in the kernel's error handling. Nothing that
//! acts on a drive (a self-test) is ever sent through a bridge.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tracing::{info, warn};

use super::fallback::no_ata_behind;
use super::nvme::{NvmePoller, PollPolicy};
use super::sata::{SataPolicy, SataPoller};
use super::{PollOutcome, Poller};
use crate::ata::attributes::Namer;
use crate::device::discovery::usb::{Plan, UsbDisk};
use crate::device::discovery::{Discovered, Kind, Transport};
use crate::device::sata_live::SataLive;
use crate::device::usb_live::BridgedNvme;
use crate::device::{FetchError, SelfTestOp};
use crate::reading::Identity;
use crate::usb::CdbLen;

/// Polls in a row without any answer after which a bridge that never
/// answered is left alone.
pub const MAX_UNANSWERED: u32 = 3;

/// The poller of a discovered disk behind a USB bridge; a SATA drive is
/// polled with `policy` (its standby rules).
pub fn poller(
    d: &Discovered,
    u: &UsbDisk,
    timeout: Duration,
    policy: SataPolicy,
    namer: &Arc<Namer>,
) -> Box<dyn Poller> {
    let alone = Alone::new(d);
    let dev = d.dev_path.clone();
    let sat = move |len: CdbLen| -> Box<dyn Poller> {
        let src = SataLive::new(&dev, timeout);
        let src = match len {
            CdbLen::Twelve => src.with_12_byte_cdbs(),
            CdbLen::Sixteen => src,
        };
        Box::new(SataPoller::new(Box::new(src), namer.clone(), policy))
    };
    let later = alone.clone();
    let to_alone = move || Box::new(later.clone()) as Box<dyn Poller>;
    let sat_way = "ATA through SAT".to_string();
    match u.plan {
        Plan::Alone => {
            info!(device = %d.dev_path.display(), "{}; served from sysfs, not judged", u.why);
            Box::new(alone)
        }
        Plan::Sat(len) => Box::new(Tried::new(sat(len), sat_way, &u.why, Box::new(to_alone))),
        Plan::Nvme { family, or_sat } => {
            let src = BridgedNvme::new(&d.dev_path, family, timeout);
            let nvme = Box::new(NvmePoller::new(Box::new(src), PollPolicy::LIVE));
            let next: MakeNext = if or_sat {
                let mut sat = Some(sat(CdbLen::Sixteen));
                Box::new(move || {
                    let first = sat.take().expect("the next way is made once");
                    let then = Box::new(to_alone.clone());
                    Box::new(Tried::new(first, sat_way.clone(), "after NVMe", then))
                        as Box<dyn Poller>
                })
            } else {
                Box::new(to_alone)
            };
            let what = format!("NVMe through the {} frames", family.bridge().as_label());
            Box::new(Tried::new(nvme, what, &u.why, next).or_sat(or_sat))
        }
    }
}

/// Makes the way tried next.
pub type MakeNext = Box<dyn FnMut() -> Box<dyn Poller> + Send>;

/// One way to read the drive behind a bridge, and what comes next when the
/// bridge refuses it (see the module's documentation).
pub struct Tried {
    first: Box<dyn Poller>,
    what: String,
    /// Why this way was chosen (discovery's decision), for the log.
    why: String,
    /// drivedb.h's `snt…/sat`: an identity naming no model is a refusal.
    or_sat: bool,
    make_next: MakeNext,
    next: Option<Box<dyn Poller>>,
    /// The bridge has answered with the drive's identity once.
    confirmed: bool,
    unanswered: u32,
}

impl Tried {
    pub fn new(first: Box<dyn Poller>, what: String, why: &str, make_next: MakeNext) -> Self {
        Self {
            first,
            what,
            why: why.to_string(),
            or_sat: false,
            make_next,
            next: None,
            confirmed: false,
            unanswered: 0,
        }
    }

    /// drivedb.h's `snt…/sat`: an identity without a model is a refusal.
    pub fn or_sat(mut self, or_sat: bool) -> Self {
        self.or_sat = or_sat;
        self
    }

    /// Whether this poll shows the bridge will not carry the drive this way.
    fn refused(&self, out: &PollOutcome) -> bool {
        let no_model = self.or_sat && out.identity.as_ref().is_some_and(|i| i.model.is_empty());
        !self.confirmed && (no_ata_behind(out, false) || no_model)
    }

    fn give_up(&mut self, why: &str) -> PollOutcome {
        info!(device = %self.first.origin(), "{} {why} ({}); trying the next way", self.what, self.why);
        let next = self.next.insert((self.make_next)());
        next.poll()
    }
}

impl Poller for Tried {
    fn origin(&self) -> String {
        self.first.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        if let Some(next) = &mut self.next {
            return next.poll();
        }
        let out = self.first.poll();
        if self.refused(&out) {
            return self.give_up("refused by the bridge");
        }
        if out.identity.is_some() || out.skipped.is_some() || out.gone {
            if !self.confirmed && out.identity.is_some() {
                info!(device = %self.first.origin(), "read as {}: the bridge answered ({})", self.what, self.why);
                self.confirmed = true;
            }
            self.unanswered = 0;
            return out;
        }
        self.unanswered += 1;
        if !self.confirmed && self.unanswered >= MAX_UNANSWERED {
            warn!(device = %self.first.origin(), polls = self.unanswered, "{} got no answer", self.what);
            return self.give_up("got no answer");
        }
        out
    }

    fn reset(&mut self) {
        match &mut self.next {
            Some(next) => next.reset(),
            None => self.first.reset(),
        }
    }

    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        Err(FetchError::Unsupported(format!(
            "{op} on {}: not sent to a drive behind a USB bridge",
            self.origin()
        )))
    }
}

/// Why a disk left alone is not judged.
pub const LEFT_ALONE: &str = "a disk behind a USB bridge that is sent no health command \
     (a bridge drivedb.h does not know or lists as unsupported, or one that refused or \
     never answered): served for its identity and capacity only; smartctl -d with the \
     bridge's type may read it";

/// A disk behind a bridge the exporter sends nothing to: its identity as
/// the kernel read it (INQUIRY vendor, product and revision; the serial of
/// VPD 80h or of the USB device) and its capacity (the block device's
/// size), from sysfs on every poll. Up while the disk is there, gone when
/// its sysfs folder is; no reading, so "not judged" ([`LEFT_ALONE`]).
#[derive(Debug, Clone)]
pub struct Alone {
    /// `<sysfs>/block/sdX`.
    block: PathBuf,
    origin: String,
    identity: Identity,
}

impl Alone {
    pub fn new(d: &Discovered) -> Self {
        Self {
            block: d.sysfs.clone(),
            origin: d.dev_path.display().to_string(),
            identity: Identity {
                transport: Transport::Scsi,
                kind: Kind::Physical,
                model: d.model.clone(),
                serial: d.serial.clone(),
                firmware: d.firmware.clone(),
                wwn: String::new(),
                capacity_bytes: None,
            },
        }
    }
}

/// The size of the block device at `block` in bytes (`size` counts
/// 512-byte sectors whatever the logical block size).
fn capacity(block: &Path) -> Option<u128> {
    let sectors: u128 = crate::device::sysfs::attr(block, "size")?.parse().ok()?;
    Some(sectors * 512).filter(|&b| b > 0)
}

impl Poller for Alone {
    fn origin(&self) -> String {
        self.origin.clone()
    }

    fn poll(&mut self) -> PollOutcome {
        if !self.block.exists() {
            return PollOutcome {
                gone: true,
                ..PollOutcome::default()
            };
        }
        let identity = Identity {
            capacity_bytes: capacity(&self.block),
            ..self.identity.clone()
        };
        PollOutcome {
            identity: Some(identity),
            up: true,
            not_judged: Some(LEFT_ALONE),
            ..PollOutcome::default()
        }
    }

    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests;
