//! Identify UUID List (CNS 17h): no panic; at most 127 entries, and the OCP
//! index, when found, points at the OCP UUID (1-based).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::uuid_list::{self, OCP_UUID};

fuzz_target!(|data: &[u8]| {
    let list = uuid_list::parse(data);
    let index = uuid_list::ocp_uuid_index(data);
    assert_eq!(list.is_ok(), index.is_ok());
    if let (Ok(list), Ok(index)) = (list, index) {
        assert!(list.len() <= 127);
        if let Some(i) = index {
            assert!(i >= 1, "UUID indexes are 1-based");
            assert_eq!(list[usize::from(i) - 1], OCP_UUID);
        }
    }
});
