//! Firmware Slot Information (03h): no panic; slots 1..=7 in order with a
//! non-empty revision; pending only for a next slot other than the active.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::FwSlotLog;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = FwSlotLog::parse(data) {
        assert_eq!(log.active_slot, data[0] & 7);
        let slots: Vec<u8> = log.slots.iter().map(|s| s.slot).collect();
        assert!(slots.windows(2).all(|w| w[0] < w[1]) && slots.iter().all(|s| (1..=7).contains(s)));
        assert!(log.slots.iter().all(|s| !s.revision.is_empty()));
        if log.activation_pending() {
            assert_ne!(log.next_slot, Some(log.active_slot));
            assert!(log.next_slot.is_some());
        }
    }
});
