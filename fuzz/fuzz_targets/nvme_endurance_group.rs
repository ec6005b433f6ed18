//! Endurance Group Information (09h) and the Identify Endurance Group List
//! (CNS 19h): no panic; units are billions of bytes, 0 is "not reported",
//! and the list never yields a zero identifier or more than 2047.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::EnduranceGroupLog;
use ssd_exporter::nvme::endurance_group::BILLION_BYTES;
use ssd_exporter::nvme::endurance_group_list;

fuzz_target!(|data: &[u8]| {
    if let Ok(g) = EnduranceGroupLog::parse(data) {
        let bytes = |units: u128| (units != 0).then(|| units.saturating_mul(BILLION_BYTES));
        assert_eq!(g.data_written_bytes, bytes(g.data_units_written));
        assert_eq!(g.media_written_bytes, bytes(g.media_units_written));
        assert_eq!(g.endurance_estimate_bytes, bytes(g.endurance_estimate));
        if let Some(wa) = g.write_amplification() {
            assert!(wa.is_finite() && wa >= 0.0, "{wa}");
        }
    }
    if let Ok(ids) = endurance_group_list::parse(data) {
        assert!(ids.len() <= endurance_group_list::MAX_IDS);
        assert!(!ids.contains(&0));
    }
});
