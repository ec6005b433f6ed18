//! Logs built by hand at the offsets of NVMe Base 2.0 §5.16.1.14
//! (layouts.md), never through the decoder's structs.

use super::*;
use crate::nvme::testutil::*;

/// A header for `events` events and `total` bytes; generation 5.
fn header(events: u32, total: u64) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = 0x0D;
    put_u32(&mut buf, 4, events);
    put_u64(&mut buf, 8, total);
    buf[16] = 1; // revision
    put_u16(&mut buf, 18, 512);
    put_u64(&mut buf, 20, (1 << 49) | 1_796_083_200_000);
    put_u128(&mut buf, 28, 8_760);
    put_u64(&mut buf, 44, 57);
    put_u16(&mut buf, 52, 0x2646);
    put_u16(&mut buf, 54, 0x2646);
    put(&mut buf, 56, b"SERIAL0001          ");
    put(&mut buf, 76, b"MODEL X");
    put_u16(&mut buf, 372, 5);
    put_u32(&mut buf, 374, 0x0001_0000);
    // supported events: 01h, 02h, 04h, 0Dh, DEh
    buf[480] = 0b0001_0110;
    buf[481] = 0b0010_0000;
    buf[480 + 0xDE / 8] |= 1 << (0xDE % 8);
    buf
}

/// An event: 24-byte header (EHL 21), `vendor` bytes, then `data`.
fn event(etype: u8, ts: u64, vendor: &[u8], data: &[u8]) -> Vec<u8> {
    let mut e = vec![0u8; 24];
    e[0] = etype;
    e[1] = 1;
    e[2] = 21;
    put_u16(&mut e, 4, 1);
    put_u64(&mut e, 6, ts);
    put_u16(&mut e, 20, vendor.len() as u16);
    put_u16(&mut e, 22, (vendor.len() + data.len()) as u16);
    e.extend_from_slice(vendor);
    e.extend_from_slice(data);
    e
}

const HOST_SET: u64 = 1 << 49; // timestamp origin 001b

fn fw_commit(old: &[u8; 8], new: &[u8; 8]) -> Vec<u8> {
    let mut d = vec![0u8; 22];
    put(&mut d, 0, old);
    put(&mut d, 8, new);
    d[16] = 3; // commit action 011b: replace and activate now
    d[17] = 2; // slot
    d
}

fn log_of(events: &[Vec<u8>]) -> Vec<u8> {
    let total = 512 + events.iter().map(Vec::len).sum::<usize>();
    let mut buf = header(events.len() as u32, total as u64);
    for e in events {
        buf.extend_from_slice(e);
    }
    buf
}

#[test]
fn the_header_fields_at_their_offsets() {
    let h = PelHeader::parse(&header(0, 512)).unwrap();
    assert_eq!((h.total_events, h.total_length, h.revision), (0, 512, 1));
    assert_eq!(h.header_length, 512);
    assert_eq!(h.timestamp.unix_seconds(), Some(1_796_083_200.0));
    assert_eq!((h.power_on_hours, h.power_cycles), (8_760, 57));
    assert_eq!((h.vid, h.ssvid), (0x2646, 0x2646));
    assert_eq!(
        (h.serial.as_str(), h.model.as_str()),
        ("SERIAL0001", "MODEL X")
    );
    assert_eq!((h.generation, h.reporting_context), (5, 0x0001_0000));
    for code in [0x01, 0x02, 0x04, 0x0D, 0xDE] {
        assert!(h.supports(code), "{code:02x}h");
    }
    for code in [0x00, 0x03, 0x05, 0x0C, 0xDF, 0xFF] {
        assert!(!h.supports(code), "{code:02x}h");
    }
}

