use super::*;
use crate::ata::attributes::Namer;

/// A SMART READ DATA page holding `(id, raw bytes)` attributes.
fn smart(attrs: &[(u8, [u8; 6])]) -> SmartData {
    let mut page = vec![0u8; 512];
    for (i, (id, raw)) in attrs.iter().enumerate() {
        let at = 2 + 12 * i;
        page[at] = *id;
        page[at + 3] = 100;
        page[at + 4] = 100;
        page[at + 5..at + 11].copy_from_slice(raw);
    }
    let sum = page.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    page[511] = sum.wrapping_neg();
    SmartData::parse(&page).unwrap()
}

fn temperature(attrs: &[(u8, [u8; 6])]) -> Option<f64> {
    let pages = SataPages {
        smart: Some(smart(attrs)),
        ..SataPages::default()
    };
    let presets = Namer::builtin().for_drive("QEMU HARDDISK", "2.5+");
    reading(&pages, &presets).temperatures.first().map(|t| t.1)
}

/// A SMART READ DATA page with one attribute at normalized `value`.
fn smart_normalized(id: u8, value: u8) -> SmartData {
    let mut page = vec![0u8; 512];
    page[2] = id;
    page[5] = value;
    page[6] = value;
    let sum = page.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    page[511] = sum.wrapping_neg();
    SmartData::parse(&page).unwrap()
}

/// Intel's definition of AFh Power_Loss_Cap_Test (normalized): 100 the
/// capacitor test passed, 11 tested at an excessive temperature, 1 failed.
#[test]
fn intel_175_is_judged_as_a_test_result_never_as_a_percentage() {
    use crate::health::verdict::{Context, judge_up};
    let presets = Namer::builtin().for_drive("INTEL SSDSC2KB960G8", "XCV10132");
    for (value, failed, problem) in [
        (100, Some(false), false),
        (11, Some(false), false),
        (1, Some(true), true),
        (50, None, false),
    ] {
        let pages = SataPages {
            smart: Some(smart_normalized(175, value)),
            status: Some(SmartStatus::Passed),
            ..SataPages::default()
        };
        let r = reading(&pages, &presets);
        assert_eq!(r.plp_test_failed, failed, "175 at {value}");
        assert_eq!(r.plp_health_ratio, None, "175 at {value} is no percentage");
        let ctx = Context {
            has_plp: Some(true),
            ..Context::default()
        };
        let v = judge_up(&r, ctx);
        let names: Vec<_> = v.problems.iter().map(|p| p.name.as_label()).collect();
        assert_eq!(
            names.contains(&"plp_failed"),
            problem,
            "175 at {value}: {names:?}"
        );
        assert!(
            !names.contains(&"plp_health_low"),
            "175 at {value}: {names:?}"
        );
    }
}

#[test]
fn airflow_temperature_190_is_the_temperature_when_194_is_absent() {
    // QEMU's AHCI disk: 190 raw 1F 00 1F 1F 00 00 = 31 °C (min 31, max 31);
    // smartctl 7.3 reports temperature.current 31 for it.
    assert_eq!(
        temperature(&[(9, [1, 0, 0, 0, 0, 0]), (190, [0x1F, 0, 0x1F, 0x1F, 0, 0])]),
        Some(31.0)
    );
}

/// smartmontools `ata_return_temperature_value`: a value outside
/// 0 < t < 128 is no temperature, and the next attribute is tried.
#[test]
fn an_implausible_194_falls_back_to_190_and_none_gives_no_temperature() {
    let zero_194 = [
        (194, [0, 0, 0, 0, 0, 0]),
        (190, [0x1F, 0, 0x1F, 0x1F, 0, 0]),
    ];
    assert_eq!(temperature(&zero_194), Some(31.0));
    let hot_194 = [
        (194, [200, 0, 0, 0, 0, 0]),
        (190, [0x1F, 0, 0x1F, 0x1F, 0, 0]),
    ];
    assert_eq!(temperature(&hot_194), Some(31.0));
    assert_eq!(temperature(&[(194, [0x80, 0, 0, 0, 0, 0])]), None);
    assert_eq!(temperature(&[(190, [0, 0, 0, 0, 0, 0])]), None);
}

#[test]
fn attribute_194_wins_over_190() {
    let both = [
        (190, [0x1F, 0, 0x1F, 0x1F, 0, 0]),
        (194, [40, 0, 20, 0, 50, 0]),
    ];
    assert_eq!(temperature(&both), Some(40.0));
    let reversed = [
        (194, [40, 0, 20, 0, 50, 0]),
        (190, [0x1F, 0, 0x1F, 0x1F, 0, 0]),
    ];
    assert_eq!(temperature(&reversed), Some(40.0));
}

