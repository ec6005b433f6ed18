//! Codes from SPC-5's annex of additional sense codes; the expected
//! meaning is the rule, checked against smartmontools'
//! `scsiGetIEString` (which names 0Bh and 5Dh only).

use super::*;

fn ie(asc: u8, ascq: u8) -> InformationalException {
    InformationalException {
        asc,
        ascq,
        temperature_celsius: None,
        threshold_celsius: None,
    }
}

#[test]
fn only_a_failure_prediction_fails() {
    assert_eq!(ie(0x00, 0x00).condition(), Condition::None);
    assert_eq!(ie(0x5D, 0x00).condition(), Condition::FailurePredicted);
    assert_eq!(ie(0x5D, 0x10).condition(), Condition::FailurePredicted);
    assert_eq!(ie(0x5D, 0x73).condition(), Condition::FailurePredicted);
    // The TEST bit's report: FAILURE PREDICTION THRESHOLD EXCEEDED (FALSE).
    assert_eq!(ie(0x5D, 0xFF).condition(), Condition::Test);
    assert_eq!(ie(0x0B, 0x01).condition(), Condition::Warning);
    assert_eq!(ie(0x0B, 0x00).condition(), Condition::Warning);
    // MEDIUM ERROR's 11h, or a vendor code: no informational exception.
    assert_eq!(ie(0x11, 0x00).condition(), Condition::Other);
    assert_eq!(ie(0x80, 0x01).condition(), Condition::Other);
    let passed: Vec<bool> = [(0, 0), (0x5D, 0), (0x5D, 0xFF), (0x0B, 1), (0x11, 0)]
        .iter()
        .map(|&(a, q)| ie(a, q).passed())
        .collect();
    assert_eq!(passed, [true, false, true, true, true]);
}

#[test]
fn names_follow_spc5() {
    let n = |a, q| name(a, q).unwrap_or_default();
    assert_eq!(n(0x5D, 0x00), "failure prediction threshold exceeded");
    assert_eq!(n(0x5D, 0x01), "media failure prediction threshold exceeded");
    assert_eq!(
        n(0x5D, 0xFF),
        "failure prediction threshold exceeded (false)"
    );
    assert_eq!(n(0x0B, 0x00), "warning");
    assert_eq!(n(0x0B, 0x01), "warning - specified temperature exceeded");
    assert_eq!(n(0x0B, 0x03), "warning - background self-test failed");
    assert_eq!(
        n(0x0B, 0x0C),
        "warning - high operating temperature limit exceeded"
    );
    // 10h: hardware, general hard drive failure; 31h: data channel (third
    // group), drive error rate too high (second reason); 6Ch: firmware,
    // drive calibration retry count.
    assert_eq!(
        n(0x5D, 0x10),
        "hardware impending failure general hard drive failure"
    );
    assert_eq!(
        n(0x5D, 0x31),
        "data channel impending failure drive error rate too high"
    );
    assert_eq!(
        n(0x5D, 0x6C),
        "firmware impending failure drive calibration retry count"
    );
    // The last three codes of each group of sixteen have no name (2Dh);
    // 1Dh has one of its own.
    assert_eq!(name(0x5D, 0x2D), None);
    assert_eq!(name(0x0B, 0x15), None);
    assert_eq!(name(0x11, 0x00), None);
}
