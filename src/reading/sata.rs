//! SATA pages mapped onto the unified [`Reading`]: Device Statistics first
//! (a standard layout), else the attribute the drive's family uses for the
//! same meaning (`ata::attributes`), as `shared/reference/metrics.md` says.

use super::{AtaAttribute, FailingAttribute, Identity, Reading};
use crate::ata::attributes::{AttrBytes, DrivePresets, Meaning, MeaningDef, ValueSource};
use crate::ata::error_log::ErrorLogSummary;
use crate::ata::smart::{SmartData, SmartStatus, SmartThresholds};
use crate::ata::{DeviceStatistics, Identify, self_test::SelfTestLog};
use crate::device::discovery::{Kind, Transport};

/// The decoded pages of one SATA poll; a page that was unsupported or
/// failed is `None`.
#[derive(Debug, Clone, Default)]
pub struct SataPages {
    pub identify: Option<Identify>,
    pub smart: Option<SmartData>,
    pub thresholds: Option<SmartThresholds>,
    pub status: Option<SmartStatus>,
    /// Device Statistics, when the drive has the log.
    pub devstat: Option<DeviceStatistics>,
    pub self_test: Option<SelfTestLog>,
    pub error_log: Option<ErrorLogSummary>,
}

pub fn identity(id: &Identify) -> Identity {
    Identity {
        transport: Transport::Sata,
        kind: Kind::Physical,
        model: id.model.clone(),
        serial: id.serial.clone(),
        firmware: id.firmware.clone(),
        wwn: id.wwn_string().unwrap_or_default(),
        capacity_bytes: (id.capacity_bytes > 0).then_some(id.capacity_bytes),
    }
}

/// The unified reading of `pages`, with attributes named by `presets`.
pub fn reading(pages: &SataPages, presets: &DrivePresets) -> Reading {
    let mut r = Reading {
        smart_passed: match pages.status {
            Some(SmartStatus::Passed) => Some(true),
            Some(SmartStatus::Failed) => Some(false),
            _ => None,
        },
        ..Reading::default()
    };
    if let Some(smart) = &pages.smart {
        r.ata_attributes = attributes(smart, pages.thresholds.as_ref(), presets);
        // Byte 363 bits 7:4, ACS-3 "Self-test execution status values":
        // Fh = a self-test routine is in progress.
        r.self_test_in_progress = Some(smart.self_test_execution_status >> 4 == 0xF);
        from_attributes(smart, presets, &mut r);
        r.failing_attributes =
            (pages.thresholds.as_ref()).map(|t| failing_attributes(smart, t, presets));
        if let (None, Some(failing)) = (r.smart_passed, &r.failing_attributes) {
            r.smart_passed = Some(!failing.iter().any(|a| a.prefailure));
            r.smart_passed_from_attributes = true;
        }
    }
    let sector = pages
        .identify
        .as_ref()
        .map_or(512, |i| u128::from(i.logical_sector_size));
    if let Some(d) = &pages.devstat {
        from_devstat(d, sector, &mut r);
    }
    r.counters.error_log_entries = pages.error_log.map(|l| u128::from(l.error_count));
    r.self_test_last_result = pages
        .self_test
        .as_ref()
        .and_then(SelfTestLog::newest)
        .map(|e| e.result_name());
    r
}

/// Each attribute as served: its first entry where the drive lists an id
/// more than once ([`SmartData::first_entries`]), so that one id is one
/// series.
fn attributes(
    smart: &SmartData,
    thresholds: Option<&SmartThresholds>,
    presets: &DrivePresets,
) -> Vec<AtaAttribute> {
    smart
        .first_entries()
        .map(|a| {
            let def = presets.get(a.id);
            let normalized = def.normalized_valid();
            AtaAttribute {
                id: a.id,
                name: def.name,
                value: normalized.then_some(a.value),
                worst: normalized.then_some(a.worst),
                threshold: thresholds.and_then(|t| t.get(a.id)),
                raw: a.raw48(),
            }
        })
        .collect()
}

/// The attributes at or below their thresholds now, judged as smartctl
/// judges each one (`ata_get_attr_state` in smartmontools'
/// `lib/atacmds.cpp`, its `FAILING_NOW`): a threshold of 00h always passes
/// (ATA-3, X3T13/2008D: the "always passing" threshold), else a normalized
/// value at or below the threshold fails, pre-failure (flags bit 0) and
/// old-age alike; an attribute whose format uses the normalized bytes for
/// its raw value (smartctl prints `---`) is not judged. A worst value at or
/// below the threshold with the value above it (smartctl's `In_the_past`)
/// is not failing now. Each id is judged by its first entry. A normalized
/// value outside ATA-3's 01h–FDh is judged too, as smartctl judges it: a
/// life-left attribute worn down to 00h must not pass for unjudged.
pub fn failing_attributes(
    smart: &SmartData,
    thresholds: &SmartThresholds,
    presets: &DrivePresets,
) -> Vec<FailingAttribute> {
    smart
        .first_entries()
        .filter_map(|a| {
            let def = presets.get(a.id);
            let threshold = thresholds.get(a.id).filter(|&t| t != 0)?;
            (def.normalized_valid() && a.value <= threshold).then(|| FailingAttribute {
                id: a.id,
                name: def.name.clone(),
                value: a.value,
                threshold,
                prefailure: a.prefailure(),
            })
        })
        .collect()
}