/// Device Statistics 04h / 06h (defined by ACS) win over attributes 187 /
/// 199 (vendor defined); the attributes count only where the drive lacks
/// the statistic.
#[test]
fn device_statistics_win_over_attributes_187_and_199() {
    let presets = Namer::builtin().for_drive("KINGSTON SEDC600M960G", "SCEKH5.1");
    let attrs = smart(&[(187, [5, 0, 0, 0, 0, 0]), (199, [7, 0, 0, 0, 0, 0])]);
    let both = SataPages {
        smart: Some(attrs.clone()),
        devstat: Some(DeviceStatistics {
            reported_uncorrectable_errors: Some(2),
            interface_crc_errors: Some(3),
            ..DeviceStatistics::default()
        }),
        ..SataPages::default()
    };
    let c = reading(&both, &presets).counters;
    assert_eq!((c.media_errors, c.crc_errors), (Some(2), Some(3)));
    let attributes_only = SataPages {
        smart: Some(attrs),
        devstat: Some(DeviceStatistics::default()),
        ..SataPages::default()
    };
    let c = reading(&attributes_only, &presets).counters;
    assert_eq!((c.media_errors, c.crc_errors), (Some(5), Some(7)));
}

/// SMART READ DATA byte 363 (ACS-3 "Self-test execution status values"):
/// bits 7:4 Fh = a self-test routine in progress (the low nibble is the
/// percent remaining / 10), 0h = the last one completed without error.
#[test]
fn byte_363_high_nibble_f_is_a_self_test_in_progress() {
    let presets = Namer::builtin().for_drive("QEMU HARDDISK", "2.5+");
    for (byte, running) in [(0xF9u8, true), (0xF0, true), (0x00, false), (0x29, false)] {
        let mut page = vec![0u8; 512];
        page[363] = byte;
        let sum = page.iter().fold(0u8, |a, &b| a.wrapping_add(b));
        page[511] = sum.wrapping_neg();
        let pages = SataPages {
            smart: Some(SmartData::parse(&page).unwrap()),
            ..SataPages::default()
        };
        let r = reading(&pages, &presets);
        assert_eq!(
            r.self_test_in_progress,
            Some(running),
            "byte 363 = {byte:#04x}"
        );
    }
    let none = reading(&SataPages::default(), &presets);
    assert_eq!(none.self_test_in_progress, None);
}

