//! The persistent event log through the poller: the context protocol
//! against a controller that enforces it, and each event counted once.

use std::path::Path;
use std::sync::{Arc, Mutex};

use zerocopy::FromBytes;

use super::super::{NvmePoller, PollPolicy};
use super::*;
use crate::device::replay::{NvmeReplay, pel_window};
use crate::device::{NvmeRequest, NvmeSource};
use crate::nvme::identify::IdCtrlPage;
use crate::nvme::pel::{PelEventHeader, PelHeaderPage, encode};
use crate::poll::Poller;

const DC2000B: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
);
const HOST_SET: u64 = 1 << 49; // timestamp origin 001b
const T: u64 = 1_796_083_200_000; // 2026-12-01T00:00:00Z in ms

/// One event: type, host-set time (ms after T), data.
fn ev(etype: u8, ms: u64, data: Vec<u8>) -> (PelEventHeader, Vec<u8>) {
    let mut h = PelEventHeader::new(etype, data.len() as u16);
    h.ets = (HOST_SET | (T + ms)).into();
    (h, data)
}

fn log_of(events: &[(PelEventHeader, Vec<u8>)], generation: u16) -> Vec<u8> {
    let mut h = PelHeaderPage::new();
    h.gen_number = generation.into();
    h.seb[0] = 0b0011_0110; // 01h, 02h, 04h, 05h supported
    h.seb[1] = 0b0010_0000; // 0Dh
    encode(h, events)
}

/// A controller holding `log`, enforcing the reporting context: LSP 0
/// reads need one, LSP 1 fails while one exists, LSP 2 ends it.
struct Drive {
    inner: NvmeReplay,
    id: Vec<u8>,
    log: Arc<Mutex<Vec<u8>>>,
    context: Arc<Mutex<bool>>,
    /// Bump the generation number with the first read at an offset.
    lose_context: bool,
    asked: Arc<Mutex<Vec<NvmeRequest>>>,
}

impl NvmeSource for Drive {
    fn origin(&self) -> String {
        "/dev/nvme9".into()
    }
    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        self.asked.lock().unwrap().push(req);
        let NvmeRequest::Log {
            lid: 0x0D,
            lsp,
            offset,
            len,
            ..
        } = req
        else {
            return match req {
                NvmeRequest::IdentifyController => Ok(self.id.clone()),
                other => self.inner.fetch(other),
            };
        };
        let mut context = self.context.lock().unwrap();
        let mut log = self.log.lock().unwrap();
        match lsp {
            1 if *context => return Err(FetchError::Failed("Command Sequence Error".into())),
            1 => *context = true,
            0 if !*context => return Err(FetchError::Failed("no reporting context".into())),
            0 if self.lose_context && offset > 0 => {
                self.lose_context = false;
                log[372] += 1;
            }
            2 => *context = false,
            _ => {}
        }
        Ok(pel_window(&log, lsp, offset, len))
    }
}

struct Setup {
    poller: NvmePoller,
    log: Arc<Mutex<Vec<u8>>>,
    context: Arc<Mutex<bool>>,
    asked: Arc<Mutex<Vec<NvmeRequest>>>,
}

/// The DC2000B dump with LPA bit 4 (PEL) set, `lpo` deciding bit 2, and
/// MDTS 0 (transfers of up to 64 KiB).
fn setup(log: Vec<u8>, lpo: bool, leftover: bool, lose_context: bool) -> Setup {
    let inner = NvmeReplay::new(Path::new(DC2000B));
    let mut id = std::fs::read(Path::new(DC2000B).join("id-ctrl.bin")).unwrap();
    let (page, _) = IdCtrlPage::mut_from_prefix(&mut id).unwrap();
    page.lpa = 0x10 | if lpo { 0x04 } else { 0 };
    page.mdts = 0;
    let log = Arc::new(Mutex::new(log));
    let context = Arc::new(Mutex::new(leftover));
    let asked = Arc::default();
    let drive = Drive {
        inner,
        id,
        log: Arc::clone(&log),
        context: Arc::clone(&context),
        lose_context,
        asked: Arc::clone(&asked),
    };
    Setup {
        poller: NvmePoller::new(Box::new(drive), PollPolicy::EVERY_PAGE),
        log,
        context,
        asked,
    }
}

fn counts(out: &PollOutcome) -> Vec<(&'static str, u64)> {
    let nvme = out.reading.as_ref().unwrap().nvme.as_ref().unwrap();
    let pel = nvme.pel.as_ref().expect("a pel summary");
    pel.counts.iter().map(|&(t, n)| (t.as_label(), n)).collect()
}

fn pel_reads(asked: &Arc<Mutex<Vec<NvmeRequest>>>) -> Vec<(u8, u64, usize)> {
    asked
        .lock()
        .unwrap()
        .iter()
        .filter_map(|r| match *r {
            NvmeRequest::Log {
                lid: 0x0D,
                lsp,
                offset,
                len,
                rae,
                ..
            } => {
                assert!(rae, "{r}: every read retains the event");
                Some((lsp, offset, len))
            }
            _ => None,
        })
        .collect()
}

