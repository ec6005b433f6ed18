use std::time::SystemTime;

use super::*;

const DAY: u64 = 86_400;
const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

fn reading(used: Option<f64>, power_on: Option<u128>) -> Reading {
    let mut r = Reading {
        percentage_used_ratio: used,
        ..Reading::default()
    };
    r.counters.power_on_seconds = power_on;
    r
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= b.abs() * 1e-9)
}

const WEEK: Duration = Duration::from_secs(7 * DAY);

#[test]
fn lifetime_average_ten_percent_a_year_leaves_nine_years() {
    // 8760 h = 31 536 000 s for 10 %: 90 % left at 10 %/year = 9 years
    // = 9 × 31 536 000 = 283 824 000 s.
    let r = reading(Some(0.10), Some(8760 * 3600));
    let h = History::new(None);
    assert!(close(wearout_seconds(&r, &h, WEEK, None), 283_824_000.0));
}

#[test]
fn history_over_a_long_enough_span_wins() {
    // 3 % → 4 % in 30 days: 96 % left at 1 % per 30 days = 96 × 30 days
    // = 2880 days = 248 832 000 s.
    let mut h = History::new(None);
    h.record(at(T0), &reading(Some(0.03), Some(1000 * 3600)));
    let now = reading(Some(0.04), Some(1720 * 3600));
    h.record(at(T0 + 30 * DAY), &now);
    assert!(close(wearout_seconds(&now, &h, WEEK, None), 248_832_000.0));
}

#[test]
fn a_short_or_flat_history_falls_back_to_the_lifetime_average() {
    // 4 % over 1 000 000 power-on seconds: 96 % left = 24 000 000 s.
    let now = reading(Some(0.04), Some(1_000_000));
    let mut short = History::new(None);
    short.record(at(T0), &reading(Some(0.03), Some(1_000)));
    short.record(at(T0 + 6 * DAY), &now);
    assert!(close(
        wearout_seconds(&now, &short, WEEK, None),
        24_000_000.0
    ));
    let mut flat = History::new(None);
    flat.record(at(T0), &now);
    flat.record(at(T0 + 30 * DAY), &now);
    assert!(close(
        wearout_seconds(&now, &flat, WEEK, None),
        24_000_000.0
    ));
}

#[test]
fn no_forecast_without_wear_rate_or_power_on_time() {
    let h = History::new(None);
    let cases = [
        reading(None, Some(3600)),
        reading(Some(0.0), Some(3600)),
        reading(Some(0.05), None),
        reading(Some(0.05), Some(0)),
    ];
    for r in cases {
        assert_eq!(wearout_seconds(&r, &h, WEEK, None), None, "{r:?}");
    }
}

#[test]
fn worn_out_is_zero() {
    let h = History::new(None);
    assert_eq!(
        wearout_seconds(&reading(Some(1.0), None), &h, WEEK, None),
        Some(0.0)
    );
    assert_eq!(
        wearout_seconds(&reading(Some(1.04), None), &h, WEEK, None),
        Some(0.0)
    );
}

#[test]
fn endurance_is_host_writes_over_tbw() {
    let rating = Rating {
        tbw_bytes: Some(3.6e15),
        dwpd: None,
        warranty_years: Some(5.0),
        has_plp: Some(false),
    };
    let mut r = Reading::default();
    let rated = rated_endurance(None, Some(&rating), Some(&r), None).unwrap();
    assert_eq!(rated.source, EnduranceSource::Datasheet);
    assert_eq!(endurance_used(&r, &rated), None);
    // 900 TB of 3600 TB = 0.25; 4500 TB = 1.25 (past the rating).
    r.counters.host_written_bytes = Some(900_000_000_000_000);
    assert_eq!(endurance_used(&r, &rated), Some(0.25));
    r.counters.host_written_bytes = Some(4_500_000_000_000_000);
    assert_eq!(endurance_used(&r, &rated), Some(1.25));
    let unrated = Rating {
        tbw_bytes: None,
        ..rating
    };
    assert_eq!(rated_endurance(None, Some(&unrated), Some(&r), None), None);
}