fn fixture(dir: &str, file: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/sata/{dir}/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn problems(r: &Reading) -> Vec<(String, String)> {
    let v = crate::health::verdict::judge_up(r, Default::default());
    v.problems
        .iter()
        .map(|p| (p.name.as_label().to_string(), p.reason.clone()))
        .collect()
}

/// Without SMART RETURN STATUS (behind MegaRAID the firmware returns no
/// ATA registers), the verdict makes smartctl's attribute check on the
/// drive's own data and thresholds. The failing fixture's 231 is at 5 with
/// threshold 10, which its meta.toml gives as smartctl's FAILING_NOW; the
/// healthy DC600M has no attribute at or below its threshold.
#[test]
fn without_a_smart_status_the_attributes_against_their_thresholds_decide() {
    let presets = Namer::builtin().for_drive("KINGSTON SEDC600M480G", "SCEKH5.1");
    for (dir, passed, failing) in [
        ("failing/sdd", false, vec![231u8]),
        ("kingston-dc600m/sda", true, vec![]),
    ] {
        let pages = SataPages {
            smart: Some(SmartData::parse(&fixture(dir, "smart-data.bin")).unwrap()),
            thresholds: Some(
                SmartThresholds::parse(&fixture(dir, "smart-thresholds.bin")).unwrap(),
            ),
            status: None,
            ..SataPages::default()
        };
        let r = reading(&pages, &presets);
        assert_eq!(r.smart_passed, Some(passed), "{dir}");
        assert!(r.smart_passed_from_attributes, "{dir}");
        let ids: Vec<u8> = r
            .failing_attributes
            .as_ref()
            .expect("the attribute check was made")
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(ids, failing, "{dir}");
        let got = problems(&r);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert!(!names.contains(&"data_missing"), "{dir}: {got:?}");
        let failed = got.iter().find(|(n, _)| n == "smart_failed");
        if passed {
            assert!(failed.is_none(), "{dir}: {got:?}");
        } else {
            let text = &failed.expect("smart_failed").1;
            assert!(
                text.contains("231 ") && text.contains("at 5, threshold 10"),
                "{text}"
            );
        }
        // The drive's own status, when it could be read, is what
        // `ssd_smart_passed` says; the attributes are still judged.
        let read = SataPages {
            status: Some(SmartStatus::Passed),
            ..pages
        };
        let r = reading(&read, &presets);
        assert_eq!(
            (r.smart_passed, r.smart_passed_from_attributes),
            (Some(true), false)
        );
        let ids: Vec<u8> = r.failing_attributes.unwrap().iter().map(|a| a.id).collect();
        assert_eq!(ids, failing, "{dir}");
    }
}

/// A SATA table as `(id, flags, value, worst, threshold)` rows: the data
/// and thresholds sectors, checksums sealed.
pub(crate) fn table(rows: &[(u8, u16, u8, u8, u8)]) -> (SmartData, SmartThresholds) {
    let mut data = vec![0u8; 512];
    let mut thr = vec![0u8; 512];
    for (i, &(id, flags, value, worst, threshold)) in rows.iter().enumerate() {
        let at = 2 + 12 * i;
        data[at] = id;
        data[at + 1..at + 3].copy_from_slice(&flags.to_le_bytes());
        data[at + 3] = value;
        data[at + 4] = worst;
        thr[at] = id;
        thr[at + 1] = threshold;
    }
    for page in [&mut data, &mut thr] {
        let sum = page[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
        page[511] = sum.wrapping_neg();
    }
    let data = SmartData::parse(&data).unwrap();
    (data, SmartThresholds::parse(&thr).unwrap())
}

/// smartctl's rule (`ata_get_attr_state`, smartmontools `lib/atacmds.cpp`):
/// a threshold of 00h always passes (ATA-3's "always passing" threshold);
/// otherwise a value at or below the threshold fails now, whatever the
/// value (00h and FEh included: smartctl checks no range) and whether
/// pre-failure or old-age; a worst at or below with the value above is
/// `In_the_past`, not failing now. `(id, flags, value, worst, threshold)`.
#[test]
fn the_attribute_check_follows_smartctl_s_rule() {
    let (data, thr) = table(&[
        (5, 0x0033, 10, 10, 10),         // pre-failure at its threshold
        (9, 0x0032, 1, 1, 50),           // old-age below its threshold
        (12, 0x0033, 1, 1, 0),           // threshold 00h: always passing
        (171, 0x0033, 0, 0, 10),         // value 00h: at or below, as smartctl
        (172, 0x0033, 0xFE, 0xFE, 0xFF), // FEh below FFh, as smartctl
        (184, 0x0033, 11, 11, 10),       // above its threshold
        (190, 0x0022, 64, 33, 45),       // worst below: In_the_past only
    ]);
    let presets = Namer::builtin().for_drive("", "");
    let got: Vec<(u8, u8, u8, bool)> = failing_attributes(&data, &thr, &presets)
        .iter()
        .map(|a| (a.id, a.value, a.threshold, a.prefailure))
        .collect();
    assert_eq!(
        got,
        [
            (5, 10, 10, true),
            (9, 1, 50, false),
            (171, 0, 10, true),
            (172, 0xFE, 0xFF, true)
        ]
    );
}

/// A drive that lists an id more than once (a SATADOM lists 1 four times)
/// is served and judged by each id's first entry: one series per id, and
/// a later entry at its threshold is not the attribute's state.
#[test]
fn a_repeated_id_is_served_and_judged_by_its_first_entry() {
    let (data, thr) = table(&[
        (1, 0x000B, 100, 100, 50),
        (9, 0x0012, 100, 100, 0),
        (1, 0x000B, 40, 40, 50),
        (1, 0x000B, 100, 100, 50),
        (1, 0x000B, 100, 100, 50),
    ]);
    let pages = SataPages {
        smart: Some(data),
        thresholds: Some(thr),
        status: Some(SmartStatus::Passed),
        ..SataPages::default()
    };
    let r = reading(&pages, &Namer::builtin().for_drive("", ""));
    let ids: Vec<u8> = r.ata_attributes.iter().map(|a| a.id).collect();
    assert_eq!(ids, [1, 9]);
    assert_eq!(r.ata_attributes[0].value, Some(100));
    assert_eq!(r.failing_attributes, Some(vec![]));
}

/// A Micron P400e whose 202 `Perc_Rated_Life_Used` reads 182 (drivedb.h's
/// m4/C400/P400 entry: the raw value is the percent of the rated life
/// used) is 1.82 used and worn out, not `ok` with its wear unknown.
#[test]
fn a_micron_p400e_at_182_percent_of_its_rated_life_is_worn_out() {
    let presets = Namer::builtin().for_drive("MTFDDAK256MAR-1K1AA", "MA52");
    let pages = SataPages {
        smart: Some(smart(&[(202, [182, 0, 0, 0, 0, 0])])),
        status: Some(SmartStatus::Passed),
        ..SataPages::default()
    };
    let r = reading(&pages, &presets);
    assert_eq!(r.percentage_used_ratio, Some(1.82));
    let names: Vec<String> = problems(&r).into_iter().map(|p| p.0).collect();
    assert!(names.contains(&"wear_out".to_string()), "{names:?}");
}
