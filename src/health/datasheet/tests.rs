use super::*;

#[test]
fn dc600m_960gb_is_one_drive_write_per_day_for_five_years() {
    // 1 875 385 008 sectors × 512 = 960 197 124 096 bytes, nominal 960 GB.
    let r = rating_for("KINGSTON SEDC600M960G", Some(960_197_124_096)).unwrap();
    // 960e9 × 365 × 5 = 1.752e15
    assert_eq!(r.tbw_bytes, Some(1.752e15));
    assert_eq!(r.dwpd, Some(1.0));
    assert_eq!(r.warranty_years, Some(5.0));
    assert_eq!(r.has_plp, Some(true));
}

#[test]
fn dc600m_outside_its_stated_range_or_without_capacity_has_only_plp() {
    for cap in [None, Some(240_057_409_536u128)] {
        let r = rating_for("KINGSTON SEDC600M", cap).unwrap();
        assert_eq!(r.tbw_bytes, None);
        assert_eq!(r.dwpd, None);
        assert_eq!(r.has_plp, Some(true));
    }
}

#[test]
fn sabrent_rocket_2tb_is_3600_tbw_without_plp() {
    let r = rating_for("Sabrent Rocket 4.0 2TB", Some(2_000_398_934_016)).unwrap();
    assert_eq!(r.tbw_bytes, Some(3.6e15));
    assert_eq!(r.warranty_years, Some(5.0));
    assert_eq!(r.has_plp, Some(false));
    let one_tb = rating_for("Sabrent Rocket 4.0 1TB", Some(1_000_204_886_016)).unwrap();
    assert_eq!(one_tb.tbw_bytes, None);
}

#[test]
fn dc2000b_has_plp_and_no_invented_endurance() {
    let r = rating_for("KINGSTON SEDC2000BM8960G", Some(960_197_124_096)).unwrap();
    assert_eq!(
        r,
        Rating {
            tbw_bytes: None,
            dwpd: None,
            warranty_years: None,
            has_plp: Some(true),
        }
    );
}

#[test]
fn other_models_are_unknown() {
    assert_eq!(rating_for("KINGSTON SEDC600ME960G", None), None);
    assert_eq!(rating_for("KINGSTON SEDC500M1920G", None), None);
    assert_eq!(rating_for("Samsung SSD 980 PRO 2TB", None), None);
}

#[test]
fn nominal_capacity_inverts_idema() {
    assert_eq!(nominal_gb(960_197_124_096), 960);
    assert_eq!(nominal_gb(480_103_981_056), 480);
    assert_eq!(nominal_gb(7_681_501_126_656), 7680);
    assert_eq!(nominal_gb(32_000_000_000), 32);
}
