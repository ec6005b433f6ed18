//! The ways a bridge is read, over scripted pollers, and a disk left
//! alone over a fake sysfs folder.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use super::*;
use crate::device::discovery::usb::UsbFacts;
use crate::poll::{PollError, Source};

/// A poller answering from a script; counts its polls.
struct Scripted {
    outcomes: VecDeque<PollOutcome>,
    polls: Arc<Mutex<u32>>,
}

impl Poller for Scripted {
    fn origin(&self) -> String {
        "/dev/sdu".into()
    }
    fn poll(&mut self) -> PollOutcome {
        *self.polls.lock().unwrap() += 1;
        self.outcomes.pop_front().unwrap_or_default()
    }
    fn reset(&mut self) {}
    fn self_test(&mut self, _: SelfTestOp) -> Result<(), FetchError> {
        Ok(()) // what a SATA poller would do: send it
    }
}

fn scripted(outcomes: Vec<PollOutcome>) -> (Box<dyn Poller>, Arc<Mutex<u32>>) {
    let polls = Arc::new(Mutex::new(0));
    let p = Scripted {
        outcomes: outcomes.into(),
        polls: polls.clone(),
    };
    (Box::new(p), polls)
}

fn identity(model: &str) -> Identity {
    Identity {
        transport: Transport::Sata,
        kind: Kind::Physical,
        model: model.into(),
        serial: "S".into(),
        firmware: "F".into(),
        wwn: String::new(),
        capacity_bytes: None,
    }
}

fn answered(model: &str) -> PollOutcome {
    PollOutcome {
        identity: Some(identity(model)),
        up: true,
        ..PollOutcome::default()
    }
}

/// IDENTIFY refused: a mandatory command the bridge does not carry.
fn refused() -> PollOutcome {
    PollOutcome {
        mandatory_unsupported: true,
        errors: vec![PollError {
            source: Source::Identify,
            message: "refused".into(),
        }],
        ..PollOutcome::default()
    }
}

/// No answer at all: a timeout.
fn silent() -> PollOutcome {
    PollOutcome {
        errors: vec![PollError {
            source: Source::Identify,
            message: "timeout".into(),
        }],
        ..PollOutcome::default()
    }
}

fn next_way() -> (MakeNext, Arc<Mutex<u32>>) {
    let (p, polls) = scripted(vec![answered("NEXT"); 10]);
    let mut p = Some(p);
    (Box::new(move || p.take().unwrap()), polls)
}

#[test]
fn a_refusal_hands_the_disk_to_the_next_way_for_good() {
    let (first, first_polls) = scripted(vec![refused(), answered("X")]);
    let (next, next_polls) = next_way();
    let mut t = Tried::new(first, "ATA through SAT".into(), "test", next);
    assert_eq!(t.poll().identity.unwrap().model, "NEXT");
    assert_eq!(t.poll().identity.unwrap().model, "NEXT");
    assert_eq!(
        (*first_polls.lock().unwrap(), *next_polls.lock().unwrap()),
        (1, 2)
    );
}

#[test]
fn a_bridge_that_answered_once_is_never_given_up() {
    let (first, _) = scripted(vec![
        answered("X"),
        refused(),
        silent(),
        silent(),
        silent(),
        silent(),
    ]);
    let (next, next_polls) = next_way();
    let mut t = Tried::new(first, "NVMe".into(), "test", next);
    for _ in 0..6 {
        t.poll();
    }
    assert_eq!(*next_polls.lock().unwrap(), 0);
}

#[test]
fn a_bridge_that_never_answers_is_left_after_three_polls() {
    let (first, first_polls) = scripted(vec![silent(); 5]);
    let (next, next_polls) = next_way();
    let mut t = Tried::new(first, "NVMe".into(), "test", next);
    // Two silent polls are counted as they are; the third hands over.
    assert!(t.poll().identity.is_none());
    assert!(t.poll().identity.is_none());
    assert_eq!(t.poll().identity.unwrap().model, "NEXT");
    t.poll();
    assert_eq!(
        (*first_polls.lock().unwrap(), *next_polls.lock().unwrap()),
        (3, 2)
    );
}

