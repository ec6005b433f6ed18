//! A disk discovery drives as ATA that turns out to have no ATA behind it.
//!
//! Discovery calls an `sd*` disk ATA when its vendor is `ATA` or it lists
//! VPD page 89h (the sign of a SAT layer). Some devices list 89h yet reject
//! ATA PASS-THROUGH as an unsupported command (ILLEGAL REQUEST): the
//! kernel's `scsi_debug` SAS disk does, as do RAID controllers that expose
//! a SATL page but block pass-through. Driven as ATA such a disk would stay
//! `up 0` for good, with every mandatory ATA page failing, while its SCSI
//! pages (INQUIRY, capacity, log pages) answer. So until the ATA poller has
//! once read an identity, a poll in which the drive rejects a mandatory ATA
//! command as unsupported hands the drive to the SCSI poller for good
//! (`transport` `scsi`, or `sas` when the SCSI poller sees SAS), and that
//! poll's outcome is the SCSI poller's.

use tracing::info;

use super::{PollOutcome, Poller};

/// Whether an ATA poll shows there is no ATA behind the disk: a mandatory
/// command rejected as unsupported by a disk that answered no IDENTIFY,
/// in this poll or (`confirmed`) any earlier one. `serve` and `dump` both
/// decide by it.
pub fn no_ata_behind(out: &PollOutcome, confirmed: bool) -> bool {
    !confirmed && out.identity.is_none() && out.mandatory_unsupported && !out.gone
}

/// Makes the SCSI poller of the same disk.
pub type MakeScsi = Box<dyn FnMut() -> Box<dyn Poller> + Send>;

pub struct AtaOrScsi {
    ata: Box<dyn Poller>,
    make_scsi: MakeScsi,
    scsi: Option<Box<dyn Poller>>,
    /// The ATA poller has read an identity once: it is an ATA drive, and a
    /// later rejection is the drive's problem, not a wrong transport.
    ata_confirmed: bool,
}

impl AtaOrScsi {
    pub fn new(ata: Box<dyn Poller>, make_scsi: MakeScsi) -> Self {
        Self {
            ata,
            make_scsi,
            scsi: None,
            ata_confirmed: false,
        }
    }

    /// Whether the drive is now driven as SCSI.
    pub fn is_scsi(&self) -> bool {
        self.scsi.is_some()
    }
}

impl Poller for AtaOrScsi {
    fn origin(&self) -> String {
        self.ata.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        if let Some(scsi) = &mut self.scsi {
            return scsi.poll();
        }
        let out = self.ata.poll();
        if !no_ata_behind(&out, self.ata_confirmed) {
            self.ata_confirmed |= out.identity.is_some();
            return out;
        }
        info!(
            device = %self.ata.origin(),
            "a mandatory ATA command was rejected as unsupported: no ATA behind this disk's \
             SAT layer (VPD 89h); driving it as SCSI"
        );
        let scsi = self.scsi.insert((self.make_scsi)());
        scsi.poll()
    }

    fn reset(&mut self) {
        match &mut self.scsi {
            Some(scsi) => scsi.reset(),
            None => self.ata.reset(),
        }
    }
}

#[cfg(test)]
mod tests;
