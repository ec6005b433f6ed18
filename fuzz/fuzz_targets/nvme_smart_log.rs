//! SMART / Health log (02h): no panic; a page of at least 512 bytes always
//! decodes, and the unit conversions never shrink a counter.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::{SMART_LOG_LEN, SmartLog};

fuzz_target!(|data: &[u8]| {
    match SmartLog::parse(data) {
        Ok(s) => {
            assert!(data.len() >= SMART_LOG_LEN);
            assert!(s.data_read_bytes >= s.data_units_read);
            assert!(s.data_written_bytes >= s.data_units_written);
            assert!(s.power_on_seconds >= s.power_on_hours);
            for r in [
                s.available_spare_ratio,
                s.available_spare_threshold_ratio,
                s.percentage_used_ratio,
            ] {
                assert!((0.0..=2.55).contains(&r), "{r}");
            }
            for t in s
                .sensors_celsius
                .iter()
                .chain([&s.temperature_celsius])
                .flatten()
            {
                assert!(t.is_finite());
            }
        }
        Err(_) => assert!(data.len() < SMART_LOG_LEN),
    }
});
