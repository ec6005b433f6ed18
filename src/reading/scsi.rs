//! SAS / SCSI pages mapped onto the unified [`Reading`], as
//! `shared/reference/metrics.md` ("SAS / SCSI") lists them: the same
//! series as NVMe and SATA where the meaning is the same, `ssd_scsi_*` and
//! `ssd_sas_*` for what only SCSI reports.
//!
//! Where SCSI's meaning differs from the NVMe field of the same series,
//! SPC-5 and smartmontools decide: log 0Dh's reference temperature is the
//! highest the drive runs at continuously, so it is the *warning*
//! threshold (SCSI reports no critical one); log 2Fh fails the drive only
//! for a failure prediction ([`crate::scsi::exceptions`]); log 10h's newest
//! entry is served, its newest entry with an outcome judged.

use super::{Identity, PhyErrorKind, Reading, SasPhyErrors, ScsiOp, ScsiReading, ScsiSelfTest};
use crate::device::discovery::{Kind, Transport};
use crate::scsi::exceptions::Condition;
use crate::scsi::identity::{Inquiry, PROTOCOL_SAS, ReadCapacity16};
use crate::scsi::log::{ErrorCounters, InformationalException, SasPhy, StartStop, Temperature};
use crate::scsi::self_test::SelfTest;

/// The decoded pages of one SCSI poll; a page that was unsupported or
/// failed is `None`.
#[derive(Debug, Clone, Default)]
pub struct ScsiPages {
    pub inquiry: Option<Inquiry>,
    /// VPD 80h.
    pub serial: Option<String>,
    /// VPD 83h: the logical unit's NAA designator (`naa.…`), and the
    /// transport protocols of the port designators (the first decides).
    pub wwn: Option<String>,
    pub protocols: Vec<u8>,
    /// VPD B1h medium rotation rate (1 = non-rotating).
    pub rotation_rate: Option<u16>,
    pub capacity: Option<ReadCapacity16>,
    /// Log 03h / 02h / 05h, in [`ScsiOp::ALL`] order.
    pub errors: [Option<ErrorCounters>; 3],
    pub non_medium_errors: Option<u128>,
    pub temperature: Option<Temperature>,
    pub start_stop: Option<StartStop>,
    /// Log 10h: every recorded result, newest first (empty: no test).
    pub self_test: Option<Vec<SelfTest>>,
    pub percentage_used: Option<u8>,
    pub power_on_minutes: Option<u64>,
    /// Log 18h: the SAS phys (empty for another protocol's port page).
    pub sas_phys: Option<Vec<SasPhy>>,
    /// `(phy identifier, bits per second)` of the SAS link sysfs shows.
    pub sysfs_links: Vec<(u8, u64)>,
    pub informational_exception: Option<InformationalException>,
    pub grown_defects: Option<u32>,
}

impl ScsiPages {
    /// SAS when discovery saw the SAS transport class (`hint`), or VPD 83h
    /// names SAS as the port's protocol (how smartctl decides "Transport
    /// protocol: SAS"), or log 18h holds a SAS port; else SCSI.
    pub fn transport(&self, hint: Transport) -> Transport {
        let sas = hint == Transport::Sas
            || self.protocols.first() == Some(&PROTOCOL_SAS)
            || self.sas_phys.as_ref().is_some_and(|p| !p.is_empty());
        if sas { Transport::Sas } else { Transport::Scsi }
    }
}

/// Who the drive is, once its INQUIRY has been read: model as smartctl's
/// `model_name` spells it (vendor, a space, product), firmware the product
/// revision.
pub fn identity(pages: &ScsiPages, hint: Transport, kind: Kind) -> Option<Identity> {
    let i = pages.inquiry.as_ref()?;
    let model = [i.vendor.as_str(), i.product.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(Identity {
        transport: pages.transport(hint),
        kind,
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
    let ie = pages.informational_exception;
    temperatures(pages, &mut r);
    r.percentage_used_ratio = pages.percentage_used.map(|p| f64::from(p) / 100.0);
    r.smart_passed = ie.map(|ie| ie.passed());
    let tests = pages.self_test.as_deref().unwrap_or_default();
    r.self_test_last_result = tests.first().map(SelfTest::result_name);
    r.self_test_in_progress = pages.self_test.as_ref().map(|t| {
        t.first()
            .is_some_and(|e| e.result == crate::scsi::self_test::RESULT_IN_PROGRESS)
    });
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
    let phys = pages.sas_phys.as_deref().unwrap_or(&[]);
    r.scsi = Some(ScsiReading {
        errors_corrected: by_op(|e| e.corrected),
        errors_uncorrected: uncorrected,
        non_medium_errors: pages.non_medium_errors,
        grown_defects: pages.grown_defects,
        start_stop_cycles: pages.start_stop.and_then(|s| s.start_stop_cycles),
        load_unload_cycles: pages.start_stop.and_then(|s| s.load_unload_cycles),
        sas_phys: phy_errors(phys),
        sas_link_rates: link_rates(phys, &pages.sysfs_links),
        informational_exception: ie.filter(|ie| ie.condition() != Condition::None),
        self_test: judged_self_test(tests),
    });
    r
}

/// Log 0Dh first, else log 2Fh, as smartctl (`scsiCheckIE`, `scsiGetTemp`)
/// reads them: the current temperature from 0Dh (2Fh's most recent
/// reading when 0Dh has none), and 0Dh's reference temperature as the
/// warning threshold — 2Fh's threshold byte only when there is no 0Dh page.
fn temperatures(pages: &ScsiPages, r: &mut Reading) {
    let ie = pages.informational_exception;
    let current = pages.temperature.and_then(|t| t.current_celsius);
    if let Some(t) = current.or(ie.and_then(|ie| ie.temperature_celsius)) {
        r.temperatures = vec![("composite".to_string(), f64::from(t))];
    }
    let threshold = match pages.temperature {
        Some(t) => t.reference_celsius,
        None => ie.and_then(|ie| ie.threshold_celsius),
    };
    r.temperature_warning_celsius = threshold.map(f64::from);
}

/// The newest entry that passed or failed, with the newer ones it lies
/// behind; `None` when no entry has an outcome.
fn judged_self_test(tests: &[SelfTest]) -> Option<ScsiSelfTest> {
    let at = tests.iter().position(SelfTest::has_outcome)?;
    Some(ScsiSelfTest {
        result: tests[at].result_name(),
        power_on_hours: tests[at].power_on_hours,
        newer: tests[..at].iter().map(SelfTest::result_name).collect(),
    })
}

/// One entry per phy identifier (unique within a SAS device; a repeated
/// one, which would make two series with the same labels, is dropped).
fn phy_errors(phys: &[SasPhy]) -> Vec<SasPhyErrors> {
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

/// The drive's own view of its phys (log 18h) when it has one: every phy
/// up at a rate, with the phy label of its error counters; else the link
/// sysfs shows.
fn link_rates(phys: &[SasPhy], sysfs: &[(u8, u64)]) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    let own = phys.iter().filter_map(|p| {
        let rate = p.link_rate_bits_per_second()?;
        Some((p.phy, rate as u64))
    });
    let links: Vec<(u8, u64)> = if phys.is_empty() {
        sysfs.to_vec()
    } else {
        own.collect()
    };
    for (phy, rate) in links {
        let phy = phy.to_string();
        if !out.iter().any(|(p, _)| *p == phy) {
            out.push((phy, rate));
        }
    }
    out
}

#[cfg(test)]
mod tests;
