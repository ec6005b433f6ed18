//! Page 10h built by hand: parameter code, control 03h, length 10h, then
//! byte 0 code (7:5) | result (3:0), byte 1 segment, bytes 2..4 hours.

use super::*;

fn entry(code: u8, result: u8, segment: u8, hours: u16) -> [u8; 16] {
    let mut v = [0u8; 16];
    v[0] = (code << 5) | result;
    v[1] = segment;
    v[2..4].copy_from_slice(&hours.to_be_bytes());
    v[4..12].fill(0xFF);
    v
}

fn page(entries: &[[u8; 16]]) -> Vec<u8> {
    let mut body = Vec::new();
    for (i, v) in entries.iter().enumerate() {
        body.extend((i as u16 + 1).to_be_bytes());
        body.extend([0x03, 16]);
        body.extend(v);
    }
    let mut out = vec![0x10, 0x00];
    out.extend((body.len() as u16).to_be_bytes());
    out.extend(body);
    out
}

#[test]
fn every_entry_newest_first_up_to_the_first_empty_one() {
    let buf = page(&[
        entry(2, 0xF, 0, 0),    // extended, in progress ("NOW")
        entry(1, 1, 0, 30_200), // short, aborted by the host
        entry(2, 7, 3, 30_100), // extended, failed in segment 3
        entry(1, 0, 0, 29_000), // short, passed
        [0u8; 16],              // unused
        entry(1, 6, 2, 10),     // after the first empty one: not read
    ]);
    let t = self_tests(&buf).unwrap();
    let got: Vec<(u8, u8, u8, u16)> = t
        .iter()
        .map(|e| (e.code, e.result, e.segment, e.power_on_hours))
        .collect();
    assert_eq!(
        got,
        [
            (2, 15, 0, 0),
            (1, 1, 0, 30_200),
            (2, 7, 3, 30_100),
            (1, 0, 0, 29_000)
        ]
    );
    let names: Vec<&str> = t.iter().map(SelfTest::result_name).collect();
    assert_eq!(
        names,
        [
            "in_progress",
            "aborted_by_host",
            "segments_failed",
            "passed"
        ]
    );
    // The newest entry with an outcome is the failed extended test.
    let judged = t.iter().find(|e| e.has_outcome()).unwrap();
    assert_eq!((judged.result, judged.power_on_hours), (7, 30_100));
    assert_eq!(self_tests(&page(&[[0u8; 16]])).unwrap(), []);
}

#[test]
fn outcomes_are_passed_and_failed_only() {
    let has = |result| {
        SelfTest {
            code: 1,
            result,
            segment: 0,
            power_on_hours: 1,
        }
        .has_outcome()
    };
    let with: Vec<u8> = (0..16).filter(|&r| has(r)).collect();
    assert_eq!(with, [0, 3, 4, 5, 6, 7]);
}

#[test]
fn parameters_are_taken_in_code_order() {
    // A page listing 0002h before 0001h: 0001h is still the newest.
    let mut body = Vec::new();
    for (code, v) in [(2u16, entry(1, 0, 0, 5)), (1, entry(1, 4, 0, 9))] {
        body.extend(code.to_be_bytes());
        body.extend([0x03, 16]);
        body.extend(v);
    }
    let mut buf = vec![0x10, 0x00];
    buf.extend((body.len() as u16).to_be_bytes());
    buf.extend(body);
    let t = self_tests(&buf).unwrap();
    assert_eq!((t[0].result, t[0].power_on_hours), (4, 9));
    assert!(self_tests(&[0x0D, 0, 0, 0]).is_err());
}