#[test]
fn events_follow_each_other_by_ehl_plus_3_plus_el() {
    let thermal = event(0x0D, HOST_SET | 1_796_083_260_000, &[], &[5, 0]);
    let commit = event(
        0x02,
        HOST_SET | 1_796_083_320_000,
        b"VEND",
        &fw_commit(b"EIEK51.3", b"EIEK52.0"),
    );
    let vendor = event(0xDE, 1234, &[], &[0xAA; 6]); // origin 000b: since a reset
    let log = PersistentEventLog::parse(&log_of(&[thermal, commit, vendor])).unwrap();
    assert_eq!(log.missing, 0);
    let offsets: Vec<usize> = log.events.iter().map(|e| e.offset).collect();
    // 512; 512 + 24 + 2 = 538; 538 + 24 + 4 + 22 = 588
    assert_eq!(offsets, [512, 538, 588]);
    let e = &log.events[0];
    assert_eq!(
        (e.position, e.code, e.event_type()),
        (0, 0x0D, PelEventType::ThermalExcursion)
    );
    assert_eq!(e.timestamp.unix_seconds(), Some(1_796_083_260.0));
    assert_eq!(
        e.detail,
        PelDetail::ThermalExcursion {
            over_temperature: 5,
            threshold: 0
        }
    );
    // the vendor bytes come first and are skipped
    let c = &log.events[1];
    assert_eq!((c.vendor_info_len, c.length), (4, 26));
    match &c.detail {
        PelDetail::FirmwareCommit { old, new, slot, .. } => {
            assert_eq!(
                (old.as_str(), new.as_str(), *slot),
                ("EIEK51.3", "EIEK52.0", 2)
            );
        }
        other => panic!("{other:?}"),
    }
    let v = &log.events[2];
    assert_eq!(v.event_type(), PelEventType::Vendor);
    assert_eq!(
        (v.timestamp.millis(), v.timestamp.unix_seconds()),
        (1234, None)
    );
}

#[test]
fn an_event_ending_exactly_at_the_total_length_is_counted() {
    let a = event(0x04, HOST_SET, &[], &[b'F'; 8]);
    let b = event(0x01, HOST_SET, &[], &[0; 512]);
    let buf = log_of(&[a, b]);
    assert_eq!(buf.len(), 512 + 32 + 536);
    let log = PersistentEventLog::parse(&buf).unwrap();
    assert_eq!(
        log.events.len(),
        2,
        "the last event ends at byte {}",
        buf.len()
    );
    assert_eq!(log.missing, 0);
    // one byte short, and it is not whole
    let cut = PersistentEventLog::parse(&buf[..buf.len() - 1]).unwrap();
    assert_eq!((cut.events.len(), cut.missing), (1, 1));
}

#[test]
fn the_total_length_bounds_the_events_not_the_buffer() {
    let e = event(0x0D, 0, &[], &[1, 2]);
    let mut buf = log_of(std::slice::from_ref(&e));
    buf.extend_from_slice(&e); // bytes past the log: not an event
    put_u32(&mut buf, 4, 2); // even if the header claims two
    let log = PersistentEventLog::parse(&buf).unwrap();
    assert_eq!((log.events.len(), log.missing), (1, 1));
}

#[test]
fn power_on_reset_data_counts_controllers_and_activations() {
    let mut data = b"EIEK52.0".to_vec();
    for act in [1u8, 0] {
        let mut entry = vec![0u8; 36];
        entry[2] = act;
        data.extend_from_slice(&entry);
    }
    let log = PersistentEventLog::parse(&log_of(&[event(0x04, 0, &[], &data)])).unwrap();
    assert_eq!(
        log.events[0].detail,
        PelDetail::PowerOnReset {
            firmware: "EIEK52.0".into(),
            activations: 1,
            controllers: 2
        }
    );
}

#[test]
fn a_bad_event_header_length_stops_the_walk() {
    let mut e = event(0x0D, 0, &[], &[1, 2]);
    e[2] = 20; // header of 23 bytes: shorter than the 24 every revision has
    let log = PersistentEventLog::parse(&log_of(&[e])).unwrap();
    assert_eq!((log.events.len(), log.missing), (0, 1));
}

#[test]
fn a_wrong_log_identifier_or_a_short_total_is_invalid() {
    let mut buf = header(0, 512);
    buf[0] = 0x02;
    assert!(
        PelHeader::parse(&buf)
            .unwrap_err()
            .to_string()
            .contains("02h, not 0dh")
    );
    let short = header(0, 511);
    assert!(
        PelHeader::parse(&short)
            .unwrap_err()
            .to_string()
            .contains("shorter")
    );
    assert!(PelHeader::parse(&buf[..100]).is_err());
}

#[test]
fn fingerprints_tell_events_apart_and_are_stable() {
    let a = event(0x0D, HOST_SET | 1, &[], &[1, 2]);
    let b = event(0x0D, HOST_SET | 2, &[], &[1, 2]);
    let log = PersistentEventLog::parse(&log_of(&[a.clone(), b, a])).unwrap();
    let f: Vec<u64> = log.events.iter().map(|e| e.fingerprint).collect();
    assert_ne!(f[0], f[1]);
    assert_eq!(f[0], f[2]);
    // FNV-1a 64 test vectors (Fowler/Noll/Vo): "" and "a"
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
}
