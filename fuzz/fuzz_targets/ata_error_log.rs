//! SMART summary error log (01h): no panic; a sector always decodes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::byte_sum;
use ssd_exporter::ata::error_log::ErrorLogSummary;

fuzz_target!(|data: &[u8]| {
    match ErrorLogSummary::parse(data) {
        Ok(log) => assert_eq!(log.checksum_valid, byte_sum(&data[..512]) == 0),
        Err(_) => assert!(data.len() < 512),
    }
});