/// The number a meaning reads from its attribute, times its scale.
fn meaning_value(smart: &SmartData, presets: &DrivePresets, m: &MeaningDef) -> Option<f64> {
    let a = smart.attribute(m.id)?;
    let n = match m.source {
        ValueSource::Normalized => i128::from(a.value),
        ValueSource::Raw | ValueSource::RawSecond => {
            let bytes = AttrBytes {
                raw: a.raw,
                reserved: a.reserved,
                current: a.value,
                worst: a.worst,
            };
            let d = presets.get(m.id).decode(&bytes);
            if m.source == ValueSource::Raw {
                d.value
            } else {
                d.second?
            }
        }
    };
    Some(n as f64 * m.scale)
}

fn from_attributes(smart: &SmartData, presets: &DrivePresets, r: &mut Reading) {
    let count = |v: f64| Some(v.max(0.0) as u128);
    for m in presets.meanings() {
        let Some(v) = meaning_value(smart, presets, &m) else {
            continue;
        };
        let c = &mut r.counters;
        match m.meaning {
            Meaning::PercentageUsed => r.percentage_used_ratio = Some(v / 100.0),
            Meaning::LifeLeftPercent => {
                r.percentage_used_ratio = Some((100.0 - v).max(0.0) / 100.0)
            }
            Meaning::HostWrittenBytes => c.host_written_bytes = count(v),
            Meaning::HostReadBytes => c.host_read_bytes = count(v),
            Meaning::NandWrittenBytes => c.nand_written_bytes = count(v),
            Meaning::PowerOnSeconds => c.power_on_seconds = count(v),
            Meaning::PowerCycles => c.power_cycles = count(v),
            // smartctl's temperature (`ata_return_temperature_value`)
            // accepts only 0 < t < 128 °C and otherwise tries the next
            // attribute; so does this. 194 comes before 190 in the meanings:
            // the first plausible one wins.
            Meaning::Temperature if !(v > 0.0 && v < 128.0) => {}
            Meaning::Temperature if r.temperatures.is_empty() => {
                r.temperatures = vec![("composite".to_string(), v)]
            }
            Meaning::Temperature => {}
            Meaning::UnsafeShutdowns => c.unsafe_shutdowns = count(v),
            Meaning::PlpHealthPercent => r.plp_health_ratio = Some(v / 100.0),
            Meaning::PlpCapacitorTest => r.plp_test_failed = plp_test_failed(v),
            Meaning::ThermalThrottleEvents => c.thermal_throttle_events = count(v),
            Meaning::CrcErrors => c.crc_errors = count(v),
            Meaning::MediaErrors => c.media_errors = count(v),
            // Not a unified series (yet): served as ssd_ata_attribute_*.
            Meaning::NandProgramPages | Meaning::ReallocatedSectors => {}
        }
    }
}

/// Intel's capacitor test result from attribute 175's normalized value:
/// 1 failed; 100 passed and 11 "tested at an excessive temperature" are
/// not failures; anything else is not a defined result.
fn plp_test_failed(normalized: f64) -> Option<bool> {
    match normalized as i64 {
        1 => Some(true),
        11 | 100 => Some(false),
        _ => None,
    }
}

/// Device Statistics override the attribute-derived values: their layout
/// and units are standard, where attributes are vendor-defined.
fn from_devstat(d: &DeviceStatistics, sector: u128, r: &mut Reading) {
    let c = &mut r.counters;
    if let Some(t) = d.current_temperature_celsius {
        r.temperatures = vec![("composite".to_string(), f64::from(t))];
    }
    r.temperature_warning_celsius = d
        .max_operating_temperature_celsius
        .map(f64::from)
        .or(r.temperature_warning_celsius);
    r.percentage_used_ratio = d.endurance_used_ratio().or(r.percentage_used_ratio);
    let sectors = |n: Option<u64>| n.map(|n| u128::from(n) * sector);
    c.host_written_bytes = sectors(d.logical_sectors_written).or(c.host_written_bytes);
    c.host_read_bytes = sectors(d.logical_sectors_read).or(c.host_read_bytes);
    c.host_write_commands = d.write_commands.map(u128::from).or(c.host_write_commands);
    c.host_read_commands = d.read_commands.map(u128::from).or(c.host_read_commands);
    c.power_on_seconds = d.power_on_seconds.map(u128::from).or(c.power_on_seconds);
    c.temperature_above_warning_seconds = d.over_temperature_seconds.map(u128::from);
    // 06h Number of Interface CRC Errors and 04h Number of Reported
    // Uncorrectable Errors are defined by ACS; what attributes 199 and 187
    // count is the vendor's (ACS leaves the attribute table vendor
    // specific). So the statistics win here too; the attributes fill in.
    c.crc_errors = d.interface_crc_errors.map(u128::from).or(c.crc_errors);
    c.media_errors = d
        .reported_uncorrectable_errors
        .map(u128::from)
        .or(c.media_errors);
}

#[cfg(test)]
pub(crate) mod tests;
