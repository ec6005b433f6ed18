//! The demo's pages decoded by the real decoders, and its timetables.
//! Expected values are worked out by hand from the layouts and the
//! timetable constants, never read back from the encoders.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ata::{self, Attr};
use super::latency::{self, Latency};
use super::pages::{self, NvmeHealth, OcpHealth};
use super::sim::{self, Model};
use super::*;
use crate::ata::attributes::Namer;
use crate::ata::devstat::DevstatPage;
use crate::ata::identify::Identify;
use crate::ata::smart::{SmartData, SmartThresholds};
use crate::nvme::{IdCtrl, ocp::OcpSmartLog, smart_log::SmartLog};
use crate::poll::Poller;
use crate::poll::nvme::{NvmePoller, PollPolicy};
use crate::poll::sata::{SataPolicy, SataPoller};

#[test]
fn nvme_smart_log_decodes_to_the_values_put_in() {
    let h = NvmeHealth {
        critical_warning: 0x11,
        composite_c: 70.4,
        sensors_c: vec![60.0],
        available_spare: 8,
        spare_threshold: 10,
        percent_used: 99,
        data_units_written: 3,
        power_on_hours: 2,
        media_errors: (1u128 << 64) + 5,
        tmt1_count: 7,
        tmt1_seconds: 90,
        ..NvmeHealth::default()
    };
    let log = SmartLog::parse(&pages::nvme_smart_log(&h)).unwrap();
    assert_eq!(log.temperature_celsius, Some(70.0)); // 343 K
    assert_eq!(log.sensors_celsius[0], Some(60.0));
    assert_eq!(log.sensors_celsius[1], None);
    assert_eq!(log.available_spare_ratio, 0.08);
    assert_eq!(log.available_spare_threshold_ratio, 0.10);
    assert_eq!(log.percentage_used_ratio, 0.99);
    assert_eq!(log.data_written_bytes, 1_536_000);
    assert_eq!(log.power_on_seconds, 7_200);
    assert_eq!(log.media_errors, 18_446_744_073_709_551_621);
    assert_eq!(log.thermal_transitions, [7, 0]);
    assert_eq!(log.thermal_seconds, [90, 0]);
    assert!(log.critical_warning.is_set(0) && log.critical_warning.is_set(4));
    assert!(!log.critical_warning.is_set(2));
}

#[test]
fn ocp_log_passes_the_guid_check_and_decodes() {
    let o = OcpHealth {
        media_written_bytes: 5_000,
        throttle_events: 16,
        throttling: true,
        capacitor_health: 35,
        plp_starts: 4,
        bad_user_blocks: 0x0102_0304_0506,
        ..OcpHealth::default()
    };
    let log = OcpSmartLog::parse(&pages::ocp_smart_log(&o)).unwrap();
    assert_eq!(log.physical_media_units_written, 5_000);
    assert_eq!(log.thermal_throttling_events, 16);
    assert_eq!(log.throttling_active(), Some(true));
    assert_eq!(log.capacitor_health_ratio(), Some(0.35));
    assert_eq!(log.plp_start_count, 4);
    assert_eq!(log.bad_user_nand_blocks_raw, 0x0102_0304_0506);
}

#[test]
fn nvme_identify_carries_strings_and_thresholds() {
    let id = IdCtrl::parse(&pages::nvme_identify(&nvme_identity(Model::Rocket))).unwrap();
    assert_eq!(id.model, "Sabrent Rocket 4.0 2TB");
    assert_eq!(id.serial, "DEMO0000000000000002");
    assert_eq!(id.firmware, "RKT401.3");
    assert_eq!(id.wctemp_celsius, Some(75.0)); // 348 K
    assert_eq!(id.cctemp_celsius, Some(80.0));
    assert!(!id.supports_self_test());
    assert_eq!(id.error_log_entries(), 63);
}

