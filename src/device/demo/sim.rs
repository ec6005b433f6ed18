//! The simulated fleet's behaviour over time, as pure functions of the
//! seconds since the demo started: what each drive's pages say at `t`, and
//! how its probe latency is distributed.
//!
//! Time is compressed ([`COMPRESSION`]): one real second is one minute of
//! the drive's life, so power-on hours, bytes written and wear move visibly
//! within minutes. Events follow fixed timetables so a new user sees them
//! within the first few minutes, and so tests know when they happen:
//! - the DC2000B-like drive heats up every [`THROTTLE_PERIOD`] seconds
//!   (first at [`THROTTLE_FIRST`]); while it is at or above its 70 °C
//!   warning threshold it throttles, and its probe latency tail spikes;
//! - the client drive loses power without warning every
//!   [`SHUTDOWN_PERIOD`] seconds (first at [`SHUTDOWN_FIRST`]);
//! - the failing drive's media errors rise every [`MEDIA_ERROR_PERIOD`];
//! - the fail-slow drive's pages stay clean while every read is slow
//!   (its latency model is in [`super::latency`]).

use super::ata::{Attr, Stat};
use super::pages::{NvmeHealth, OcpHealth};

/// Simulated seconds of drive life per real second.
pub const COMPRESSION: f64 = 60.0;
/// When the first throttling episode starts, in real seconds.
pub const THROTTLE_FIRST: f64 = 150.0;
pub const THROTTLE_PERIOD: f64 = 300.0;
/// An episode: the temperature climbs for half of it and falls back.
pub const THROTTLE_EPISODE: f64 = 60.0;
/// Peak temperature rise above the drive's idle temperature.
const HEAT_RISE: f64 = 26.0;
const DC2000B_IDLE_C: f64 = 52.0;
const DC2000B_WARNING_C: f64 = 70.0;
pub const SHUTDOWN_FIRST: f64 = 200.0;
pub const SHUTDOWN_PERIOD: f64 = 420.0;
pub const MEDIA_ERROR_PERIOD: f64 = 20.0;

/// The simulated models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Kingston DC2000B-like: NVMe, PLP, OCP log, throttles at 70 °C.
    Dc2000b,
    /// Sabrent Rocket 4.0-like: client NVMe, no PLP, no OCP log.
    Rocket,
    /// Kingston DC600M-like: SATA, PLP, 1 DWPD.
    Dc600m,
    /// A DC2000B-like drive at the end of its life.
    Failing,
    /// A Seagate Nytro 3000-like SAS SSD: dual-port 12 Gb/s, 3 DWPD.
    SasSsd,
    /// A DC2000B-like drive that is fail-slow: SMART clean, never hot, every
    /// read several times slower than its peers'.
    FailSlow,
}

/// How many times `t` has passed `first + k·period + offset` (k ≥ 0), and
/// the total time spent inside `[first + k·period + offset, … + len)`.
pub fn timetable(t: f64, first: f64, period: f64, offset: f64, len: f64) -> (u64, f64) {
    let start = first + offset;
    if t < start {
        return (0, 0.0);
    }
    let k = ((t - start) / period).floor();
    let inside = (t - start - k * period).min(len);
    (k as u64 + 1, k * len + inside)
}

/// The DC2000B-like drive's composite temperature at `t`: idle with a slow
/// wobble, plus the heating episodes.
pub fn dc2000b_temperature(t: f64) -> f64 {
    let wobble = (t / 37.0).sin();
    let heat = if t >= THROTTLE_FIRST {
        let s = (t - THROTTLE_FIRST) % THROTTLE_PERIOD;
        if s < THROTTLE_EPISODE {
            let half = THROTTLE_EPISODE / 2.0;
            HEAT_RISE * (1.0 - (s - half).abs() / half)
        } else {
            0.0
        }
    } else {
        0.0
    };
    DC2000B_IDLE_C + wobble + heat
}

/// Within an episode the drive throttles while the heating alone has taken
/// it to within a degree (the wobble) of its 70 °C warning threshold: the
/// rise and fall are linear, so that is a window centred on the peak.
pub const THROTTLE_ON: f64 =
    THROTTLE_EPISODE / 2.0 * (DC2000B_WARNING_C - 1.0 - DC2000B_IDLE_C) / HEAT_RISE;
const THROTTLE_LEN: f64 = THROTTLE_EPISODE - 2.0 * THROTTLE_ON;