#[test]
fn a_standby_skip_or_a_gone_disk_is_an_answer() {
    let skip = PollOutcome {
        skipped: Some("standby"),
        ..PollOutcome::default()
    };
    let (first, _) = scripted(vec![silent(), silent(), skip, silent(), silent()]);
    let (next, next_polls) = next_way();
    let mut t = Tried::new(first, "ATA through SAT".into(), "test", next);
    for _ in 0..5 {
        t.poll();
    }
    assert_eq!(
        *next_polls.lock().unwrap(),
        0,
        "the count restarts after an answer"
    );
}

#[test]
fn snt_sat_types_take_a_model_less_identify_as_a_refusal() {
    let (first, _) = scripted(vec![answered("")]);
    let (next, _) = next_way();
    let mut t = Tried::new(first, "NVMe".into(), "test", next).or_sat(true);
    assert_eq!(t.poll().identity.unwrap().model, "NEXT");
    // Without `/sat`, an NVMe drive without a model is still NVMe.
    let (first, _) = scripted(vec![answered("")]);
    let (next, _) = next_way();
    let mut t = Tried::new(first, "NVMe".into(), "test", next);
    assert_eq!(t.poll().identity.unwrap().model, "");
}

#[test]
fn no_self_test_goes_through_a_bridge() {
    let (first, _) = scripted(vec![answered("X")]);
    let (next, _) = next_way();
    let mut t = Tried::new(first, "ATA through SAT".into(), "test", next);
    t.poll();
    let e = t.self_test(SelfTestOp::Short).unwrap_err();
    assert!(e.to_string().contains("USB bridge"), "{e}");
}

fn discovered(block: &Path) -> Discovered {
    Discovered {
        name: "sdu".into(),
        transport: Transport::Scsi,
        dev_path: "/dev/sdu".into(),
        model: "QEMU QEMU HARDDISK".into(),
        serial: "USBBOT01".into(),
        firmware: "2.5+".into(),
        namespaces: vec!["sdu".into()],
        kind: Kind::Physical,
        basis: String::new(),
        sysfs: block.to_path_buf(),
        megaraid: None,
        place: Default::default(),
        paths: Vec::new(),
        subsystem: None,
        usb: Some(UsbDisk {
            facts: UsbFacts::default(),
            bridge: crate::usb::Bridge::Unknown,
            plan: Plan::Alone,
            why: "test".into(),
        }),
    }
}

#[test]
fn a_disk_left_alone_is_served_from_sysfs_and_never_judged() {
    let root = tempfile::tempdir().unwrap();
    let block = root.path().join("sdu");
    std::fs::create_dir_all(&block).unwrap();
    std::fs::write(block.join("size"), "131072\n").unwrap();
    let mut p = Alone::new(&discovered(&block));
    let out = p.poll();
    let id = out.identity.clone().unwrap();
    assert_eq!(
        (id.transport, id.model.as_str()),
        (Transport::Scsi, "QEMU QEMU HARDDISK")
    );
    assert_eq!(id.serial, "USBBOT01");
    assert_eq!(id.capacity_bytes, Some(64 << 20)); // 131072 × 512
    assert!(out.up && out.reading.is_none() && out.errors.is_empty());
    // Never judged, never green: the snapshot's verdict is "not judged".
    assert_eq!(out.not_judged, Some(LEFT_ALONE));
    let mut snap = crate::snapshot::DriveSnapshot::new("sdu", "/dev/sdu", id.clone());
    snap.apply(out, std::time::Duration::ZERO, std::time::SystemTime::now());
    snap.judge(Vec::new(), std::time::SystemTime::now());
    let v = snap.verdict.as_ref().expect("judged");
    assert_eq!(v.overall(), crate::health::verdict::Status::NotJudged);
    assert!(p.self_test(SelfTestOp::Short).is_err());
    std::fs::remove_dir_all(&block).unwrap();
    let out = p.poll();
    assert!(out.gone && out.identity.is_none());
}
