//! Round trip through the demo's page builder: any SMART / Health values
//! the builder encodes decode back to the same values (in the decoder's
//! units), so the builder and the decoder agree on the layout.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ssd_exporter::device::demo::pages::{NvmeHealth, nvme_smart_log};
use ssd_exporter::nvme::SmartLog;

fn health(u: &mut Unstructured<'_>) -> Result<NvmeHealth> {
    // Whole °C within what a u16 Kelvin field holds.
    let celsius = |u: &mut Unstructured<'_>| u.int_in_range(-272i32..=1000).map(f64::from);
    let composite_c = celsius(u)?;
    let mut sensors_c = Vec::new();
    for _ in 0..u.int_in_range(0..=8)? {
        sensors_c.push(celsius(u)?);
    }
    Ok(NvmeHealth {
        critical_warning: u.arbitrary()?,
        composite_c,
        sensors_c,
        available_spare: u.arbitrary()?,
        spare_threshold: u.arbitrary()?,
        percent_used: u.arbitrary()?,
        data_units_read: u.arbitrary()?,
        data_units_written: u.arbitrary()?,
        host_reads: u.arbitrary()?,
        host_writes: u.arbitrary()?,
        busy_minutes: u.arbitrary()?,
        power_cycles: u.arbitrary()?,
        power_on_hours: u.arbitrary()?,
        unsafe_shutdowns: u.arbitrary()?,
        media_errors: u.arbitrary()?,
        error_entries: u.arbitrary()?,
        warning_temp_minutes: u.arbitrary()?,
        critical_temp_minutes: u.arbitrary()?,
        tmt1_count: u.arbitrary()?,
        tmt2_count: u.arbitrary()?,
        tmt1_seconds: u.arbitrary()?,
        tmt2_seconds: u.arbitrary()?,
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(h) = health(&mut Unstructured::new(data)) else {
        return;
    };
    let s = SmartLog::parse(&nvme_smart_log(&h)).expect("a built page decodes");
    assert_eq!(s.critical_warning.0, h.critical_warning);
    // 0 K means "not reported".
    let want = |c: f64| (c > -273.0).then_some(c);
    assert_eq!(s.temperature_celsius, want(h.composite_c));
    for (i, got) in s.sensors_celsius.iter().enumerate() {
        assert_eq!(
            *got,
            h.sensors_c.get(i).copied().and_then(want),
            "sensor {i}"
        );
    }
    assert_eq!(
        s.available_spare_ratio,
        f64::from(h.available_spare) / 100.0
    );
    assert_eq!(
        s.available_spare_threshold_ratio,
        f64::from(h.spare_threshold) / 100.0
    );
    assert_eq!(s.percentage_used_ratio, f64::from(h.percent_used) / 100.0);
    assert_eq!(s.data_units_read, h.data_units_read);
    assert_eq!(s.data_units_written, h.data_units_written);
    assert_eq!(s.data_read_bytes, h.data_units_read.saturating_mul(512_000));
    assert_eq!(s.host_read_commands, h.host_reads);
    assert_eq!(s.host_write_commands, h.host_writes);
    assert_eq!(s.controller_busy_seconds, h.busy_minutes.saturating_mul(60));
    assert_eq!(s.power_cycles, h.power_cycles);
    assert_eq!(s.power_on_hours, h.power_on_hours);
    assert_eq!(s.unsafe_shutdowns, h.unsafe_shutdowns);
    assert_eq!(s.media_errors, h.media_errors);
    assert_eq!(s.error_log_entries, h.error_entries);
    assert_eq!(
        s.warning_temp_seconds,
        u64::from(h.warning_temp_minutes) * 60
    );
    assert_eq!(
        s.critical_temp_seconds,
        u64::from(h.critical_temp_minutes) * 60
    );
    assert_eq!(s.thermal_transitions, [h.tmt1_count, h.tmt2_count]);
    assert_eq!(s.thermal_seconds, [h.tmt1_seconds, h.tmt2_seconds]);
});
