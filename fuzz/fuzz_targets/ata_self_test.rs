//! SMART self-test log (06h): no panic; at most 21 entries, and every
//! entry has a result and test name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::SelfTestLog;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = SelfTestLog::parse(data) {
        assert!(log.entries.len() <= 21);
        assert!(log.newest_index <= 21);
        for e in &log.entries {
            assert!(!e.result_name().is_empty() && !e.test_name().is_empty());
            let _ = e.is_failure();
        }
        let _ = log.newest();
    }
});
