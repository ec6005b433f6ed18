//! SAS / SCSI families (`shared/reference/metrics.md`, "SAS / SCSI"): the
//! error counter pages per operation, non-medium errors, grown defects,
//! start-stop and load-unload cycles, the SAS phy error counters and link
//! rates.

use std::fmt;

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, Wide, counter, family};
use crate::reading::ScsiReading;
use crate::reading::{PhyErrorKind, ScsiOp};
use crate::snapshot::DriveSnapshot;

impl Exposition {
    pub(super) fn scsi(&self, enc: &mut Enc) -> fmt::Result {
        let readings: Vec<(&DriveSnapshot, &ScsiReading)> = self
            .drives
            .iter()
            .filter_map(|d| {
                let s = d.reading.as_ref()?.scsi.as_ref()?;
                Some((d.as_ref(), s))
            })
            .collect();
        let per_op = |f: fn(&ScsiReading) -> &Vec<(ScsiOp, u128)>| {
            readings.iter().flat_map(move |(d, s)| {
                f(s).iter()
                    .map(move |&(op, n)| (Self::with(d, [("op", op.as_label())]), Wide(n)))
            })
        };
        counter(
            enc,
            "ssd_scsi_errors_corrected",
            "Errors the drive corrected, per operation (log 03h/02h/05h parameter 0003h).",
            per_op(|s| &s.errors_corrected),
        )?;
        counter(
            enc,
            "ssd_scsi_errors_uncorrected",
            "Errors the drive could not correct, per operation (log 03h/02h/05h parameter 0006h).",
            per_op(|s| &s.errors_uncorrected),
        )?;
        let one = |f: fn(&ScsiReading) -> Option<u128>| {
            readings
                .iter()
                .filter_map(move |(d, s)| f(s).map(|n| (Self::base(d), Wide(n))))
        };
        counter(
            enc,
            "ssd_scsi_non_medium_errors",
            "Recoverable events other than medium errors (log 06h).",
            one(|s| s.non_medium_errors),
        )?;
        let defects = readings
            .iter()
            .filter_map(|(d, s)| s.grown_defects.map(|n| (Self::base(d), f64::from(n))));
        family(
            enc,
            "ssd_scsi_grown_defects",
            "Entries in the grown defect list (READ DEFECT DATA).",
            MetricType::Gauge,
            defects,
        )?;
        counter(
            enc,
            "ssd_scsi_start_stop_cycles",
            "Accumulated start-stop cycles (log 0Eh parameter 0004h).",
            one(|s| s.start_stop_cycles.map(u128::from)),
        )?;
        counter(
            enc,
            "ssd_scsi_load_unload_cycles",
            "Accumulated load-unload cycles (log 0Eh parameter 0006h).",
            one(|s| s.load_unload_cycles.map(u128::from)),
        )?;
        // In bytes per second, the base unit: promtool rejects a `_bits`
        // name (docs/metrics.md, "Renamed").
        let rates = readings.iter().flat_map(|(d, s)| {
            s.sas_link_rates.iter().map(move |(phy, bits)| {
                (Self::with(d, [("phy", phy.as_str())]), *bits as f64 / 8.0)
            })
        });
        family(
            enc,
            "ssd_sas_phy_link_rate_bytes_per_second",
            "Negotiated SAS link rate per phy, bits / 8 (log 18h, else the SAS transport class in sysfs).",
            MetricType::Gauge,
            rates,
        )?;
        let phys = readings.iter().flat_map(|(d, s)| {
            s.sas_phys.iter().flat_map(move |p| {
                PhyErrorKind::ALL.iter().zip(p.counts).map(move |(k, n)| {
                    let l = Self::with(d, [("phy", p.phy.as_str()), ("kind", k.as_label())]);
                    (l, Wide(u128::from(n)))
                })
            })
        });
        counter(
            enc,
            "ssd_sas_phy_errors",
            "SAS phy error counts (log 18h): invalid dwords, running disparity errors, loss of dword synchronization, phy reset problems.",
            phys,
        )
    }
}
