//! SMART READ DATA: no panic; at most 30 attributes, none with id 0, and
//! the checksum flag agrees with the byte sum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::{SmartData, byte_sum};

fuzz_target!(|data: &[u8]| {
    match SmartData::parse(data) {
        Ok(s) => {
            assert!(s.attributes.len() <= 30);
            for a in &s.attributes {
                assert_ne!(a.id, 0);
                assert!(a.raw48() < 1 << 48);
                assert_eq!(s.attribute(a.id).map(|x| x.id), Some(a.id));
            }
            assert_eq!(s.checksum_valid, byte_sum(&data[..512]) == 0);
        }
        Err(_) => assert!(data.len() < 512),
    }
});