/// `(episodes that reached throttling, real seconds spent throttling,
/// throttling now)`.
pub fn throttling(t: f64) -> (u64, f64, bool) {
    let (n, secs) = timetable(
        t,
        THROTTLE_FIRST,
        THROTTLE_PERIOD,
        THROTTLE_ON,
        THROTTLE_LEN,
    );
    let now = n > 0 && {
        let s = (t - THROTTLE_FIRST) % THROTTLE_PERIOD;
        (THROTTLE_ON..THROTTLE_ON + THROTTLE_LEN).contains(&s)
    };
    (n, secs, now)
}

/// Simulated hours that pass in `t` real seconds.
fn hours(t: f64) -> u128 {
    (t * COMPRESSION / 3600.0) as u128
}

/// The SMART / Health log and the OCP log of an NVMe model at `t`.
pub fn nvme(model: Model, t: f64) -> (NvmeHealth, Option<OcpHealth>) {
    let t = t.max(0.0);
    // Host traffic in data units (512 000 bytes) per real second: a drive
    // writing ~300 MB/s of simulated time.
    let written = (t * 35_000.0) as u128;
    let read = (t * 50_000.0) as u128;
    match model {
        Model::Dc2000b => dc2000b(t, &NVME0),
        Model::FailSlow => dc2000b(t, &NVME3),
        Model::Rocket => {
            let (shutdowns, _) = timetable(t, SHUTDOWN_FIRST, SHUTDOWN_PERIOD, 0.0, 0.0);
            let temp = 45.0 + 2.0 * (t / 53.0).sin();
            let h = NvmeHealth {
                critical_warning: 0,
                composite_c: temp,
                sensors_c: vec![temp + 3.0],
                available_spare: 100,
                spare_threshold: 5,
                percent_used: 12 + (t / 900.0) as u8,
                data_units_read: 845_000_000 + read,
                data_units_written: 610_000_000 + written,
                host_reads: 3_912_345_678 + read * 8,
                host_writes: 5_123_456_789 + written * 8,
                busy_minutes: 21_450 + (t * 0.2) as u128,
                power_cycles: 1_284 + u128::from(shutdowns),
                power_on_hours: 14_220 + hours(t),
                unsafe_shutdowns: 37 + u128::from(shutdowns),
                error_entries: 1_876,
                warning_temp_minutes: 3,
                ..NvmeHealth::default()
            };
            (h, None)
        }
        Model::Failing => failing_nvme(t),
        // Not an NVMe drive: nothing to report.
        Model::Dc600m | Model::SasSsd => (NvmeHealth::default(), None),
    }
}

/// What sets one healthy DC2000B-like drive apart from another: its life so
/// far (hours, data units read and written, wear) and whether it heats up.
pub struct Dc2000bLife {
    pub throttles: bool,
    pub power_on_hours: u128,
    pub percent_used: u8,
    pub data_units_read: u128,
    pub data_units_written: u128,
    /// Read and write commands completed.
    pub host_reads: u128,
    pub host_writes: u128,
    pub power_cycles: u128,
}

/// `nvme0`: a year in, heating up and throttling on the timetable.
pub const NVME0: Dc2000bLife = Dc2000bLife {
    throttles: true,
    power_on_hours: 8_760,
    percent_used: 3,
    data_units_read: 58_000_000,
    data_units_written: 32_000_000,
    host_reads: 3_100_000_000,
    host_writes: 412_345_678,
    power_cycles: 57,
};

/// `nvme3`: younger, cool, and by its pages healthy (it is fail-slow).
pub const NVME3: Dc2000bLife = Dc2000bLife {
    throttles: false,
    power_on_hours: 5_110,
    percent_used: 2,
    data_units_read: 31_000_000,
    data_units_written: 19_000_000,
    host_reads: 1_700_000_000,
    host_writes: 240_000_000,
    power_cycles: 23,
};

