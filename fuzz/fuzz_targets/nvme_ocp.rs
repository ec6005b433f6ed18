//! OCP Datacenter SMART log (C0h): no panic; what decodes yields finite
//! derived values.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::OcpSmartLog;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = OcpSmartLog::parse(data) {
        let _ = log.throttling_active();
        if let Some(r) = log.capacitor_health_ratio() {
            assert!(r.is_finite() && r >= 0.0, "{r}");
        }
        let _ = format!("{log:?}");
    }
});
