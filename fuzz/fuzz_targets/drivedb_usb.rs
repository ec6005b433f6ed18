//! drivedb.h's USB section, read as data: any text parses (a bad entry is
//! reported on one line, never a panic); a bridge looked up by any
//! VID:PID and bcdDevice is found only by an entry whose patterns match
//! it, two entries are ambiguous only when both match with different
//! types; and any device type an entry names is read without a panic,
//! its `bridge` label naming a known bridge.
//!
//! The first 6 bytes are the bridge looked up (VID, PID, bcdDevice, little
//! endian; bcdDevice FFFFh stands for "not known"), the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::attributes::drivedb::DriveDb;
use ssd_exporter::ata::attributes::drivedb::usb::{UsbEntry, UsbLookup};
use ssd_exporter::usb::{Bridge, DeviceType};

fuzz_target!(|data: &[u8]| {
    let Some((ids, text)) = data.split_first_chunk::<6>() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let (db, errors) = DriveDb::parse(text);
    for e in &errors {
        assert!(!e.contains('\n'), "{e:?}");
    }
    let word = |i: usize| u16::from_le_bytes([ids[i], ids[i + 1]]);
    let bcd = Some(word(4)).filter(|&b| b != 0xffff);
    // The bridge the input names, and the three NVMe families' best known ids.
    for (vid, pid, bcd) in [
        (word(0), word(2), bcd),
        (0x152d, 0x0583, Some(0x0214)),
        (0x174c, 0x2362, None),
        (0x0bda, 0x9210, None),
    ] {
        let id = format!("0x{vid:04x}:0x{pid:04x}");
        let matches = |e: &UsbEntry| e.id.is_match(&id);
        match db.usb.lookup(vid, pid, bcd) {
            UsbLookup::Found(e) => {
                assert!(matches(e), "{id} found by {:?}", e.id.source());
                assert!(e.device_type.is_ok(), "{id}: an unparsed entry found");
            }
            UsbLookup::Ambiguous(a, b) => {
                assert!(matches(a) && matches(b), "{id}: ambiguous with a non-match");
                assert_ne!(a.device_type, b.device_type, "{id}: same types ambiguous");
            }
            UsbLookup::Unknown => {}
        }
    }
    for e in &db.usb.entries {
        if let Ok(ty) = &e.device_type
            && let Ok(parsed) = DeviceType::parse(ty)
        {
            let label = parsed.bridge().as_label();
            assert_eq!(Bridge::from_label(label), Some(parsed.bridge()));
        }
    }
});