#[test]
fn ata_pages_decode_with_valid_checksums() {
    let id = Identify::parse(&ata::ata_identify(&AtaIdentity {
        serial: "DEMO4",
        model: "KINGSTON SEDC600M960G",
        firmware: "SCEKH5.1",
        sectors: 1_875_385_008,
        wwn: 0x5002_6B78_DE00_0004,
    }))
    .unwrap();
    assert_eq!(id.model, "KINGSTON SEDC600M960G");
    assert_eq!(id.serial, "DEMO4");
    assert_eq!(id.checksum_valid, Some(true));
    assert_eq!(id.capacity_bytes, 960_197_124_096); // sectors × 512
    assert_eq!(id.wwn_string().as_deref(), Some("naa.50026b78de000004"));
    assert!(id.is_ssd() && id.smart_enabled && id.gpl_supported);

    let attrs = [Attr::counter(231, 0x0033, 96, 10, 96)];
    let data = SmartData::parse(&ata::ata_smart_data(&attrs)).unwrap();
    let a = data.attribute(231).unwrap();
    assert_eq!((a.value, a.worst, a.raw48()), (96, 96, 96));
    assert!(a.prefailure());
    let thr = SmartThresholds::parse(&ata::ata_smart_thresholds(&attrs)).unwrap();
    assert_eq!(thr.get(231), Some(10));

    let page = DevstatPage::parse(5, &ata::ata_devstat_page(5, &[(0x08, 0, -3)])).unwrap();
    assert_eq!(page.statistic(0x08).map(|s| s.valid()), Some(true));
    assert_eq!(page.get(0x08), Some(0xFD)); // a signed byte, raw
}

#[test]
fn timetable_counts_passes_and_time_inside() {
    // windows [10, 12), [20, 22), ... (first 5, period 10, offset 5, len 2)
    assert_eq!(sim::timetable(9.9, 5.0, 10.0, 5.0, 2.0), (0, 0.0));
    assert_eq!(sim::timetable(11.0, 5.0, 10.0, 5.0, 2.0), (1, 1.0));
    assert_eq!(sim::timetable(15.0, 5.0, 10.0, 5.0, 2.0), (1, 2.0));
    assert_eq!(sim::timetable(21.5, 5.0, 10.0, 5.0, 2.0), (2, 3.5));
}

#[test]
fn the_hot_drive_throttles_only_inside_its_episodes() {
    let peak = sim::THROTTLE_FIRST + sim::THROTTLE_EPISODE / 2.0;
    // idle 52 °C + 26 °C of heat at the peak, ± 1 °C of wobble
    assert!((sim::dc2000b_temperature(peak) - 78.0).abs() <= 1.0);
    assert!(sim::dc2000b_temperature(sim::THROTTLE_FIRST - 1.0) < 54.0);
    assert_eq!(sim::throttling(sim::THROTTLE_FIRST - 1.0), (0, 0.0, false));
    let (n, _, now) = sim::throttling(peak);
    assert_eq!((n, now), (1, true));
    // After the first episode: one transition, not throttling, and ~21 s
    // spent throttling: the heat (peak 26 °C) is at or above the 17 °C that
    // takes the 52 °C idle to within 1 °C of 70 °C for 60 × (26 − 17)/26 s.
    let (n, secs, now) = sim::throttling(sim::THROTTLE_FIRST + sim::THROTTLE_EPISODE);
    assert_eq!((n, now), (1, false));
    assert!((secs - 60.0 * 9.0 / 26.0).abs() < 1e-9, "{secs}");
    let (h, ocp) = sim::nvme(Model::Dc2000b, peak);
    assert!(ocp.unwrap().throttling);
    assert_eq!(h.tmt1_count, 13); // 12 before the demo started
    assert!(!sim::nvme(Model::Dc2000b, 0.0).1.unwrap().throttling);
}

#[test]
fn latency_samples_follow_body_tail_and_cap() {
    let l = Latency {
        median: 100e-6,
        sigma: 0.2,
        tail_p: 0.01,
        tail_x: 10.0,
        cap: 0.5e-3,
    };
    // u1 = e^-0.5·… : z = sqrt(-2 ln u1)·cos(2π u2); u2 = 0.25 gives z = 0
    assert!((l.sample(0.5, 0.25, 0.5) - 100e-6).abs() < 1e-12);
    assert!((l.sample(0.5, 0.25, 0.001) - 0.5e-3).abs() < 1e-12); // tail, capped
    let z = (-2.0 * 0.5f64.ln()).sqrt(); // u2 = 0: cos = 1
    assert!((l.sample(0.5, 0.0, 0.5) - 100e-6 * (0.2 * z).exp()).abs() < 1e-12);
    assert!(l.sample(0.0, 0.0, 0.5).is_finite());
}

