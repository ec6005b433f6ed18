//! SMART READ THRESHOLDS: no panic; every id can be looked up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::SmartThresholds;

fuzz_target!(|data: &[u8]| {
    match SmartThresholds::parse(data) {
        Ok(t) => {
            for id in 0..=u8::MAX {
                let _ = t.get(id);
            }
            let _ = format!("{t:?}");
        }
        Err(_) => assert!(data.len() < 512),
    }
});