/// A reading whose one endurance group estimates `estimate` and counts
/// `media` written, in the page's billions of bytes.
fn with_group(estimate: u128, host: u128, media: u128) -> Reading {
    use crate::nvme::EnduranceGroupLog;
    use crate::nvme::endurance_group::EnduranceGroupLogPage;
    use crate::reading::nvme_depth::NvmeReading;
    use zerocopy::IntoBytes;
    let mut p = EnduranceGroupLogPage::zeroed();
    p.endurance_estimate = estimate.into();
    p.data_units_written = host.into();
    p.media_units_written = media.into();
    let g = EnduranceGroupLog::parse(p.as_bytes()).unwrap();
    Reading {
        nvme: Some(NvmeReading {
            endurance_groups: vec![(1, g)],
            ..NvmeReading::default()
        }),
        ..Reading::default()
    }
}

#[test]
fn a_drive_not_in_the_table_is_judged_against_its_own_estimate() {
    // 1 752 000 × 10^9 bytes estimated at WA 1; 219 000 × 10^9 written to
    // the media (host 168 461: WA 1.3): 219 000 / 1 752 000 = 0.125
    let mut r = with_group(1_752_000, 168_461, 219_000);
    r.counters.host_written_bytes = Some(1); // not what counts here
    let rated = rated_endurance(None, None, Some(&r), None).unwrap();
    assert_eq!(rated.source, EnduranceSource::EnduranceGroup);
    assert_eq!(rated.bytes, 1.752e15);
    assert_eq!(endurance_used(&r, &rated), Some(0.125));
    // a user's value wins over everything, and counts host bytes
    let user = rated_endurance(Some(4.0), None, Some(&r), None).unwrap();
    assert_eq!(
        (user.source, endurance_used(&r, &user)),
        (EnduranceSource::Override, Some(0.25))
    );
    // no estimate: nothing to judge against
    assert_eq!(
        rated_endurance(None, None, Some(&with_group(0, 5, 5)), None),
        None
    );
    assert_eq!(rated_endurance(Some(f64::NAN), None, None, None), None);
}

#[test]
fn endurance_forecasts_where_percentage_used_cannot() {
    let h = History::new(None);
    // 0 % used: no percentage forecast. 12.5 % of the endurance in one
    // year (8760 h): 87.5 % left at 12.5 %/year = 7 years = 220 752 000 s.
    let mut r = reading(Some(0.0), Some(8760 * 3600));
    assert!(close(
        wearout_seconds(&r, &h, WEEK, Some(0.125)),
        220_752_000.0
    ));
    r.percentage_used_ratio = None;
    assert!(close(
        wearout_seconds(&r, &h, WEEK, Some(0.125)),
        220_752_000.0
    ));
    assert_eq!(wearout_seconds(&r, &h, WEEK, Some(1.5)), Some(0.0));
    assert_eq!(wearout_seconds(&r, &h, WEEK, None), None);
    // percentage used, when it moves, is the drive's own and wins
    r.percentage_used_ratio = Some(0.10);
    assert!(close(
        wearout_seconds(&r, &h, WEEK, Some(0.5)),
        283_824_000.0
    ));
}