#[test]
fn the_failing_drive_polls_as_failing_through_the_real_poller() {
    let src = DemoNvme::new(FLEET[2], Instant::now() - Duration::from_secs(40));
    let mut p = NvmePoller::new(Box::new(src), PollPolicy::LIVE);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let id = out.identity.unwrap();
    assert_eq!(id.serial, "DEMO0000000000000003");
    assert_eq!(id.wwn, "eui.0026b7de00000004");
    let r = out.reading.unwrap();
    assert_eq!(r.percentage_used_ratio, Some(0.99));
    assert_eq!(r.available_spare_ratio, Some(0.08));
    assert_eq!(r.plp_health_ratio, Some(0.35));
    assert_eq!(r.self_test_last_result, Some("segments_failed"));
    // 23 at the start, one more every 20 s: 25 after 40 s
    assert_eq!(r.counters.media_errors, Some(25));
    let set: Vec<_> = r
        .critical_warning
        .iter()
        .filter(|c| c.1)
        .map(|c| c.0.as_label())
        .collect();
    assert_eq!(
        set,
        [
            "available_spare",
            "temperature",
            "reliability",
            "volatile_memory_backup"
        ]
    );
}

#[test]
fn the_sata_drive_polls_through_the_real_poller() {
    let src = DemoSata::new(FLEET[3], Instant::now());
    let mut p = SataPoller::new(Box::new(src), Arc::new(Namer::builtin()), SataPolicy::LIVE);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let r = out.reading.unwrap();
    assert_eq!(r.smart_passed, Some(true));
    assert_eq!(r.percentage_used_ratio, Some(0.03)); // devstat 07h
    assert_eq!(r.temperature_warning_celsius, Some(70.0)); // devstat 05h
    // Attribute 195 (Power_Fail_Health) has no public definition: raw only.
    assert_eq!(r.plp_health_ratio, None);
    assert_eq!(r.counters.unsafe_shutdowns, Some(5)); // attribute 192
    assert_eq!(r.counters.power_cycles, Some(61));
    // devstat 01h: 350 400 GiB in 512-byte sectors, plus 17 GiB per real
    // second since the drive was made (one GiB per ~59 ms, so a loaded
    // machine may see one or two more).
    let written = r.counters.host_written_bytes.unwrap();
    assert!(
        (350_400 << 30..=350_402 << 30).contains(&written),
        "{written}"
    );
    assert_eq!(written % (1 << 30), 0);
    let names: Vec<_> = r.ata_attributes.iter().map(|a| a.name.as_str()).collect();
    assert!(names.contains(&"SSD_Life_Left") && names.contains(&"Power_Fail_Health"));
}

#[test]
fn every_client_drive_answers_without_an_ocp_log() {
    let src = DemoNvme::new(FLEET[1], Instant::now());
    let mut p = NvmePoller::new(Box::new(src), PollPolicy::LIVE);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let r = out.reading.unwrap();
    assert_eq!(r.plp_health_ratio, None);
    assert_eq!(r.counters.unsafe_shutdowns, Some(37));
    assert_eq!(r.self_test_last_result, None);
}

/// The SAS SSD's pages through the real SCSI poller. Expected values from
/// `sim::sas_ssd` at t ≈ 0 by hand: 34 °C (34 + 2·sin 0), reference 70 °C,
/// 12 % used, 660 000 min = 39 600 000 s on, 3 grown defects (24 bytes of
/// 8-byte entries, READ DEFECT DATA(12)), phy 0 errors 2/2/1/0 at 12 Gbit/s.
#[test]
fn the_sas_drive_polls_through_the_real_poller() {
    use crate::poll::scsi::{ScsiPolicy, ScsiPoller};
    use crate::reading::ScsiOp;
    let src = DemoScsi::new(FLEET[4], Instant::now());
    let mut p = ScsiPoller::new(Box::new(src), FLEET[4].transport(), ScsiPolicy::LIVE);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let id = out.identity.unwrap();
    assert_eq!(id.transport, Transport::Sas);
    assert_eq!(id.model, "SEAGATE XS800ME70084");
    assert_eq!(id.wwn, "naa.5000c500de000005");
    // (1 562 824 367 + 1) × 512
    assert_eq!(id.capacity_bytes, Some(800_166_076_416));
    let r = out.reading.unwrap();
    assert_eq!(r.temperatures, [("composite".to_string(), 34.0)]);
    // 0Dh's reference temperature: the warning threshold (SPC-5).
    assert_eq!(r.temperature_warning_celsius, Some(70.0));
    assert_eq!(r.temperature_critical_celsius, None);
    assert_eq!(r.percentage_used_ratio, Some(0.12));
    assert_eq!(r.smart_passed, Some(true));
    let on = r.counters.power_on_seconds.unwrap();
    assert!((39_600_000..=39_600_060).contains(&on), "{on}");
    assert_eq!(r.counters.media_errors, Some(0));
    let s = r.scsi.unwrap();
    assert_eq!(s.grown_defects, Some(3));
    assert_eq!(s.start_stop_cycles, Some(41));
    assert_eq!(s.errors_corrected[0], (ScsiOp::Read, 1_200));
    assert_eq!(s.sas_phys.len(), 1);
    assert_eq!(s.sas_phys[0].counts, [2, 2, 1, 0]);
    assert_eq!(s.sas_link_rates, [("0".to_string(), 12_000_000_000)]);
}

