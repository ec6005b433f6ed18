use super::*;

/// A SMART log with only bytes 239:232 (Operational Lifetime Energy
/// Consumed, NVMe 2.1) set, by offset, not through the layout struct.
fn smart_with_energy(wh: u64) -> SmartLog {
    let mut page = vec![0u8; 512];
    page[232..240].copy_from_slice(&wh.to_le_bytes());
    SmartLog::parse(&page).unwrap()
}

#[test]
fn lifetime_energy_is_served_in_joules_and_absent_when_not_reported() {
    let pages = NvmePages {
        smart: Some(smart_with_energy(1234)),
        ..NvmePages::default()
    };
    // 1234 Wh × 3600 J/Wh.
    assert_eq!(
        reading(&pages).counters.lifetime_energy_joules,
        Some(4_442_400)
    );
    let none = NvmePages {
        smart: Some(smart_with_energy(0)),
        ..NvmePages::default()
    };
    assert_eq!(reading(&none).counters.lifetime_energy_joules, None);
    // The largest value fits: u64::MAX Wh × 3600 in a u128.
    let max = NvmePages {
        smart: Some(smart_with_energy(u64::MAX)),
        ..NvmePages::default()
    };
    assert_eq!(
        reading(&max).counters.lifetime_energy_joules,
        Some(u128::from(u64::MAX) * 3600)
    );
}
