//! SAS / SCSI pages mapped onto the unified [`Reading`], as
//! `shared/reference/metrics.md` ("SAS / SCSI") lists them: the same
//! series as NVMe and SATA where the meaning is the same, `ssd_scsi_*` and
//! `ssd_sas_*` for what only SCSI reports.

use super::reading::{Identity, PhyErrorKind, Reading, SasPhyErrors, ScsiOp, ScsiReading};
use crate::device::discovery::Transport;
use crate::scsi::identity::{Inquiry, PROTOCOL_SAS, ReadCapacity16};
use crate::scsi::log::{ErrorCounters, InformationalException, SasPhy, SelfTest, Temperature};

/// The decoded pages of one SCSI poll; a page that was unsupported or
/// failed is `None`.
#[derive(Debug, Clone, Default)]
pub struct ScsiPages {
    pub inquiry: Option<Inquiry>,
    /// VPD 80h.
    pub serial: Option<String>,
    /// VPD 83h: the logical unit's NAA designator (`naa.…`), and the
    /// transport protocol of the port designators.
    pub wwn: Option<String>,
    pub protocol: Option<u8>,
    /// VPD B1h medium rotation rate (1 = non-rotating).
    pub rotation_rate: Option<u16>,
    pub capacity: Option<ReadCapacity16>,
    /// Log 03h / 02h / 05h, in [`ScsiOp::ALL`] order.
    pub errors: [Option<ErrorCounters>; 3],
    pub non_medium_errors: Option<u128>,
    pub temperature: Option<Temperature>,
    pub start_stop_cycles: Option<u32>,
    /// Log 10h: `Some(None)` when the page holds no test.
    pub self_test: Option<Option<SelfTest>>,
    pub percentage_used: Option<u8>,
    pub power_on_minutes: Option<u64>,
    /// Log 18h: the SAS phys (empty for another protocol's port page).
    pub sas_phys: Option<Vec<SasPhy>>,
    pub informational_exception: Option<InformationalException>,
    pub grown_defects: Option<u32>,
}

impl ScsiPages {
    /// SAS when discovery saw the SAS transport class (`hint`), or VPD 83h
    /// names SAS as the port's protocol (how smartctl decides "Transport
    /// protocol: SAS"), or log 18h holds a SAS port; else SCSI.
    pub fn transport(&self, hint: Transport) -> Transport {
        let sas = hint == Transport::Sas
            || self.protocol == Some(PROTOCOL_SAS)
            || self.sas_phys.as_ref().is_some_and(|p| !p.is_empty());
        if sas { Transport::Sas } else { Transport::Scsi }
    }
}

/// Who the drive is, once its INQUIRY has been read: model as smartctl's
/// `model_name` spells it (vendor, a space, product), firmware the product
/// revision.
pub fn identity(pages: &ScsiPages, hint: Transport) -> Option<Identity> {
    let i = pages.inquiry.as_ref()?;
    let model = [i.vendor.as_str(), i.product.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(Identity {
        transport: pages.transport(hint),
        model,
        serial: pages.serial.clone().unwrap_or_default(),
        firmware: i.revision.clone(),
        wwn: pages.wwn.clone().unwrap_or_default(),
        capacity_bytes: pages
            .capacity
            .map(|c| c.capacity_bytes())
            .filter(|&b| b > 0),
    })
}

fn sum(values: impl Iterator<Item = u128>) -> Option<u128> {
    values.fold(None, |acc, v| Some(acc.unwrap_or(0).saturating_add(v)))
}

/// The unified reading of `pages`.
pub fn reading(pages: &ScsiPages) -> Reading {
    let mut r = Reading::default();
    let current = pages.temperature.and_then(|t| t.current_celsius);
    // Log 0Dh first; else the most recent temperature of 2Fh, as smartctl
    // (`scsiGetTemp`, then the IE page) falls back.
    let ie_temp = pages
        .informational_exception
        .and_then(|ie| ie.temperature_celsius);
    if let Some(t) = current.or(ie_temp) {
        r.temperatures = vec![("composite".to_string(), f64::from(t))];
    }
    r.temperature_critical_celsius = pages
        .temperature
        .and_then(|t| t.reference_celsius)
        .map(f64::from);
    r.percentage_used_ratio = pages.percentage_used.map(|p| f64::from(p) / 100.0);
    r.smart_passed = pages.informational_exception.map(|ie| ie.passed());
    r.self_test_last_result = pages.self_test.flatten().map(|t| t.result_name());
    let by_op = |f: fn(&ErrorCounters) -> Option<u128>| -> Vec<(ScsiOp, u128)> {
        ScsiOp::ALL
            .iter()
            .zip(&pages.errors)
            .filter_map(|(&op, e)| e.as_ref().and_then(f).map(|v| (op, v)))
            .collect()
    };
    let bytes = by_op(|e| e.bytes_processed);
    let bytes_of = |op| bytes.iter().find(|(o, _)| *o == op).map(|&(_, v)| v);
    let c = &mut r.counters;
    c.host_read_bytes = bytes_of(ScsiOp::Read);
    c.host_written_bytes = bytes_of(ScsiOp::Write);
    c.power_on_seconds = pages.power_on_minutes.map(|m| u128::from(m) * 60);
    let uncorrected = by_op(|e| e.uncorrected);
    c.media_errors = sum(uncorrected.iter().map(|&(_, v)| v));
    r.scsi = Some(ScsiReading {
        errors_corrected: by_op(|e| e.corrected),
        errors_uncorrected: uncorrected,
        non_medium_errors: pages.non_medium_errors,
        grown_defects: pages.grown_defects,
        start_stop_cycles: pages.start_stop_cycles,
        sas_phys: phys(pages.sas_phys.as_deref().unwrap_or(&[])),
        informational_exception: pages
            .informational_exception
            .filter(|ie| !ie.passed())
            .map(|ie| (ie.asc, ie.ascq)),
    });
    r
}

/// One entry per phy identifier (unique within a SAS device; a repeated
/// one, which would make two series with the same labels, is dropped).
fn phys(phys: &[SasPhy]) -> Vec<SasPhyErrors> {
    let mut out: Vec<SasPhyErrors> = Vec::new();
    for p in phys {
        let phy = p.phy.to_string();
        if out.iter().any(|o| o.phy == phy) {
            continue;
        }
        let counts = PhyErrorKind::ALL.map(|k| {
            u64::from(match k {
                PhyErrorKind::InvalidDword => p.invalid_dwords,
                PhyErrorKind::RunningDisparity => p.running_disparity_errors,
                PhyErrorKind::LossOfDwordSync => p.loss_of_dword_sync,
                PhyErrorKind::PhyResetProblem => p.phy_reset_problems,
            })
        });
        out.push(SasPhyErrors { phy, counts });
    }
    out
}

#[cfg(test)]
mod tests;