/// A healthy DC2000B-like drive's SMART / Health and OCP logs at `t`.
fn dc2000b(t: f64, life: &Dc2000bLife) -> (NvmeHealth, Option<OcpHealth>) {
    // ~300 MB/s of simulated time, as `nvme` says
    let written = (t * 35_000.0) as u128;
    let read = (t * 50_000.0) as u128;
    let (episodes, hot, now) = if life.throttles {
        throttling(t)
    } else {
        (0, 0.0, false)
    };
    let temp = if life.throttles {
        dc2000b_temperature(t)
    } else {
        DC2000B_IDLE_C - 4.0 + (t / 43.0).sin()
    };
    let units_read = life.data_units_read + read;
    let units_written = life.data_units_written + written;
    let h = NvmeHealth {
        critical_warning: 0,
        composite_c: temp,
        sensors_c: vec![temp - 3.0, temp + 4.0],
        available_spare: 100,
        spare_threshold: 10,
        percent_used: life.percent_used + (t / 600.0) as u8,
        data_units_read: units_read,
        data_units_written: units_written,
        host_reads: life.host_reads + read * 8,
        host_writes: life.host_writes + written * 8,
        busy_minutes: 7_321 + (t * 0.3) as u128,
        power_cycles: life.power_cycles,
        power_on_hours: life.power_on_hours + hours(t),
        unsafe_shutdowns: 4,
        media_errors: 0,
        error_entries: 2,
        warning_temp_minutes: 95 + (hot * COMPRESSION / 60.0) as u32,
        critical_temp_minutes: 0,
        tmt1_count: 12 + episodes as u32,
        tmt2_count: 3,
        tmt1_seconds: 4_800 + (hot * COMPRESSION) as u32,
        tmt2_seconds: 600,
    };
    let ocp = OcpHealth {
        // write amplification 1.1
        media_written_bytes: units_written * 512_000 * 11 / 10,
        media_read_bytes: units_read * 512_000,
        bad_user_blocks: 14,
        bad_system_blocks: 2,
        soft_ecc: 31,
        throttle_events: (15 + episodes).min(255) as u8,
        throttling: now,
        pcie_correctable: 7,
        capacitor_health: 100,
        plp_starts: 4,
        // 16 dies, 1 may fail, none has
        dies: Some((16, 1, 0)),
        ..OcpHealth::default()
    };
    (h, Some(ocp))
}

/// The failing drive: spare below threshold, worn out to 99 %, capacitors
/// degraded, running hot, media errors rising.
fn failing_nvme(t: f64) -> (NvmeHealth, Option<OcpHealth>) {
    let errors = 23 + (t / MEDIA_ERROR_PERIOD) as u128;
    let temp = 72.0 + (t / 29.0).sin();
    let h = NvmeHealth {
        // available spare, temperature, reliability, volatile memory backup
        critical_warning: 0x01 | 0x02 | 0x04 | 0x10,
        composite_c: temp,
        sensors_c: vec![temp - 2.0, temp + 5.0],
        available_spare: 8,
        spare_threshold: 10,
        percent_used: 99,
        data_units_read: 1_562_500_000 + (t * 20_000.0) as u128,
        data_units_written: 1_093_750_000 + (t * 10_000.0) as u128,
        host_reads: 9_876_543_210 + (t * 160_000.0) as u128,
        host_writes: 7_654_321_098 + (t * 80_000.0) as u128,
        busy_minutes: 96_000 + (t * 0.5) as u128,
        power_cycles: 212,
        power_on_hours: 39_000 + hours(t),
        unsafe_shutdowns: 19,
        media_errors: errors,
        error_entries: 288 + errors,
        warning_temp_minutes: 4_310 + t as u32,
        critical_temp_minutes: 12,
        tmt1_count: 846,
        tmt2_count: 97,
        tmt1_seconds: 388_000,
        tmt2_seconds: 41_000,
    };
    let ocp = OcpHealth {
        media_written_bytes: (1_093_750_000 + (t * 10_000.0) as u128) * 512_000 * 7 / 5,
        media_read_bytes: (1_562_500_000 + (t * 20_000.0) as u128) * 512_000,
        bad_user_blocks: 1_873 + errors as u64,
        bad_system_blocks: 37,
        uncorrectable_reads: errors as u64,
        soft_ecc: 90_211 + (t * 3.0) as u64,
        throttle_events: 255,
        throttling: false,
        pcie_correctable: 1_204,
        incomplete_shutdowns: 19,
        capacitor_health: 35,
        plp_starts: 19,
        // 64 dies, 2 may fail, and 2 have: at the tolerance
        dies: Some((64, 2, 2)),
    };
    (h, Some(ocp))
}

/// GiB written by the SATA drive's host in `t` real seconds (~300 MB/s of
/// simulated time).
fn sata_gib(t: f64) -> u64 {
    (t * 17.0) as u64
}