/// Thermal excursions of 2 data bytes: 24 + 2 = 26 bytes each.
fn thermal(ms: u64) -> (PelEventHeader, Vec<u8>) {
    ev(0x0D, ms, vec![3, 0])
}

#[test]
fn the_log_is_read_within_a_context_in_chunks_and_released() {
    // 4 events of 26 bytes + one SMART snapshot of 512 + 70 000 bytes of
    // vendor data: 512 + 104 + 536 + 70 024 = 71 176 bytes, two chunks
    let mut events: Vec<_> = (0..4).map(|i| thermal(i * 1000)).collect();
    events.push(ev(0x01, 5000, vec![0; 512]));
    events.push(ev(0xDE, 6000, vec![0xAB; 70_000]));
    let log = log_of(&events, 7);
    assert_eq!(log.len(), 71_176);
    let mut s = setup(log, true, false, false);
    let out = s.poller.poll();
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(
        pel_reads(&s.asked),
        [
            (1, 0, 512),        // establish and read the header
            (0, 512, 65_536),   // a chunk at LPO 512
            (0, 66_048, 5_128), // the rest, to the total length
            (0, 0, 512),        // the header again: same generation
            (2, 0, 512),        // release
        ]
    );
    assert!(!*s.context.lock().unwrap(), "the context is released");
    assert_eq!(
        counts(&out),
        [
            ("smart_snapshot", 1),
            ("firmware_commit", 0),
            ("power_on_reset", 0),
            ("hardware_error", 0),
            ("thermal_excursion", 4),
            ("vendor", 1), // not in the bitmap, but seen
        ]
    );
    let pel = out.reading.unwrap().nvme.unwrap().pel.unwrap();
    assert_eq!((pel.events_in_log, pel.generation), (6, 7));
    assert_eq!(pel.timeline[0].kind, PelEventType::Vendor);
    assert_eq!(pel.timeline[0].at, Some(1_796_083_206.0));
    let newest: Vec<_> = pel.newest.iter().map(|&(t, s)| (t.as_label(), s)).collect();
    assert_eq!(
        newest,
        [
            ("smart_snapshot", 1_796_083_205.0),
            ("thermal_excursion", 1_796_083_203.0),
            ("vendor", 1_796_083_206.0),
        ]
    );
}

#[test]
fn events_are_counted_once_across_polls_growth_wrap_and_clear() {
    let mut events: Vec<_> = (0..3).map(|i| thermal(i * 1000)).collect();
    let mut s = setup(log_of(&events, 1), true, false, false);
    let thermal_count = |out: &PollOutcome| {
        counts(out)
            .into_iter()
            .find(|(t, _)| *t == "thermal_excursion")
            .unwrap()
            .1
    };
    assert_eq!(thermal_count(&s.poller.poll()), 3);
    // read again (every poll refreshes here): nothing new
    assert_eq!(thermal_count(&s.poller.poll()), 3);
    // two new events
    events.extend([thermal(3000), thermal(4000)]);
    *s.log.lock().unwrap() = log_of(&events, 1);
    assert_eq!(thermal_count(&s.poller.poll()), 5);
    // full: the two oldest drop out as one new event comes in
    events.drain(..2);
    events.push(thermal(5000));
    *s.log.lock().unwrap() = log_of(&events, 1);
    assert_eq!(thermal_count(&s.poller.poll()), 6);
    // cleared, then two events: both new
    *s.log.lock().unwrap() = log_of(&[thermal(9000), thermal(9500)], 2);
    assert_eq!(thermal_count(&s.poller.poll()), 8);
    assert_eq!(s.poller.pel.mark.map(|m| m.position), Some(1));
}

/// A restart: the mark the first poller served is given back to a new one
/// (as a state file would), which counts only the events after it; a
/// drive it has no mark for has every event counted.
#[test]
fn a_kept_mark_survives_a_restart_and_only_newer_events_are_counted() {
    let mut events: Vec<_> = (0..3).map(|i| thermal(i * 1000)).collect();
    let mut first = setup(log_of(&events, 1), true, false, false);
    let out = first.poller.poll();
    let kept = out.reading.unwrap().nvme.unwrap().pel.unwrap().mark;
    assert_eq!(
        kept.map(|m| m.position),
        Some(2),
        "the newest event counted"
    );
    events.extend([thermal(3000), thermal(4000)]);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let marks: PelMarks = {
        let asked = Arc::clone(&asked);
        Arc::new(move |serial: &str, model: &str| {
            asked
                .lock()
                .unwrap()
                .push((serial.to_string(), model.to_string()));
            kept.filter(|_| serial == "REDACTED0000000001")
        })
    };
    let restarted = setup(log_of(&events, 1), true, false, false);
    let mut poller = restarted.poller.with_pel_marks(Arc::clone(&marks));
    let thermal_count = |out: &PollOutcome| {
        counts(out)
            .into_iter()
            .find(|(t, _)| *t == "thermal_excursion")
            .unwrap()
            .1
    };
    assert_eq!(
        thermal_count(&poller.poll()),
        2,
        "only the two newer events"
    );
    assert_eq!(thermal_count(&poller.poll()), 2);
    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked.len(),
        1,
        "asked only before the first count: {asked:?}"
    );
    assert_eq!(asked[0].0, "REDACTED0000000001");
    assert!(asked[0].1.starts_with("KINGSTON"), "{asked:?}");
    // another drive (no mark kept for it): every event in the log
    let other: PelMarks = Arc::new(|_: &str, _: &str| None);
    let fresh = setup(log_of(&events, 1), true, false, false);
    let mut poller = fresh.poller.with_pel_marks(other);
    assert_eq!(thermal_count(&poller.poll()), 5);
}

