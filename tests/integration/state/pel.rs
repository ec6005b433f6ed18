//! The persistent event log's mark through the state file: an event
//! counted before a restart is not counted again after it, and one logged
//! while the exporter was down is counted once.

use std::path::Path;

use ssd_exporter::nvme::pel::{PelEventHeader, PelHeaderPage};
use zerocopy::{FromBytes, IntoBytes};

use super::{Run, args, drive, value};

/// Appends a Hardware Error event (type 05h: a 2-byte Hardware Error Event
/// Code and 2 reserved bytes, NVMe Base 2.0 §5.16.1.14) to the dump's log,
/// through the crate's layouts, and raises the header's Total Number of
/// Events and Total Log Length to match.
fn log_hardware_error(dir: &Path) {
    let path = dir.join("persistent-event-log.bin");
    let mut log = std::fs::read(&path).unwrap();
    let data = [0x01, 0x00, 0x00, 0x00];
    log.extend_from_slice(PelEventHeader::new(0x05, data.len() as u16).as_bytes());
    log.extend_from_slice(&data);
    let len = log.len() as u64;
    let header = PelHeaderPage::mut_from_bytes(&mut log[..512]).unwrap();
    header.tnev = (header.tnev.get() + 1).into();
    header.tll = len.into();
    std::fs::write(&path, &log).unwrap();
}

fn events(text: &str, kind: &str) -> Option<f64> {
    let prefix = format!(
        "ssd_pel_events_total{{device=\"nvme0\",serial=\"REDACTED0000000001\",type=\"{kind}\"}}"
    );
    value(text, &prefix)
}

#[test]
fn an_event_counted_before_a_restart_is_not_counted_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    // The DC2000B dump's six events (meta.toml), one of each of these
    // types; its Supported Events Bitmap lists hardware errors, none logged.
    let first = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    let text = first.after_polls(2.0);
    assert_eq!(events(&text, "power_on_reset"), Some(1.0), "{text}");
    assert_eq!(events(&text, "firmware_commit"), Some(1.0), "{text}");
    // A type with nothing counted is served lazily: no series.
    assert_eq!(events(&text, "hardware_error"), None, "{text}");
    assert!(first.stop().success());
    // Down: the drive logs a hardware error.
    log_hardware_error(&dir);
    let second = Run::start(&args(&dir, &state), &tmp.path().join("2.log"));
    let text = second.after_polls(2.0);
    // The counters restart with the process; only the new event counts
    // (the others, at 0, are not served).
    assert_eq!(events(&text, "power_on_reset"), None, "{text}");
    assert_eq!(events(&text, "firmware_commit"), None, "{text}");
    assert_eq!(events(&text, "vendor"), None, "{text}");
    assert_eq!(events(&text, "hardware_error"), Some(1.0), "{text}");
    // Without the saved state every event in the log counts again.
    let fresh = tmp.path().join("fresh");
    let third = Run::start(&args(&dir, &fresh), &tmp.path().join("3.log"));
    let text = third.after_polls(1.0);
    assert_eq!(events(&text, "power_on_reset"), Some(1.0), "{text}");
    assert_eq!(events(&text, "hardware_error"), Some(1.0), "{text}");
}