/// The DC600M-like drive's SMART attributes at `t` (the ids and names of
/// `shared/reference/drives.md`).
pub fn dc600m_attributes(t: f64) -> Vec<Attr> {
    const OLD: u16 = 0x0032;
    const PRE: u16 = 0x0033;
    let t = t.max(0.0);
    let gib = sata_gib(t);
    let life_left = 97u8.saturating_sub((t / 1200.0) as u8);
    let temp = dc600m_temperature(t);
    let mut temp_attr = Attr::counter(194, 0x0022, temp, 0, u64::from(temp));
    // Kingston tempminmax raw layout: current, 0, highest, 0, lowest, 0
    temp_attr.raw = [temp, 0, 55, 0, 21, 0];
    temp_attr.worst = 55;
    vec![
        Attr::counter(1, OLD, 100, 0, 0),
        Attr::counter(9, OLD, 100, 0, 17_520 + hours(t) as u64),
        Attr::counter(12, OLD, 100, 0, 61),
        Attr::counter(170, PRE, 100, 10, 27),
        Attr::counter(187, OLD, 100, 0, 0),
        Attr::counter(192, OLD, 100, 0, 5),
        temp_attr,
        Attr::counter(195, PRE, 100, 10, 0),
        Attr::counter(199, OLD, 100, 0, 0),
        Attr::counter(207, OLD, 100, 0, 2),
        Attr::counter(231, PRE, life_left, 10, u64::from(life_left)),
        Attr::counter(233, OLD, 100, 0, 385_440 + gib * 12 / 10),
        Attr::counter(241, OLD, 100, 0, 350_400 + gib),
        Attr::counter(242, OLD, 100, 0, 700_800 + 2 * gib),
    ]
}

/// The DC600M-like drive's temperature, °C.
pub fn dc600m_temperature(t: f64) -> u8 {
    (38.0 + 1.5 * (t / 41.0).sin()).round() as u8
}

/// The DC600M-like drive's Device Statistics pages at `t`: `(page, stats)`.
pub fn dc600m_devstat(t: f64) -> Vec<(u8, Vec<Stat>)> {
    const GIB_SECTORS: i64 = (1 << 30) / 512;
    let t = t.max(0.0);
    let gib = sata_gib(t) as i64;
    let used = 3 + (t / 1200.0) as i64;
    vec![
        (
            0x01,
            vec![
                (0x08, 4, 61),
                (0x10, 4, 17_520 + hours(t) as i64),
                (0x18, 6, (350_400 + gib) * GIB_SECTORS),
                (0x20, 6, 11_481_600_000 + gib * 8_000),
                (0x28, 6, (700_800 + 2 * gib) * GIB_SECTORS),
                (0x30, 6, 18_372_000_000 + gib * 16_000),
            ],
        ),
        (0x04, vec![(0x08, 4, 0), (0x10, 4, 0)]),
        (
            0x05,
            vec![
                (0x08, 0, i64::from(dc600m_temperature(t))),
                (0x20, 0, 55),
                (0x28, 0, 21),
                (0x50, 4, 0),
                (0x58, 0, 70),
            ],
        ),
        (0x06, vec![(0x08, 4, 64), (0x10, 4, 0), (0x18, 4, 0)]),
        (0x07, vec![(0x08, 1, used)]),
    ]
}

/// What the SAS SSD's log pages say at `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SasHealth {
    pub temperature_c: u8,
    pub reference_c: u8,
    pub power_on_minutes: u32,
    pub read_bytes: u64,
    pub written_bytes: u64,
    pub corrected: [u64; 3],
    pub percentage_used: u8,
    pub start_stop_cycles: u32,
    pub grown_defects: u32,
    /// One phy of port A: invalid dwords, disparity, sync losses, resets.
    pub phy_errors: [u32; 4],
}

/// The SAS SSD at `t`: 11 000 h in, writing 120 MB/s and reading twice
/// that (compressed), its read ECC correcting now and then, its phy seeing
/// an invalid dword every ten minutes — a healthy drive.
pub fn sas_ssd(t: f64) -> SasHealth {
    let t = t.max(0.0);
    let life = t * COMPRESSION;
    let written = 400_000_000_000_000 + (life * 120e6) as u64;
    SasHealth {
        temperature_c: (34.0 + 2.0 * (t / 53.0).sin()).round() as u8,
        reference_c: 70,
        power_on_minutes: 660_000 + (life / 60.0) as u32,
        read_bytes: 2 * written,
        written_bytes: written,
        corrected: [1_200 + (t / 30.0) as u64, 0, 37],
        percentage_used: 12 + (t / 1800.0) as u8,
        start_stop_cycles: 41,
        grown_defects: 3,
        phy_errors: [2 + (t / 600.0) as u32, 2, 1, 0],
    }
}
