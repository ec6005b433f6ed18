//! SMART / Health Information log page (LID 02h, 512 bytes), with units
//! converted: Kelvin → °C, percent → ratio, data units → bytes, minutes and
//! hours → seconds. Raw counters are kept where nvme-cli prints them, so
//! values can be compared one to one.

use serde::Serialize;
use zerocopy::little_endian::{U16, U32, U64, U128};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::{SMART_LOG_LEN, kelvin_to_celsius};
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "smart log";

/// One data unit is 1000 × 512 bytes (NVMe Base, Data Units Read).
const DATA_UNIT_BYTES: u128 = 512_000;

/// A critical-warning condition: the `condition` label of
/// `ssd_critical_warning` and what the verdict judges. One enum from the
/// decoder to the metrics, so a typo does not compile and a new condition
/// cannot be left out of the verdict's exhaustive match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Condition {
    AvailableSpare,
    Temperature,
    Reliability,
    ReadOnly,
    VolatileMemoryBackup,
    PmrReadOnly,
}

impl Condition {
    pub const ALL: [Condition; 6] = [
        Condition::AvailableSpare,
        Condition::Temperature,
        Condition::Reliability,
        Condition::ReadOnly,
        Condition::VolatileMemoryBackup,
        Condition::PmrReadOnly,
    ];

    pub fn as_label(self) -> &'static str {
        match self {
            Condition::AvailableSpare => "available_spare",
            Condition::Temperature => "temperature",
            Condition::Reliability => "reliability",
            Condition::ReadOnly => "read_only",
            Condition::VolatileMemoryBackup => "volatile_memory_backup",
            Condition::PmrReadOnly => "pmr_read_only",
        }
    }
}

/// Critical Warning, byte 0 of the SMART log (`NVME_SMART_CW_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CriticalWarning(pub u8);

impl CriticalWarning {
    /// Each condition and its bit: b0 available spare below threshold,
    /// b1 temperature over/under threshold, b2 reliability degraded, b3
    /// media read-only, b4 volatile memory backup device failed (on PLP
    /// drives, inferred to be the capacitor bank), b5 PMR read-only.
    pub const CONDITIONS: [(Condition, u8); 6] = [
        (Condition::AvailableSpare, 0),
        (Condition::Temperature, 1),
        (Condition::Reliability, 2),
        (Condition::ReadOnly, 3),
        (Condition::VolatileMemoryBackup, 4),
        (Condition::PmrReadOnly, 5),
    ];

    /// The endurance group critical warning summary (byte 6): b0 spare,
    /// b2 reliability, b3 read-only.
    pub const ENDURANCE_GROUP_CONDITIONS: [(Condition, u8); 3] = [
        (Condition::AvailableSpare, 0),
        (Condition::Reliability, 2),
        (Condition::ReadOnly, 3),
    ];

    /// Whether `bit` (0..=7) is set; false for bits beyond 7.
    pub fn is_set(&self, bit: u8) -> bool {
        bit < 8 && self.0 & (1 << bit) != 0
    }
}

/// The page as the NVMe Base Specification 2.1 lays it out (Figure 207,
/// SMART / Health Information Log Page; field names as libnvme's
/// `struct nvme_smart_log`). The one definition of these offsets: the
/// decoder reads through it and the demo builds its pages with it. Every
/// multi-byte field is little-endian and unaligned (zerocopy's byte-order
/// types), so the struct is exactly the 512 bytes on the wire.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SmartLogPage {
    /// Byte 0.
    pub critical_warning: u8,
    /// Bytes 2:1, Kelvin.
    pub temperature: U16,
    /// Byte 3, percent.
    pub avail_spare: u8,
    /// Byte 4, percent.
    pub spare_thresh: u8,
    /// Byte 5, percent (255 = over 254).
    pub percent_used: u8,
    /// Byte 6.
    pub endu_grp_crit_warn_sumry: u8,
    pub rsvd7: [u8; 25],
    /// Bytes 47:32, thousands of 512-byte units.
    pub data_units_read: U128,
    /// Bytes 63:48.
    pub data_units_written: U128,
    /// Bytes 79:64.
    pub host_reads: U128,
    /// Bytes 95:80.
    pub host_writes: U128,
    /// Bytes 111:96, minutes.
    pub ctrl_busy_time: U128,
    /// Bytes 127:112.
    pub power_cycles: U128,
    /// Bytes 143:128, hours.
    pub power_on_hours: U128,
    /// Bytes 159:144.
    pub unsafe_shutdowns: U128,
    /// Bytes 175:160.
    pub media_errors: U128,
    /// Bytes 191:176.
    pub num_err_log_entries: U128,
    /// Bytes 195:192, minutes.
    pub warning_temp_time: U32,
    /// Bytes 199:196, minutes.
    pub critical_comp_time: U32,
    /// Bytes 215:200, Kelvin, 0 = not implemented.
    pub temp_sensor: [U16; 8],
    /// Bytes 219:216.
    pub thm_temp1_trans_count: U32,
    /// Bytes 223:220.
    pub thm_temp2_trans_count: U32,
    /// Bytes 227:224, seconds.
    pub thm_temp1_total_time: U32,
    /// Bytes 231:228, seconds.
    pub thm_temp2_total_time: U32,
    /// Bytes 239:232, watt-hours (NVMe 2.1; 0 = not reported).
    pub operational_lifetime_energy_consumed: U64,
    /// Bytes 243:240.
    pub interval_power_measurement: U32,
    pub rsvd244: [u8; 268],
}

const _: () = assert!(size_of::<SmartLogPage>() == SMART_LOG_LEN);

impl SmartLogPage {
    /// A page of zeros, to fill in.
    pub fn zeroed() -> Self {
        <Self as zerocopy::FromZeros>::new_zeroed()
    }
}

