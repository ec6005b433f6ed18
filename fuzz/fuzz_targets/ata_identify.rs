//! ATA IDENTIFY DEVICE: no panic; a sector of at least 512 bytes always
//! decodes, and the derived names are printable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::Identify;

fuzz_target!(|data: &[u8]| {
    match Identify::parse(data) {
        Ok(id) => {
            assert!(data.len() >= 512);
            let _ = (id.is_ssd(), id.ata_version_name());
            if let Some(wwn) = id.wwn_string() {
                assert!(!wwn.is_empty());
            }
            let _ = format!("{id:?}");
        }
        Err(_) => assert!(data.len() < 512),
    }
});
