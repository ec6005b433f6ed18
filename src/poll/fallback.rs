//! A disk with SAT hints, tried as ATA: ATA when IDENTIFY through ATA
//! PASS-THROUGH succeeds, SCSI when it is refused.
//!
//! Discovery calls an `sd*` disk ATA when its vendor is `ATA` or it lists
//! VPD page 89h (the signs of a SAT layer). Those are hints, not proof, as
//! smartmontools' `autodetect_sat_device` treats them: it drives a disk as
//! ATA only once an IDENTIFY DEVICE through ATA PASS-THROUGH has come back,
//! and as SCSI otherwise. Some devices list 89h yet refuse pass-through
//! (ILLEGAL REQUEST, or another CHECK CONDITION: `device::sata_live` counts
//! any but NOT READY and UNIT ATTENTION as a refusal of IDENTIFY): the
//! kernel's `scsi_debug` SAS disk does, as do RAID controllers that expose
//! a SATL page but block pass-through. Driven as ATA such a disk would stay
//! `up 0` for good while its SCSI pages (INQUIRY, capacity, log pages)
//! answer. So until the ATA poller has once read an identity, a poll in
//! which the disk refuses IDENTIFY hands it to the SCSI poller for good
//! (`transport` `scsi`, or `sas` when the SCSI poller sees SAS), and that
//! poll's outcome is the SCSI poller's. A poll that got no answer at all
//! (a timeout, a transport error) decides nothing: the next one asks
//! again. Both decisions are logged once, with the hints and the answer.

use tracing::info;

use super::{PollOutcome, Poller, Source};

/// Whether an ATA poll shows there is no ATA behind the disk: a mandatory
/// command refused by a disk that answered no IDENTIFY, in this poll or
/// (`confirmed`) any earlier one. `serve` and `dump` both decide by it.
pub fn no_ata_behind(out: &PollOutcome, confirmed: bool) -> bool {
    !confirmed && out.identity.is_none() && out.mandatory_unsupported && !out.gone
}

/// Makes the SCSI poller of the same disk.
pub type MakeScsi = Box<dyn FnMut() -> Box<dyn Poller> + Send>;

pub struct AtaOrScsi {
    ata: Box<dyn Poller>,
    /// Why discovery tried ATA (its SAT hints), for the log.
    hints: String,
    make_scsi: MakeScsi,
    scsi: Option<Box<dyn Poller>>,
    /// The ATA poller has read an identity once: it is an ATA drive, and a
    /// later refusal is the drive's problem, not a wrong transport.
    ata_confirmed: bool,
}

impl AtaOrScsi {
    pub fn new(ata: Box<dyn Poller>, hints: String, make_scsi: MakeScsi) -> Self {
        Self {
            ata,
            hints,
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
            if !self.ata_confirmed && out.identity.is_some() {
                info!(
                    device = %self.ata.origin(),
                    "driven as ATA: IDENTIFY through ATA PASS-THROUGH succeeded ({})",
                    self.hints
                );
                self.ata_confirmed = true;
            }
            return out;
        }
        let answer = out
            .errors
            .iter()
            .find(|e| e.source == Source::Identify)
            .map_or("a mandatory ATA command refused", |e| e.message.as_str());
        info!(
            device = %self.ata.origin(),
            "driven as SCSI with its log pages: IDENTIFY through ATA PASS-THROUGH was refused \
             ({answer}), so no ATA drive answers behind this disk's SAT layer ({})",
            self.hints
        );
        let scsi = self.scsi.insert((self.make_scsi)());
        scsi.poll()
    }

    fn self_test(
        &mut self,
        op: crate::device::SelfTestOp,
    ) -> Result<(), crate::device::FetchError> {
        match &mut self.scsi {
            Some(scsi) => scsi.self_test(op),
            None => self.ata.self_test(op),
        }
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
