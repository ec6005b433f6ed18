//! Telemetry Controller-Initiated header (08h): no panic; decodes only
//! with log identifier 08h, and "available" only for the value 1.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::TelemetryCtrlHeader;

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = TelemetryCtrlHeader::parse(data) {
        assert_eq!(data[0], 0x08);
        assert_eq!(h.generation, data[383]);
        assert_eq!(h.data_available, data[382] == 1);
    }
});
