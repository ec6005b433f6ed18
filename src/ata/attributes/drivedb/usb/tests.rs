//! Entries quoted from smartmontools' drivedb.h (VERSION 7.5); each
//! expectation worked out from `lookup_usb_device` (`knowndrives.cpp`).

use super::super::DriveDb;
use super::*;

const EXCERPT: &str = r#"
  { "USB: ; Cypress CY7C68300A (AT2)",
    "0x04b4:0x6830",
    "0x0001",
    "",
    "" // unsupported
  },
  { "USB: ; Cypress CY7C68300B/C (AT2LP)",
    "0x04b4:0x6830",
    "0x0240",
    "",
    "-d usbcypress"
  },
  { "USB: Samsung G2 Portable; JMicron",
    "0x04e8:0x6032",
    "0x0000",
    "",
    "-d usbjmicron" // ticket #132
  },
  { "USB: Samsung G2 Portable; ",
    "0x04e8:0x6032",
    "0x...[1-9]", // >= 0x0001
    "",
    "-d sat"
  },
  { "USB: ; Realtek RTL9211", // USB->PCIe (NVMe) or SATA
    "0x(0bda|2eb9):0x9211", // 0x0bda: guessed, 0x2eb9: Sabrent EC-WPTF
    ".*", // fall through to next entry and report ambiguous result
    "",
    "-d sntrealtek" // NVMe or ...
  },
  { "USB: ; Realtek RTL9211",
    "0x(0bda|2eb9):0x9211",
    "",
    "",
    "" // ... SATA (unsupported)
  },
  { "USB: ; JMicron JMS583", // USB->PCIe (NVMe)
    "0x152d:0x0583",
    "",
    "",
    "-d sntjmicron"
  },
  { "USB: ; JMicron JMS583 (second)",
    "0x152d:0x0583",
    "",
    "",
    "-d sat"
  },
"#;

fn table() -> UsbTable {
    let (db, errors) = DriveDb::parse(EXCERPT);
    assert_eq!(
        errors,
        ["drivedb.h: no drive entries found"],
        "USB entries are not drive entries"
    );
    assert_eq!(db.usb.entries.len(), 8);
    db.usb
}

/// The type found, `"?"` for unknown, `"a|b"` for ambiguous.
fn found(t: &UsbTable, vid: u16, pid: u16, bcd: Option<u16>) -> String {
    let ty = |e: &UsbEntry| e.device_type.clone().unwrap();
    match t.lookup(vid, pid, bcd) {
        UsbLookup::Found(e) => ty(e),
        UsbLookup::Ambiguous(a, b) => format!("{}|{}", ty(a), ty(b)),
        UsbLookup::Unknown => "?".into(),
    }
}

#[test]
fn bcd_device_chooses_between_entries_of_one_id() {
    let t = table();
    // Exact bcdDevice matches, the second after the first did not.
    assert_eq!(found(&t, 0x04b4, 0x6830, Some(0x0001)), "");
    assert_eq!(found(&t, 0x04b4, 0x6830, Some(0x0240)), "usbcypress");
    assert_eq!(found(&t, 0x04e8, 0x6032, Some(0x0000)), "usbjmicron");
    assert_eq!(found(&t, 0x04e8, 0x6032, Some(0x0101)), "sat");
    // Neither bcdDevice pattern matches: two types, ambiguous
    // ("0x...[1-9]" needs a last digit 1 to 9; 0x0100 ends in 0).
    assert_eq!(found(&t, 0x04b4, 0x6830, Some(0x0100)), "|usbcypress");
    assert_eq!(found(&t, 0x04e8, 0x6032, Some(0x0100)), "usbjmicron|sat");
    // No bcdDevice (not on Linux, where sysfs has it): ambiguous too.
    assert_eq!(found(&t, 0x04e8, 0x6032, None), "usbjmicron|sat");
}

#[test]
fn a_catch_all_bcd_pattern_wins_over_the_entry_after_it() {
    let t = table();
    assert_eq!(found(&t, 0x0bda, 0x9211, Some(0x2001)), "sntrealtek");
    assert_eq!(found(&t, 0x2eb9, 0x9211, Some(0x0000)), "sntrealtek");
    assert_eq!(found(&t, 0x0bda, 0x9211, None), "sntrealtek|");
}

#[test]
fn the_first_entry_without_a_bcd_pattern_ends_the_search() {
    let t = table();
    assert_eq!(found(&t, 0x152d, 0x0583, Some(0x0214)), "sntjmicron");
    assert_eq!(found(&t, 0x152d, 0x0584, Some(0x0214)), "?");
    // The whole id string must match.
    assert_eq!(found(&t, 0x0152, 0xd058, None), "?");
}

#[test]
fn presets_allow_only_a_device_type() {
    assert_eq!(device_type("").unwrap(), "");
    assert_eq!(device_type(" -d sat,12 ").unwrap(), "sat,12");
    assert_eq!(device_type("-d sat -d sntasmedia").unwrap(), "sntasmedia");
    assert_eq!(device_type("-d\tsntrealtek").unwrap(), "sntrealtek");
    for bad in ["-v 9,raw48", "-d", "sat", "-F nologdir", "-d sat junk"] {
        assert!(device_type(bad).is_err(), "{bad:?}");
    }
    assert!(device_type(&format!("-d {}", "x".repeat(81))).is_err());
}

#[test]
fn an_entry_whose_presets_do_not_parse_stops_the_search_as_unknown() {
    let text = r#"
      { "USB: bad; ", "0x1234:0x5678", "", "", "-v 9,raw48" },
      { "USB: good; ", "0x1234:0x5678", "", "", "-d sat" },
    "#;
    let (db, errors) = DriveDb::parse(text);
    assert!(errors.iter().any(|e| e.contains("line 2")), "{errors:?}");
    assert_eq!(found(&db.usb, 0x1234, 0x5678, None), "?");
}

#[test]
fn a_bad_id_pattern_is_reported_and_skipped() {
    let text = r#"{ "USB: x; ", "0x(1234", "", "", "-d sat" },"#;
    let (db, errors) = DriveDb::parse(text);
    assert!(db.usb.entries.is_empty());
    assert!(errors.iter().any(|e| e.contains("rejected")), "{errors:?}");
}
