use std::time::{Duration, SystemTime};

use super::super::{History, MAX_POINTS, Tracked};
use super::{RestoreError, SavedHistory, SavedSeries};
use crate::reading::Reading;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z
const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

fn reading(media: u128, unsafe_shutdowns: u128, used: f64, temp: f64) -> Reading {
    let mut r = Reading {
        percentage_used_ratio: Some(used),
        temperatures: vec![("composite".into(), temp)],
        throttle_transitions: Some([3, 0]),
        ..Reading::default()
    };
    r.counters.media_errors = Some(media);
    r.counters.unsafe_shutdowns = Some(unsafe_shutdowns);
    r
}

/// Through JSON, as the state file carries it.
fn through_json(h: &History) -> SavedHistory {
    let text = serde_json::to_vec(&h.saved()).unwrap();
    serde_json::from_slice(&text).unwrap()
}

#[test]
fn a_history_survives_a_round_trip_through_json() {
    let window = Some(Duration::from_secs(DAY));
    let mut h = History::new(window);
    h.record(at(T0), &reading(0, 4, 0.03, 31.0));
    h.record(at(T0 + HOUR), &reading(2, 4, 0.03, 45.0));
    let mut r = reading(2, 5, 0.04, 28.0);
    r.throttle_transitions = Some([4, 0]);
    h.record(at(T0 + 2 * HOUR), &r);
    let back = History::restore(window, &through_json(&h), at(T0 + 3 * HOUR)).unwrap();
    assert_eq!(back.saved(), h.saved());
    for t in [
        Tracked::MediaErrors,
        Tracked::UnsafeShutdowns,
        Tracked::ThrottleEvents,
    ] {
        assert_eq!(back.increase_since(t), h.increase_since(t), "{t:?}");
    }
    assert_eq!(back.wear_span(), h.wear_span());
    assert_eq!(back.last_throttle(), Some(at(T0 + 2 * HOUR)));
    assert_eq!(back.temperature_range(), Some((28.0, 45.0)));
    assert_eq!(back.first_seen(), Some(at(T0)));
}

#[test]
fn full_width_counters_survive_json() {
    let mut h = History::new(None);
    h.record(at(T0), &reading(u128::MAX - 1, 0, 0.0, 30.0));
    h.record(at(T0 + HOUR), &reading(u128::MAX, 0, 0.0, 30.0));
    let back = History::restore(None, &through_json(&h), at(T0 + DAY)).unwrap();
    assert_eq!(back.latest_values()[0], ("media errors", u128::MAX));
    assert_eq!(back.increase(Tracked::MediaErrors), Some(1));
}

#[test]
fn a_rise_while_away_is_judged_against_the_saved_baseline() {
    let window = Some(Duration::from_secs(DAY));
    let mut before = History::new(window);
    before.record(at(T0), &reading(0, 4, 0.03, 30.0));
    // Two days away; the drive logged 3 media errors meanwhile.
    let now = at(T0 + 2 * DAY);
    let mut after = History::restore(window, &through_json(&before), now).unwrap();
    after.record(now, &reading(3, 4, 0.03, 30.0));
    assert_eq!(after.increase(Tracked::MediaErrors), Some(3));
    assert_eq!(after.increase(Tracked::UnsafeShutdowns), Some(0));
    // What a fresh start sees instead: nothing.
    let mut fresh = History::new(window);
    fresh.record(now, &reading(3, 4, 0.03, 30.0));
    assert_eq!(fresh.increase(Tracked::MediaErrors), Some(0));
}

#[test]
fn a_drop_while_away_is_a_reset_and_a_new_baseline() {
    let mut before = History::new(None);
    before.record(at(T0), &reading(10, 4, 0.03, 30.0));
    let mut after = History::restore(None, &through_json(&before), at(T0 + DAY)).unwrap();
    after.record(at(T0 + DAY), &reading(2, 4, 0.03, 30.0));
    assert_eq!(after.increase(Tracked::MediaErrors), Some(0));
    after.record(at(T0 + DAY + HOUR), &reading(3, 4, 0.03, 30.0));
    assert_eq!(after.increase(Tracked::MediaErrors), Some(1));
}

#[test]
fn the_wear_span_reaches_across_a_restart() {
    let mut before = History::new(None);
    before.record(at(T0), &reading(0, 0, 0.03, 30.0));
    let mut after = History::restore(None, &through_json(&before), at(T0 + 8 * DAY)).unwrap();
    after.record(at(T0 + 8 * DAY), &reading(0, 0, 0.04, 30.0));
    assert_eq!(
        after.wear_span(),
        Some(((at(T0), 0.03), (at(T0 + 8 * DAY), 0.04)))
    );
}

fn series(points: &[(u64, u128, u128)]) -> SavedHistory {
    SavedHistory {
        media_errors: SavedSeries {
            first_seen_ms: None,
            points: points.to_vec(),
        },
        ..SavedHistory::default()
    }
}

