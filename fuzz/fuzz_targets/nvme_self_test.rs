//! Device Self-test log (06h): no panic; a page of at least 564 bytes
//! always decodes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::{SELF_TEST_LOG_LEN, SelfTestLog};

fuzz_target!(|data: &[u8]| {
    match SelfTestLog::parse(data) {
        Ok(log) => {
            assert!(data.len() >= SELF_TEST_LOG_LEN);
            if let Some(last) = log.last() {
                assert!(!last.result_name().is_empty());
            }
            let _ = format!("{log:?}");
        }
        Err(_) => assert!(data.len() < SELF_TEST_LOG_LEN),
    }
});