#[test]
fn a_wear_span_across_a_restart_counts_as_history() {
    // The same 3 % → 4 % in 30 days, with the exporter restarted in
    // between: the first sample comes back from the state file, so the
    // observed rate still wins (96 × 30 days = 248 832 000 s), where a
    // fresh start would fall back to the lifetime average.
    let mut before = History::new(None);
    before.record(at(T0), &reading(Some(0.03), Some(1000 * 3600)));
    let saved: crate::health::history::SavedHistory =
        serde_json::from_slice(&serde_json::to_vec(&before.saved()).unwrap()).unwrap();
    let mut after = History::restore(None, &saved, at(T0 + 30 * DAY)).unwrap();
    let now = reading(Some(0.04), Some(1720 * 3600));
    after.record(at(T0 + 30 * DAY), &now);
    assert!(close(
        wearout_seconds(&now, &after, WEEK, None),
        248_832_000.0
    ));
    let mut fresh = History::new(None);
    fresh.record(at(T0 + 30 * DAY), &now);
    // Lifetime: 4 % over 1720 h; 96 % left = 24 × 1720 h = 148 608 000 s.
    assert!(close(
        wearout_seconds(&now, &fresh, WEEK, None),
        148_608_000.0
    ));
}

/// A drive with only an OCP C0h page whose Endurance Estimate (bytes
/// 191:176) is `estimate`.
fn with_ocp(estimate: u128) -> Reading {
    use crate::nvme::OcpSmartLog;
    use crate::nvme::ocp::{OCP_SMART_LOG_GUID, OcpSmartLogPage};
    use crate::reading::nvme_depth::NvmeReading;
    use zerocopy::{FromZeros, IntoBytes};
    let mut p = OcpSmartLogPage::new_zeroed();
    p.endurance_estimate = estimate.into();
    p.log_page_guid = OCP_SMART_LOG_GUID;
    let ocp = OcpSmartLog::parse(p.as_bytes()).unwrap();
    Reading {
        nvme: Some(NvmeReading {
            ocp: Some(ocp),
            ..NvmeReading::default()
        }),
        ..Reading::default()
    }
}

/// illumos `sys/nvme/ocp.h`: the estimate is "total data that can be
/// written to the device in bytes"; a 960 GB drive (TNVMCAP 960 197 124 096)
/// estimating 1 752 TB is rated 1.752e15 bytes, host bytes counting against
/// it; one byte short of one drive write, or 0, is no rating.
#[test]
fn an_ocp_endurance_estimate_rates_a_drive_nothing_else_rates() {
    const TNVMCAP: u128 = 960_197_124_096;
    let mut r = with_ocp(1_752_000_000_000_000);
    r.counters.host_written_bytes = Some(438_000_000_000_000);
    let rated = rated_endurance(None, None, Some(&r), Some(TNVMCAP)).unwrap();
    assert_eq!(
        (rated.source, rated.bytes),
        (EnduranceSource::Ocp, 1.752e15)
    );
    assert_eq!(endurance_used(&r, &rated), Some(0.25));
    // the order: override, datasheet, endurance group, then OCP
    let user = rated_endurance(Some(4e15), None, Some(&r), Some(TNVMCAP)).unwrap();
    assert_eq!(user.source, EnduranceSource::Override);
    let mut both = with_group(1_000_000, 1, 1);
    both.nvme.as_mut().unwrap().ocp = r.nvme.as_ref().unwrap().ocp.clone();
    let group = rated_endurance(None, None, Some(&both), Some(TNVMCAP)).unwrap();
    assert_eq!(group.source, EnduranceSource::EnduranceGroup);
    // below one full drive write: served, not used; 0: not reported
    let short = with_ocp(TNVMCAP - 1);
    assert_eq!(
        rated_endurance(None, None, Some(&short), Some(TNVMCAP)),
        None
    );
    assert_eq!(
        ocp_estimate(&short, Some(TNVMCAP)),
        Some(OcpEstimate::Suspect((TNVMCAP - 1) as f64))
    );
    assert_eq!(
        ocp_estimate(&with_ocp(TNVMCAP), Some(TNVMCAP)),
        Some(OcpEstimate::Usable(TNVMCAP as f64))
    );
    assert_eq!(ocp_estimate(&with_ocp(0), Some(TNVMCAP)), None);
    assert_eq!(
        rated_endurance(None, None, Some(&with_ocp(0)), Some(TNVMCAP)),
        None
    );
}
