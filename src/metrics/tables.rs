//! The per-drive counters and plain gauges of the unified reading, as data.

use crate::reading::{Counters, Reading};

/// A per-drive counter: name without `_total`, help, and where it lives.
pub(super) type CounterDef = (&'static str, &'static str, fn(&Counters) -> Option<u128>);

/// Per-drive counters of the unified reading, in exposition order.
pub(super) const COUNTERS: &[CounterDef] = &[
    (
        "ssd_host_read_bytes",
        "Bytes the host read (NVMe data units x 512000).",
        |c| c.host_read_bytes,
    ),
    (
        "ssd_host_written_bytes",
        "Bytes the host wrote (NVMe data units x 512000).",
        |c| c.host_written_bytes,
    ),
    (
        "ssd_host_read_commands",
        "Read commands the drive completed.",
        |c| c.host_read_commands,
    ),
    (
        "ssd_host_write_commands",
        "Write commands the drive completed.",
        |c| c.host_write_commands,
    ),
    (
        "ssd_controller_busy_seconds",
        "Time the controller was busy with I/O.",
        |c| c.controller_busy_seconds,
    ),
    ("ssd_power_cycles", "Power cycles.", |c| c.power_cycles),
    (
        "ssd_power_on_seconds",
        "Power-on time (reported in hours by the drive).",
        |c| c.power_on_seconds,
    ),
    (
        "ssd_unsafe_shutdowns",
        "Power losses without a prior shutdown notification.",
        |c| c.unsafe_shutdowns,
    ),
    (
        "ssd_media_errors",
        "Unrecovered data integrity errors.",
        |c| c.media_errors,
    ),
    (
        "ssd_error_log_entries",
        "Error information log entries over the drive's life.",
        |c| c.error_log_entries,
    ),
    ("ssd_crc_errors", "Interface CRC errors.", |c| c.crc_errors),
    (
        "ssd_temperature_above_warning_seconds",
        "Time with the composite temperature at or above the warning threshold and below the critical one (NVMe WCTEMP <= T < CCTEMP; SATA: over the specified maximum operating temperature).",
        |c| c.temperature_above_warning_seconds,
    ),
    (
        "ssd_temperature_above_critical_seconds",
        "Time at or above the critical composite temperature threshold.",
        |c| c.temperature_above_critical_seconds,
    ),
    (
        "ssd_lifetime_energy_joules",
        "Energy the drive consumed over its life (NVMe 2.1, reported in watt-hours).",
        |c| c.lifetime_energy_joules,
    ),
    (
        "ssd_thermal_throttle_events",
        "Thermal throttling events (OCP extended SMART).",
        |c| c.thermal_throttle_events,
    ),
    (
        "ssd_plp_starts",
        "Times power-loss protection was triggered (OCP extended SMART).",
        |c| c.plp_starts,
    ),
    (
        "ssd_nand_written_bytes",
        "Bytes written to the NAND media (OCP physical media units written).",
        |c| c.nand_written_bytes,
    ),
    (
        "ssd_nand_read_bytes",
        "Bytes read from the NAND media (OCP physical media units read).",
        |c| c.nand_read_bytes,
    ),
    (
        "ssd_uncorrectable_read_errors",
        "Uncorrectable read errors (OCP extended SMART).",
        |c| c.uncorrectable_read_errors,
    ),
    (
        "ssd_incomplete_shutdowns",
        "Shutdowns that did not complete (OCP extended SMART).",
        |c| c.incomplete_shutdowns,
    ),
    (
        "ssd_pcie_correctable_errors",
        "PCIe correctable errors (OCP extended SMART).",
        |c| c.pcie_correctable_errors,
    ),
    (
        "ssd_soft_ecc_errors",
        "Reads corrected by soft-decision ECC (OCP extended SMART).",
        |c| c.soft_ecc_errors,
    ),
    (
        "ssd_xor_recoveries",
        "Reads recovered through XOR parity (OCP extended SMART).",
        |c| c.xor_recoveries,
    ),
    (
        "ssd_end_to_end_detected_errors",
        "End-to-end data path errors detected (OCP extended SMART).",
        |c| c.end_to_end_detected_errors,
    ),
    (
        "ssd_end_to_end_corrected_errors",
        "End-to-end data path errors corrected (OCP extended SMART).",
        |c| c.end_to_end_corrected_errors,
    ),
    (
        "ssd_pcie_link_retrainings",
        "PCIe link retraining events (OCP extended SMART).",
        |c| c.pcie_link_retrainings,
    ),
];

/// A per-drive gauge of the unified reading without extra labels.
pub(super) type GaugeDef = (&'static str, &'static str, fn(&Reading) -> Option<f64>);

pub(super) const GAUGES: &[GaugeDef] = &[
    (
        "ssd_smart_passed",
        "1 if the drive reports itself healthy (NVMe: no critical warning; SATA: SMART RETURN STATUS).",
        |r| r.smart_passed.map(f64::from),
    ),
    (
        "ssd_available_spare_ratio",
        "Remaining spare capacity, 0-1.",
        |r| r.available_spare_ratio,
    ),
    (
        "ssd_available_spare_threshold_ratio",
        "Spare capacity below which the drive raises a critical warning, 0-1.",
        |r| r.available_spare_threshold_ratio,
    ),
    (
        "ssd_percentage_used_ratio",
        "Vendor estimate of life used, 0-1; may exceed 1.",
        |r| r.percentage_used_ratio,
    ),
    (
        "ssd_thermal_throttle_active",
        "1 while the drive is throttling for temperature (OCP extended SMART).",
        |r| r.throttle_active.map(f64::from),
    ),
    (
        "ssd_thermal_throttle_level",
        "Current throttling level, 0 (not throttling) to 3 (OCP extended SMART).",
        |r| r.throttle_level.map(f64::from),
    ),
    (
        "ssd_plp_test_failed",
        "1 when the drive's own power-loss capacitor test failed (Intel attribute 175).",
        |r| r.plp_test_failed.map(f64::from),
    ),
    (
        "ssd_plp_health_ratio",
        "Power-loss-protection capacitor health, 0-1.",
        |r| r.plp_health_ratio,
    ),
];
