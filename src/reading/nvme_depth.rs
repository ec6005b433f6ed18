//! What only an NVMe drive says about itself beyond SMART: its endurance
//! groups (09h), firmware slots (03h), the controller-initiated telemetry
//! header (08h), what the persistent event log (0Dh) held, the OCP C0h
//! fields without a unified series, and the write amplification and
//! endurance estimate derived from them.

use serde::{Deserialize, Serialize};

use crate::nvme::pel_events::PelEventType;
use crate::nvme::{EnduranceGroupLog, FwSlotLog, OcpSmartLog, SmartLog, TelemetryCtrlHeader};

/// The NVMe-only part of a [`super::Reading`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NvmeReading {
    /// `(group identifier, its page)`, in identifier order.
    pub endurance_groups: Vec<(u16, EnduranceGroupLog)>,
    pub firmware: Option<FwSlotLog>,
    pub telemetry: Option<TelemetryCtrlHeader>,
    pub pel: Option<PelSummary>,
    /// The whole OCP C0h page, for the fields served as they are (dies,
    /// erase counts, free blocks, timeouts, system area, versions).
    pub ocp: Option<OcpSmartLog>,
    /// Media written / host written: the endurance groups' own counters
    /// where every group reports both, else OCP C0h physical media units
    /// written / the SMART log's host bytes written.
    pub write_amplification: Option<f64>,
}

/// What the persistent event log held, and what the exporter counted of
/// it (each event once; see `poll::nvme::pel`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PelSummary {
    /// Events counted per type since the exporter started watching, with
    /// 0 for each type the drive's Supported Events Bitmap lists.
    pub counts: Vec<(PelEventType, u64)>,
    /// The newest event of each type with a host-set timestamp, in Unix
    /// seconds (events timed from a controller reset carry no date).
    pub newest: Vec<(PelEventType, f64)>,
    /// The newest events in the log, newest first (the landing page's and
    /// `check --json`'s timeline).
    pub timeline: Vec<TimelineEvent>,
    /// Events the log holds now, and its Generation Number.
    pub events_in_log: u32,
    pub generation: u16,
    /// The newest event counted so far: what a state file keeps so that
    /// a restart does not count the events still in the log again.
    pub mark: Option<PelMark>,
}

/// The newest persistent-event-log event counted: its place in the log (0
/// for the oldest) and an FNV-1a fingerprint of its bytes. Events carry no
/// sequence number and the log drops its oldest when full, so the place
/// alone does not say which event it was (see `poll::nvme::pel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PelMark {
    pub position: u32,
    pub fingerprint: u64,
}

/// One event of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEvent {
    /// Its place in the log, 0 for the oldest.
    pub position: u32,
    pub kind: PelEventType,
    /// Unix seconds, when the host had set the drive's clock.
    pub at: Option<f64>,
    /// Milliseconds since a controller reset, when it had not.
    pub since_reset_ms: Option<u64>,
    /// What the event data says (empty for types not decoded).
    pub detail: String,
}

/// Write amplification: the endurance groups' media units written over
/// data units written (summed over groups, where every group reports
/// both), else the OCP page's physical media units written (bytes) over
/// the SMART log's host bytes written. `None` without both, or before
/// anything was written.
pub fn write_amplification(
    groups: &[(u16, EnduranceGroupLog)],
    ocp: Option<&OcpSmartLog>,
    smart: Option<&SmartLog>,
) -> Option<f64> {
    let sums = groups.iter().try_fold((0u128, 0u128), |(m, h), (_, g)| {
        Some((
            m.saturating_add(g.media_written_bytes?),
            h.saturating_add(g.data_written_bytes?),
        ))
    });
    if let Some((media, host)) = sums.filter(|&(_, h)| h > 0 && !groups.is_empty()) {
        return Some(media as f64 / host as f64);
    }
    let (ocp, smart) = (ocp?, smart?);
    (smart.data_written_bytes > 0)
        .then(|| ocp.physical_media_units_written as f64 / smart.data_written_bytes as f64)
}

/// The drive's own endurance estimate over its endurance groups (their
/// estimates summed: bytes the groups may take at a write amplification
/// of 1, NVMe Base 2.0 §5.16.1.10), and the bytes that count against it:
/// media units written where every group reports them (the host bytes a WA
/// of 1 would have allowed = host bytes × the actual WA), else the groups'
/// data units written, else `None` (the caller then counts the SMART
/// log's host bytes). `None` when no group reports an estimate.
pub fn endurance_estimate(groups: &[(u16, EnduranceGroupLog)]) -> Option<(f64, Option<f64>)> {
    let estimate: u128 = groups
        .iter()
        .filter_map(|(_, g)| g.endurance_estimate_bytes)
        .fold(0, u128::saturating_add);
    if estimate == 0 {
        return None;
    }
    let sum = |f: fn(&EnduranceGroupLog) -> Option<u128>| {
        groups
            .iter()
            .try_fold(0u128, |acc, (_, g)| Some(acc.saturating_add(f(g)?)))
    };
    let written = sum(|g| g.media_written_bytes).or_else(|| sum(|g| g.data_written_bytes));
    Some((estimate as f64, written.map(|w| w as f64)))
}

#[cfg(test)]
mod tests;
