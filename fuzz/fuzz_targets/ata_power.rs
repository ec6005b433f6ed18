//! CHECK POWER MODE's count register: every value has a name, and only
//! 00h/01h mean standby.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::PowerMode;

fuzz_target!(|data: &[u8]| {
    for &count in data {
        let mode = PowerMode::from_count(count);
        assert!(!mode.name().is_empty());
        assert_eq!(mode.is_standby(), count <= 1, "{count:#x}");
    }
});
