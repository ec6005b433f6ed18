//! Verdict rules over what only an NVMe drive reports beyond SMART: the
//! OCP C0h media dies offline against the die failure tolerance, and the
//! controller capturing its internal state on its own (telemetry).

use super::history::{self, History, Tracked};
use super::judgement::{Judge, ProblemName as P, Severity};
use crate::reading::Reading;

pub(super) fn nvme(r: &Reading, history: &History, j: &mut Judge) {
    let Some(n) = r.nvme.as_ref() else {
        return;
    };
    if let Some(ocp) = &n.ocp {
        dies_offline(ocp.media_dies_offline, ocp.total_die_failure_tolerance, j);
    }
    internal_error(history, j);
}

/// OCP C0h bytes 221:220 and 219:218 (log page version 5 on): the Total
/// Die Failure Tolerance is how many media dies may fail with the drive
/// still working, so dies offline reaching it means the drive has used up
/// what it was built to survive — the next die lost is beyond its design.
fn dies_offline(offline: Option<u16>, tolerance: Option<u16>, j: &mut Judge) {
    let (Some(offline), Some(tolerance)) = (offline, tolerance) else {
        return;
    };
    if offline > 0 && offline >= tolerance {
        let text = format!(
            "{offline} media die(s) offline, at or past the drive's die failure tolerance of {tolerance}; replace it"
        );
        j.add(P::MediaDiesOffline, Severity::Critical, text);
    }
}

/// A controller-initiated telemetry capture while the exporter watched: the
/// generation number (log 08h byte 383) moved, so the drive saved its
/// internal state because it saw an internal failure.
fn internal_error(history: &History, j: &mut Judge) {
    let Some((n, since)) = history
        .increase_since(Tracked::TelemetryCaptures)
        .filter(|&(n, _)| n > 0)
    else {
        return;
    };
    let text = format!(
        "the drive captured its internal state {n} time(s) since {} (controller-initiated telemetry): it recorded an internal failure; collect the telemetry log (nvme telemetry-log --controller-init) for the vendor",
        history::utc(since)
    );
    j.add(P::DriveReportedInternalError, Severity::Warning, text);
}

#[cfg(test)]
mod tests;