#[test]
fn an_event_ending_exactly_at_the_total_length_is_counted() {
    let events = [thermal(0), ev(0x04, 1000, b"EIEK51.3".to_vec())];
    let log = log_of(&events, 1);
    assert_eq!(log.len(), 512 + 26 + 32, "the last event ends the log");
    let mut s = setup(log, true, false, false);
    let out = s.poller.poll();
    assert!(
        counts(&out).contains(&("power_on_reset", 1)),
        "{:?}",
        counts(&out)
    );
}

#[test]
fn without_extended_data_the_log_is_one_read_from_offset_0() {
    let events: Vec<_> = (0..3).map(|i| thermal(i * 1000)).collect();
    let mut s = setup(log_of(&events, 1), false, false, false);
    let out = s.poller.poll();
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    // 512 + 78 = 590 bytes, rounded up to whole dwords
    assert_eq!(
        pel_reads(&s.asked),
        [(1, 0, 512), (0, 0, 592), (0, 0, 512), (2, 0, 512)]
    );
    assert!(counts(&out).contains(&("thermal_excursion", 3)));
}

#[test]
fn a_context_left_over_is_released_and_established_again() {
    let mut s = setup(log_of(&[thermal(0)], 1), true, true, false);
    let out = s.poller.poll();
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(
        pel_reads(&s.asked)[..3],
        [(1, 0, 512), (2, 0, 512), (1, 0, 512)]
    );
    assert!(!*s.context.lock().unwrap());
}

#[test]
fn a_lost_context_is_a_counted_failure_and_counts_nothing() {
    let events: Vec<_> = (0..3).map(|i| thermal(i * 1000)).collect();
    let mut s = setup(log_of(&events, 1), true, false, true);
    let out = s.poller.poll();
    let e: Vec<_> = out
        .errors
        .iter()
        .filter(|e| e.source == Source::PersistentEventLog)
        .collect();
    assert_eq!(e.len(), 1, "{:?}", out.errors);
    assert!(
        e[0].message.contains("generation changed from 1 to 2"),
        "{}",
        e[0].message
    );
    assert!(out.reading.unwrap().nvme.unwrap().pel.is_none());
    assert!(!*s.context.lock().unwrap(), "released even so");
    // the next refresh reads it whole, and counts each event once
    assert!(counts(&s.poller.poll()).contains(&("thermal_excursion", 3)));
}

#[test]
fn a_drive_without_the_log_is_not_asked() {
    let mut s = setup(log_of(&[], 1), true, false, false);
    {
        let mut id = std::fs::read(Path::new(DC2000B).join("id-ctrl.bin")).unwrap();
        id[261] = 0x07; // LPA bit 4 clear
        let drive = Drive {
            inner: NvmeReplay::new(Path::new(DC2000B)),
            id,
            log: Arc::clone(&s.log),
            context: Arc::clone(&s.context),
            lose_context: false,
            asked: Arc::clone(&s.asked),
        };
        s.poller = NvmePoller::new(Box::new(drive), PollPolicy::EVERY_PAGE);
    }
    let out = s.poller.poll();
    assert!(pel_reads(&s.asked).is_empty());
    assert!(out.reading.unwrap().nvme.unwrap().pel.is_none());
}

/// The mark: the newest event counted, found at its position or by its
/// fingerprint; the log's bytes decide, through the decoder.
#[test]
fn first_new_finds_the_mark_by_position_then_fingerprint() {
    let parse = |events: &[(PelEventHeader, Vec<u8>)]| {
        PersistentEventLog::parse(&log_of(events, 1))
            .unwrap()
            .events
    };
    let a = parse(&[thermal(0), thermal(1), thermal(2)]);
    assert_eq!(first_new(&a, None), 0);
    let mark = |e: &PelEvent| {
        Some(PelMark {
            position: e.position,
            fingerprint: e.fingerprint,
        })
    };
    assert_eq!(first_new(&a, mark(&a[2])), 3);
    assert_eq!(first_new(&a, mark(&a[0])), 1);
    let wrapped = parse(&[thermal(1), thermal(2), thermal(3)]);
    assert_eq!(first_new(&wrapped, mark(&a[2])), 2);
    let cleared = parse(&[thermal(7)]);
    assert_eq!(first_new(&cleared, mark(&a[2])), 0);
}