/// The SMART / Health Information log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmartLog {
    /// Byte 0: critical warning bits.
    pub critical_warning: CriticalWarning,
    /// Bytes 2:1: composite temperature (K → °C; 0 K = not reported).
    pub temperature_celsius: Option<f64>,
    /// Byte 3: available spare, percent / 100.
    pub available_spare_ratio: f64,
    /// Byte 4: available spare threshold, percent / 100.
    pub available_spare_threshold_ratio: f64,
    /// Byte 5: percentage used / 100; may exceed 1 (255 means > 254 %).
    pub percentage_used_ratio: f64,
    /// Byte 6: endurance group critical warning summary (b0 spare, b2
    /// degraded, b3 read-only).
    pub endurance_group_warning: u8,
    /// Bytes 47:32 × 512 000: bytes read by the host; `u128::MAX` if the
    /// product overflows.
    pub data_read_bytes: u128,
    /// Bytes 63:48 × 512 000: bytes written by the host; `u128::MAX` if the
    /// product overflows.
    pub data_written_bytes: u128,
    /// Bytes 47:32: data units read (thousands of 512-byte units, rounded up).
    pub data_units_read: u128,
    /// Bytes 63:48: data units written.
    pub data_units_written: u128,
    /// Bytes 79:64: host read commands completed.
    pub host_read_commands: u128,
    /// Bytes 95:80: host write commands completed.
    pub host_write_commands: u128,
    /// Bytes 111:96: controller busy time, minutes × 60 (saturating).
    pub controller_busy_seconds: u128,
    /// Bytes 127:112: power cycles.
    pub power_cycles: u128,
    /// Bytes 143:128: power-on hours × 3600 (saturating).
    pub power_on_seconds: u128,
    /// Bytes 143:128: power-on hours as reported.
    pub power_on_hours: u128,
    /// Bytes 159:144: unsafe shutdowns (power lost before CC.SHN).
    pub unsafe_shutdowns: u128,
    /// Bytes 175:160: media and data integrity errors.
    pub media_errors: u128,
    /// Bytes 191:176: number of error information log entries over life.
    pub error_log_entries: u128,
    /// Bytes 195:192: minutes at or above WCTEMP and below CCTEMP, × 60.
    pub warning_temp_seconds: u64,
    /// Bytes 199:196: minutes at or above CCTEMP, × 60.
    pub critical_temp_seconds: u64,
    /// Bytes 215:200: temperature sensors 1–8 (K → °C; 0 = not implemented).
    pub sensors_celsius: [Option<f64>; 8],
    /// Bytes 219:216 and 223:220: transitions into TMT1 (light) and TMT2
    /// (heavy) throttling; saturate at FFFFFFFFh.
    pub thermal_transitions: [u32; 2],
    /// Bytes 227:224 and 231:228: total seconds in TMT1 and TMT2 throttling.
    pub thermal_seconds: [u32; 2],
    /// Bytes 239:232: operational lifetime energy consumed, Wh (NVMe 2.1;
    /// 0 = not reported).
    pub lifetime_energy_wh: Option<u64>,
    /// Bytes 243:240: interval power measurement, raw (bits 15:0 value,
    /// 17:16 scale; 0 = not reported).
    pub interval_power_raw: u32,
}

impl SmartLog {
    /// Decodes a 512-byte SMART / Health Information log page.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, SMART_LOG_LEN)?;
        let (p, _) = SmartLogPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
            page: PAGE,
            expected: SMART_LOG_LEN,
            got: buf.len(),
        })?;
        let data_units_read = p.data_units_read.get();
        let data_units_written = p.data_units_written.get();
        let power_on_hours = p.power_on_hours.get();
        let sensors_celsius = p.temp_sensor.map(|k| kelvin_to_celsius(k.get()));
        let energy = p.operational_lifetime_energy_consumed.get();
        Ok(Self {
            critical_warning: CriticalWarning(p.critical_warning),
            temperature_celsius: kelvin_to_celsius(p.temperature.get()),
            available_spare_ratio: percent(p.avail_spare),
            available_spare_threshold_ratio: percent(p.spare_thresh),
            percentage_used_ratio: percent(p.percent_used),
            endurance_group_warning: p.endu_grp_crit_warn_sumry,
            data_read_bytes: units_to_bytes(data_units_read),
            data_written_bytes: units_to_bytes(data_units_written),
            data_units_read,
            data_units_written,
            host_read_commands: p.host_reads.get(),
            host_write_commands: p.host_writes.get(),
            controller_busy_seconds: p.ctrl_busy_time.get().saturating_mul(60),
            power_cycles: p.power_cycles.get(),
            power_on_seconds: power_on_hours.saturating_mul(3600),
            power_on_hours,
            unsafe_shutdowns: p.unsafe_shutdowns.get(),
            media_errors: p.media_errors.get(),
            error_log_entries: p.num_err_log_entries.get(),
            warning_temp_seconds: u64::from(p.warning_temp_time.get()) * 60,
            critical_temp_seconds: u64::from(p.critical_comp_time.get()) * 60,
            sensors_celsius,
            thermal_transitions: [p.thm_temp1_trans_count.get(), p.thm_temp2_trans_count.get()],
            thermal_seconds: [p.thm_temp1_total_time.get(), p.thm_temp2_total_time.get()],
            lifetime_energy_wh: (energy != 0).then_some(energy),
            interval_power_raw: p.interval_power_measurement.get(),
        })
    }
}

fn percent(p: u8) -> f64 {
    f64::from(p) / 100.0
}

fn units_to_bytes(units: u128) -> u128 {
    units.saturating_mul(DATA_UNIT_BYTES)
}

#[cfg(test)]
mod tests;
