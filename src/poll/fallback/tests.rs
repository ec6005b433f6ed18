use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::device::discovery::Transport;
use crate::reading::Identity;

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
            kind: crate::device::discovery::Kind::Physical,
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
    let (ata_polls, scsi_polls) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let counted = scsi_polls.clone();
    let poller = AtaOrScsi::new(
        Box::new(Scripted {
            name: "/dev/sdc",
            script: ata,
            polls: ata_polls.clone(),
        }),
        "SAT hints: vendor ATA".into(),
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