/// The p99 of `secs` seconds of `model`'s probe reads at the demo's 50 per
/// second, from `t0` (a fixed seed: the same every run).
fn window_p99(model: Model, t0: f64, secs: f64, rng: &mut fastrand::Rng) -> f64 {
    let n = (secs * 50.0) as usize;
    let mut v: Vec<f64> = (0..n)
        .map(|i| {
            let t = t0 + i as f64 / 50.0;
            latency::latency(model, t).sample(1.0 - rng.f64(), rng.f64(), rng.f64())
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[(n as f64 * 0.99).ceil() as usize - 1]
}

/// The fleet rules compare each DC2000B-like drive's 2-minute p99 with the
/// median of the three (alerts/fleet.rules.yml, `SsdFailSlow` at 5 ×): the
/// fail-slow nvme3 must stay ≥ 5 × with room for the histogram's bucket
/// resolution (≤ 25 %), also over a window holding nvme0's throttling spike;
/// nvme0 and nvme2 must stay far below.
#[test]
fn the_fail_slow_drive_stands_out_from_its_peers_median() {
    let mut rng = fastrand::Rng::with_seed(27);
    let spike = sim::THROTTLE_FIRST + sim::THROTTLE_EPISODE / 2.0 - 60.0;
    for t0 in [10.0, spike] {
        let nvme0 = window_p99(Model::Dc2000b, t0, 120.0, &mut rng);
        let nvme2 = window_p99(Model::Failing, t0, 120.0, &mut rng);
        let nvme3 = window_p99(Model::FailSlow, t0, 120.0, &mut rng);
        let mut all = [nvme0, nvme2, nvme3];
        all.sort_by(f64::total_cmp);
        let median = all[1];
        let ratios = [nvme0 / median, nvme2 / median, nvme3 / median];
        assert!(ratios[2] >= 6.5, "t0 {t0}: p99 {all:?}, ratios {ratios:?}");
        assert!(ratios[0] <= 1.0 && ratios[1] <= 1.0, "t0 {t0}: {ratios:?}");
    }
    // Its pages say nothing is wrong: no warning bit, no throttling, cool.
    let (h, ocp) = sim::nvme(Model::FailSlow, 150.0 + 30.0);
    assert_eq!(h.critical_warning, 0);
    assert!(h.composite_c < 50.0, "{}", h.composite_c);
    assert!(!ocp.unwrap().throttling);
}

#[test]
fn the_simulated_pcie_links_are_degraded_only_on_the_failing_drive() {
    use super::pcie;
    use crate::device::sysfs::pcie::AerSeverity;
    let link = |m| pcie::pcie(m, 0.0).expect("an NVMe model has a link").link;
    assert_eq!(link(Model::Failing).degraded(), (false, true));
    assert_eq!(link(Model::Failing).current_width, Some(2));
    assert_eq!(link(Model::Dc2000b).degraded(), (false, false));
    assert_eq!(link(Model::FailSlow).degraded(), (false, false));
    // A Gen4 drive in a Gen3 slot runs Gen3 as built: not degraded.
    let rocket = link(Model::Rocket);
    assert_eq!(rocket.current_speed, Some(8_000_000_000));
    assert_eq!(rocket.max_speed, Some(16_000_000_000));
    assert_eq!(rocket.degraded(), (false, false));
    assert!(pcie::pcie(Model::Dc600m, 0.0).is_none());
    assert!(pcie::pcie(Model::SasSsd, 0.0).is_none());
    // Non-fatal errors on the failing drive: the first at 10 s, then one
    // every 30 s (10, 40, 70 → 3 by 70 s); correctable ones on every NVMe
    // drive at 45 s, then every 90 s.
    let total = |m, t, s| {
        pcie::pcie(m, t)
            .unwrap()
            .aer
            .into_iter()
            .find(|a| a.severity == s)
            .unwrap()
            .total
    };
    assert_eq!(total(Model::Failing, 9.9, AerSeverity::Nonfatal), 0);
    assert_eq!(total(Model::Failing, 10.0, AerSeverity::Nonfatal), 1);
    assert_eq!(total(Model::Failing, 70.0, AerSeverity::Nonfatal), 3);
    assert_eq!(total(Model::Dc2000b, 70.0, AerSeverity::Nonfatal), 0);
    assert_eq!(total(Model::Dc2000b, 44.0, AerSeverity::Correctable), 0);
    assert_eq!(total(Model::Dc2000b, 136.0, AerSeverity::Correctable), 2);
    assert_eq!(total(Model::Failing, 1000.0, AerSeverity::Fatal), 0);
}

/// The DC2000B-like drive's depth pages through the real poller, 460 s
/// in. By hand: throttling starts 30 × (70 − 1 − 52) / 26 ≈ 19.6 s into
/// each episode (150 s, then every 300 s), so one thermal excursion has
/// been logged, after the three events of its history.
#[test]
fn the_dc2000b_like_drive_reports_its_depth_pages() {
    let src = DemoNvme::new(FLEET[0], Instant::now() - Duration::from_secs(460));
    let mut p = NvmePoller::new(Box::new(src), PollPolicy::LIVE);
    let out = p.poll();
    assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
    let n = out.reading.unwrap().nvme.unwrap();
    let ids: Vec<u16> = n.endurance_groups.iter().map(|(g, _)| *g).collect();
    assert_eq!(ids, [1]);
    // OCP media bytes are 1.1 × the host's, both rounded up to 10^9
    let wa = n.write_amplification.unwrap();
    assert!((wa - 1.1).abs() < 1e-4, "{wa}");
    let fw = n.firmware.unwrap();
    assert!(fw.activation_pending());
    assert_eq!(fw.slots[1].revision, "EIEK52.0");
    let pel = n.pel.unwrap();
    assert_eq!(pel.events_in_log, 4);
    let count = |label: &str| {
        pel.counts
            .iter()
            .find(|(t, _)| t.as_label() == label)
            .map(|c| c.1)
    };
    assert_eq!(count("thermal_excursion"), Some(1));
    assert_eq!(count("firmware_commit"), Some(1));
    assert_eq!(count("hardware_error"), Some(0)); // supported, none logged
    assert_eq!(pel.timeline[0].kind.as_label(), "thermal_excursion");
    let t = n.telemetry.unwrap();
    assert_eq!((t.data_available, t.generation), (false, 2));
}

/// The failing drive, 410 s in: OCP dies offline at the tolerance (2 of
/// 2), captures at 90 s and 390 s (generation 4 → 6) kept for collection, and a
/// hardware error event at 200 s and 400 s.
#[test]
fn the_failing_drive_has_dies_offline_captures_and_hardware_errors() {
    let src = DemoNvme::new(FLEET[2], Instant::now() - Duration::from_secs(410));
    let mut p = NvmePoller::new(Box::new(src), PollPolicy::LIVE);
    let out = p.poll();
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let n = out.reading.unwrap().nvme.unwrap();
    let ocp = n.ocp.unwrap();
    assert_eq!(
        (ocp.media_dies_offline, ocp.total_die_failure_tolerance),
        (Some(2), Some(2))
    );
    let t = n.telemetry.unwrap();
    assert_eq!((t.data_available, t.generation), (true, 6));
    let pel = n.pel.unwrap();
    let hw = pel
        .counts
        .iter()
        .find(|(t, _)| t.as_label() == "hardware_error");
    assert_eq!(hw.map(|c| c.1), Some(2));
    assert!(n.firmware.is_some_and(|f| !f.activation_pending()));
}
