//! smartmontools drivedb.h, read as data: any text parses (bad entries are
//! reported, never a panic), every error is one line, and every entry's
//! compiled patterns answer for any model and firmware.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::attributes::drivedb::DriveDb;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (db, errors) = DriveDb::parse(text);
    for e in &errors {
        assert!(!e.contains('\n'), "{e:?}");
    }
    // A model named by the file itself, if any, and one it was not written for.
    let model = db
        .entries
        .first()
        .map(|e| e.family.clone())
        .unwrap_or_default();
    for (m, f) in [(model.as_str(), ""), ("KINGSTON SEDC500M1920G", "SCEKJ2.3")] {
        if let Some(e) = db.find(m, f) {
            assert!(e.matches(m, f));
        }
    }
});
