//! Error Information log (01h): no panic; never more entries than whole
//! 64-byte entries in the buffer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::{ERROR_LOG_ENTRY_LEN, ErrorLog};

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = ErrorLog::parse(data) {
        assert!(log.entries.len() <= data.len() / ERROR_LOG_ENTRY_LEN);
        let _ = format!("{:?}", log.newest());
    }
});
