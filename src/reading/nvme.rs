//! NVMe pages mapped onto the unified [`Reading`].

use super::nvme_depth::{NvmeReading, PelSummary, write_amplification};
use super::{Counters, Identity, Reading};
use crate::device::discovery::{Kind, Transport};
use crate::nvme::{
    CriticalWarning, EnduranceGroupLog, ErrorLog, FwSlotLog, IdCtrl, OcpSmartLog, SelfTestLog,
    SmartLog, TelemetryCtrlHeader,
};

/// The decoded pages of one NVMe poll; a page that was unsupported or failed
/// is `None`.
#[derive(Debug, Clone, Default)]
pub struct NvmePages {
    pub id: Option<IdCtrl>,
    /// The namespace's world-wide name: outer `None` = not read, inner
    /// `None` = the namespace reports no identifier.
    pub wwn: Option<Option<String>>,
    pub smart: Option<SmartLog>,
    pub ocp: Option<OcpSmartLog>,
    pub error_log: Option<ErrorLog>,
    pub self_test: Option<SelfTestLog>,
    /// `(group, page)` of every endurance group read (09h).
    pub endurance_groups: Option<Vec<(u16, EnduranceGroupLog)>>,
    pub fw_slots: Option<FwSlotLog>,
    pub telemetry: Option<TelemetryCtrlHeader>,
    /// What the persistent event log held, as the poller counted it.
    pub pel: Option<PelSummary>,
}

pub fn identity(id: &IdCtrl, wwn: Option<&str>) -> Identity {
    Identity {
        transport: Transport::Nvme,
        kind: Kind::Physical,
        model: id.model.clone(),
        serial: id.serial.clone(),
        firmware: id.firmware.clone(),
        wwn: wwn.unwrap_or_default().to_string(),
        capacity_bytes: (id.tnvmcap_bytes > 0).then_some(id.tnvmcap_bytes),
    }
}

/// The unified reading of `pages`.
pub fn reading(pages: &NvmePages) -> Reading {
    let mut r = Reading::default();
    if let Some(id) = &pages.id {
        r.temperature_warning_celsius = id.wctemp_celsius;
        r.temperature_critical_celsius = id.cctemp_celsius;
    }
    if let Some(smart) = &pages.smart {
        smart_fields(smart, &mut r);
    }
    if let Some(ocp) = &pages.ocp {
        ocp_fields(ocp, &mut r);
    }
    r.self_test_last_result = pages
        .self_test
        .as_ref()
        .and_then(|log| log.last())
        .map(|t| t.result_name());
    r.self_test_in_progress = pages.self_test.as_ref().map(|l| l.current_operation != 0);
    r.nvme = Some(depth(pages));
    r
}

/// The NVMe-only part of the reading.
fn depth(pages: &NvmePages) -> NvmeReading {
    let groups = pages.endurance_groups.clone().unwrap_or_default();
    NvmeReading {
        write_amplification: write_amplification(&groups, pages.ocp.as_ref(), pages.smart.as_ref()),
        endurance_groups: groups,
        firmware: pages.fw_slots.clone(),
        telemetry: pages.telemetry.clone(),
        pel: pages.pel.clone(),
        ocp: pages.ocp.clone(),
    }
}

fn smart_fields(s: &SmartLog, r: &mut Reading) {
    if let Some(t) = s.temperature_celsius {
        r.temperatures.push(("composite".to_string(), t));
    }
    for (i, t) in s.sensors_celsius.iter().enumerate() {
        if let Some(t) = t {
            r.temperatures.push(((i + 1).to_string(), *t));
        }
    }
    r.critical_warning = CriticalWarning::CONDITIONS
        .iter()
        .map(|&(name, bit)| (name, s.critical_warning.is_set(bit)))
        .collect();
    r.endurance_group_warning = CriticalWarning::ENDURANCE_GROUP_CONDITIONS
        .iter()
        .map(|&(name, bit)| (name, s.endurance_group_warning & (1 << bit) != 0))
        .collect();
    r.smart_passed = Some(s.critical_warning.0 == 0);
    r.available_spare_ratio = Some(s.available_spare_ratio);
    r.available_spare_threshold_ratio = Some(s.available_spare_threshold_ratio);
    r.percentage_used_ratio = Some(s.percentage_used_ratio);
    r.throttle_transitions = Some(s.thermal_transitions.map(u64::from));
    r.throttle_seconds = Some(s.thermal_seconds.map(u64::from));
    let c = &mut r.counters;
    c.host_read_bytes = Some(s.data_read_bytes);
    c.host_written_bytes = Some(s.data_written_bytes);
    c.host_read_commands = Some(s.host_read_commands);
    c.host_write_commands = Some(s.host_write_commands);
    c.controller_busy_seconds = Some(s.controller_busy_seconds);
    c.power_cycles = Some(s.power_cycles);
    c.power_on_seconds = Some(s.power_on_seconds);
    c.unsafe_shutdowns = Some(s.unsafe_shutdowns);
    c.media_errors = Some(s.media_errors);
    c.error_log_entries = Some(s.error_log_entries);
    c.temperature_above_warning_seconds = Some(u128::from(s.warning_temp_seconds));
    c.temperature_above_critical_seconds = Some(u128::from(s.critical_temp_seconds));
    c.lifetime_energy_joules = s.lifetime_energy_wh.map(|wh| u128::from(wh) * 3600);
}

fn ocp_fields(o: &OcpSmartLog, r: &mut Reading) {
    r.throttle_active = o.throttling_active();
    r.throttle_level = o.throttle_level();
    r.plp_health_ratio = o.capacitor_health_ratio();
    r.bad_blocks = vec![
        ("user", o.bad_user_nand_blocks_raw),
        ("system", o.bad_system_nand_blocks_raw),
    ];
    let c: &mut Counters = &mut r.counters;
    c.thermal_throttle_events = Some(u128::from(o.thermal_throttling_events));
    c.plp_starts = Some(o.plp_start_count);
    c.nand_written_bytes = Some(o.physical_media_units_written);
    c.nand_read_bytes = Some(o.physical_media_units_read);
    c.uncorrectable_read_errors = Some(u128::from(o.uncorrectable_read_errors));
    c.incomplete_shutdowns = Some(u128::from(o.incomplete_shutdowns));
    c.pcie_correctable_errors = Some(u128::from(o.pcie_correctable_errors));
    c.soft_ecc_errors = Some(u128::from(o.soft_ecc_errors));
    c.xor_recoveries = Some(u128::from(o.xor_recovery_count));
    c.end_to_end_detected_errors = Some(u128::from(o.end_to_end_detected_errors));
    c.end_to_end_corrected_errors = Some(u128::from(o.end_to_end_corrected_errors));
    c.pcie_link_retrainings = o.pcie_link_retraining_count.map(u128::from);
}

#[cfg(test)]
mod tests;
