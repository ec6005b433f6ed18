//! Persistent Event Log (0Dh): no panic on any bytes; the walk stays
//! inside the total log length and the buffer, counts every event once,
//! and each event's detail and timestamp can be rendered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::PersistentEventLog;

fuzz_target!(|data: &[u8]| {
    let Ok(log) = PersistentEventLog::parse(data) else {
        return;
    };
    let limit = usize::try_from(log.header.total_length)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let mut end = 512;
    for (i, e) in log.events.iter().enumerate() {
        assert_eq!(e.position as usize, i);
        assert_eq!(e.offset, end, "events follow each other");
        assert!(e.header_length >= 24);
        end = e.offset + usize::from(e.header_length) + usize::from(e.length);
        assert!(end <= limit, "event {i} ends at {end}, past {limit}");
        let _ = (e.detail.describe(), e.timestamp.unix_seconds(), e.event_type().as_label());
    }
    assert_eq!(
        log.events.len() as u64 + u64::from(log.missing),
        u64::from(log.header.total_events)
    );
});
