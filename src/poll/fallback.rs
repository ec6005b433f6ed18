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
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::device::discovery::Transport;
    use crate::health::Identity;

    /// Answers each poll with the next outcome of its script (the last one
    /// repeated), counting its polls.
    struct Scripted {
        name: &'static str,
        script: Vec<PollOutcome>,
        polls: Arc<AtomicUsize>,
    }

    impl Poller for Scripted {
        fn origin(&self) -> String {
            self.name.to_string()
        }
        fn poll(&mut self) -> PollOutcome {
            let n = self.polls.fetch_add(1, Ordering::SeqCst);
            self.script[n.min(self.script.len() - 1)].clone()
        }
        fn reset(&mut self) {}
    }

    fn rejected() -> PollOutcome {
        PollOutcome {
            mandatory_unsupported: true,
            ..PollOutcome::default()
        }
    }

    fn identified(model: &str) -> PollOutcome {
        PollOutcome {
            identity: Some(Identity {
                transport: Transport::Scsi,
                model: model.to_string(),
                serial: String::new(),
                firmware: String::new(),
                wwn: String::new(),
                capacity_bytes: None,
            }),
            up: true,
            ..PollOutcome::default()
        }
    }

    fn pair(ata: Vec<PollOutcome>) -> (AtaOrScsi, Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let (ata_polls, scsi_polls) =
            (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let counted = scsi_polls.clone();
        let poller = AtaOrScsi::new(
            Box::new(Scripted {
                name: "/dev/sdc",
                script: ata,
                polls: ata_polls.clone(),
            }),
            Box::new(move || {
                Box::new(Scripted {
                    name: "/dev/sdc",
                    script: vec![identified("SEAGATE XS800LE10003")],
                    polls: counted.clone(),
                })
            }),
        );
        (poller, ata_polls, scsi_polls)
    }

    #[test]
    fn a_disk_rejecting_ata_pass_through_is_driven_as_scsi_from_that_poll_on() {
        let (mut p, ata, scsi) = pair(vec![rejected()]);
        let first = p.poll();
        assert!(p.is_scsi());
        assert_eq!(first.identity.unwrap().model, "SEAGATE XS800LE10003");
        assert!(first.up && !first.mandatory_unsupported);
        p.poll();
        p.poll();
        assert_eq!(
            ata.load(Ordering::SeqCst),
            1,
            "the ATA poller is not asked again"
        );
        assert_eq!(scsi.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn an_ata_drive_stays_ata_even_when_it_later_rejects_a_mandatory_page() {
        let (mut p, _, scsi) = pair(vec![identified("ATA drive"), rejected()]);
        assert!(p.poll().up);
        let second = p.poll();
        assert!(
            second.mandatory_unsupported,
            "the drive's own failure is served as such"
        );
        assert!(!p.is_scsi());
        assert_eq!(scsi.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn failures_that_are_not_a_rejection_keep_the_ata_poller() {
        // a timeout or I/O error on IDENTIFY is a failing drive, not a wrong transport
        let (mut p, _, scsi) = pair(vec![PollOutcome::default()]);
        p.poll();
        p.poll();
        assert!(!p.is_scsi());
        assert_eq!(scsi.load(Ordering::SeqCst), 0);
        // nor does a drive that vanished switch
        let (mut p, _, _) = pair(vec![PollOutcome {
            gone: true,
            ..rejected()
        }]);
        p.poll();
        assert!(!p.is_scsi());
    }
}