#[test]
fn an_inconsistent_history_is_refused() {
    let t = T0 * 1000;
    let now = at(T0 + DAY);
    let cases = [
        (
            series(&[(t + 1000, 1, 0), (t, 2, 1)]),
            RestoreError::Order("media errors"),
        ),
        (
            series(&[(t, 1, 0), (t + 1000, 5, 3)]),
            RestoreError::Rise("media errors"),
        ),
        (
            series(&[(t + 2 * DAY * 1000, 1, 0)]),
            RestoreError::Future("media errors"),
        ),
        (
            series(
                &(0..=MAX_POINTS as u64)
                    .map(|i| (t + i, u128::from(i), u128::from(i)))
                    .collect::<Vec<_>>(),
            ),
            RestoreError::TooManyPoints("media errors"),
        ),
        (
            SavedHistory {
                wear_latest: Some((t, 3.0)),
                ..SavedHistory::default()
            },
            RestoreError::Range("wear latest", 3.0),
        ),
        (
            SavedHistory {
                temperature: Some((40.0, 20.0)),
                ..SavedHistory::default()
            },
            RestoreError::Order("temperature"),
        ),
        (
            SavedHistory {
                temperature: Some((-300.0, 20.0)),
                ..SavedHistory::default()
            },
            RestoreError::Range("temperature", -300.0),
        ),
        (
            SavedHistory {
                latest_ms: Some(t + 2 * DAY * 1000),
                ..SavedHistory::default()
            },
            RestoreError::Future("latest"),
        ),
    ];
    for (saved, want) in cases {
        assert_eq!(History::restore(None, &saved, now).unwrap_err(), want);
    }
    // A thinned series (rise larger than its kept values show) is fine,
    // and so is a time a little past now (the clock stepped back).
    let ok = series(&[(t, 1, 0), (t + 1000, 2, 5), (ms_of(now) + 60_000, 2, 5)]);
    assert!(History::restore(None, &ok, now).is_ok());
}

fn ms_of(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn sas_phy_errors_survive_a_restart_and_a_rise_while_away_counts() {
    use crate::reading::{SasPhyErrors, ScsiReading};
    let sas = |invalid_dwords: u64| Reading {
        scsi: Some(ScsiReading {
            sas_phys: vec![SasPhyErrors {
                phy: "0".into(),
                counts: [invalid_dwords, 0, 0, 0],
            }],
            ..ScsiReading::default()
        }),
        ..Reading::default()
    };
    let window = Some(Duration::from_secs(DAY));
    let mut before = History::new(window);
    before.record(at(T0), &sas(7));
    let now = at(T0 + 2 * HOUR);
    let mut after = History::restore(window, &through_json(&before), now).unwrap();
    assert_eq!(after.latest_values(), vec![("phy errors", 7)]);
    after.record(now, &sas(9));
    assert_eq!(after.increase(Tracked::PhyErrors), Some(2));
}

#[test]
fn telemetry_captures_survive_a_restart_and_a_capture_while_away_counts() {
    use crate::nvme::TelemetryCtrlHeader;
    use crate::nvme::telemetry::TelemetryHeaderPage;
    use crate::reading::nvme_depth::NvmeReading;
    use zerocopy::IntoBytes;
    // Log 08h byte 383, the Controller-Initiated Data Generation Number.
    let nvme = |generation: u8| {
        let mut p = TelemetryHeaderPage::new();
        p.ctrldgn = generation;
        Reading {
            nvme: Some(NvmeReading {
                telemetry: Some(TelemetryCtrlHeader::parse(p.as_bytes()).unwrap()),
                ..NvmeReading::default()
            }),
            ..Reading::default()
        }
    };
    let window = Some(Duration::from_secs(DAY));
    let mut before = History::new(window);
    before.record(at(T0), &nvme(254));
    before.record(at(T0 + HOUR), &nvme(255));
    assert_eq!(before.increase(Tracked::TelemetryCaptures), Some(1));
    let now = at(T0 + 3 * HOUR);
    let mut after = History::restore(window, &through_json(&before), now).unwrap();
    assert_eq!(after.increase(Tracked::TelemetryCaptures), Some(1));
    // Two captures while away, the 8-bit number wrapping: 255 -> 1.
    after.record(now, &nvme(1));
    assert_eq!(after.increase(Tracked::TelemetryCaptures), Some(3));
}

fn with_aer(nonfatal: u64, fatal: u64) -> Reading {
    use crate::device::sysfs::pcie::{AerCounts, AerSeverity, Pcie};
    let aer = [
        (AerSeverity::Nonfatal, nonfatal),
        (AerSeverity::Fatal, fatal),
    ]
    .into_iter()
    .map(|(severity, total)| AerCounts {
        severity,
        total,
        nonzero: Vec::new(),
    })
    .collect();
    Reading {
        pcie: Some(Pcie {
            aer,
            ..Pcie::default()
        }),
        ..reading(0, 0, 0.0, 30.0)
    }
}

/// Within one boot the kernel's AER counts carry on, so a restart of the
/// exporter alone must not make their rise a new baseline (it did: they
/// were not saved). Whether the boot is the same is the loader's to say
/// (`state::record::Payload::same_boot`).
#[test]
fn pcie_error_counts_survive_a_round_trip_and_a_rise_while_away_counts() {
    let mut before = History::new(None);
    before.record(at(T0), &with_aer(1, 0));
    let saved = through_json(&before);
    assert_eq!(saved.pcie_nonfatal.points, [(T0 * 1000, 1, 0)]);
    let mut after = History::restore(None, &saved, at(T0 + HOUR)).unwrap();
    after.record(at(T0 + HOUR), &with_aer(3, 1));
    assert_eq!(after.increase(Tracked::PcieNonfatal), Some(2));
    assert_eq!(after.increase(Tracked::PcieFatal), Some(1));
}
