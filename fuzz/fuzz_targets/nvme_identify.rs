//! Identify Controller (CNS 01h): any bytes decode or fail with an error,
//! never a panic; at least the first 1024 bytes of the page always decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::IdCtrl;
use ssd_exporter::nvme::identify::ID_CTRL_MIN_LEN;

fuzz_target!(|data: &[u8]| {
    match IdCtrl::parse(data) {
        Ok(id) => {
            assert!(data.len() >= ID_CTRL_MIN_LEN);
            let _ = (
                id.version_string(),
                id.error_log_entries(),
                id.supports_self_test(),
                id.supports_uuid_list(),
                id.lpa_extended_data(),
                format!("{id:?}"),
            );
        }
        Err(_) => assert!(data.len() < ID_CTRL_MIN_LEN),
    }
});
