//! The newest events of a drive's persistent event log (NVMe log 0Dh), for
//! people: the landing page's timeline and the `events` of `check --json`.

use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::snapshot::DriveSnapshot;

/// One event, newest first in a [`super::Row`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EventRow {
    /// Its place in the log, 0 for the oldest.
    pub position: u32,
    /// The `type` label of `ssd_pel_events_total` (`firmware_commit`, …).
    pub kind: String,
    /// RFC 3339 UTC, when the drive's clock had been set by the host.
    pub at: Option<String>,
    /// Milliseconds since a controller reset, when it had not.
    pub since_reset_ms: Option<u64>,
    /// What the event data says, for the types the exporter decodes.
    pub detail: String,
}

impl EventRow {
    /// `2026-12-01T00:00:00Z`, or `12.3 s after a reset`.
    pub fn when(&self) -> String {
        match (&self.at, self.since_reset_ms) {
            (Some(at), _) => at.clone(),
            (None, Some(ms)) => format!("{:.1} s after a reset", ms as f64 / 1000.0),
            (None, None) => "-".into(),
        }
    }
}

/// The drive's timeline, newest first; empty without an event log.
pub fn events(d: &DriveSnapshot) -> Vec<EventRow> {
    let Some(pel) = d
        .reading
        .as_ref()
        .and_then(|r| r.nvme.as_ref())
        .and_then(|n| n.pel.as_ref())
    else {
        return Vec::new();
    };
    pel.timeline
        .iter()
        .map(|e| EventRow {
            position: e.position,
            kind: e.kind.as_label().to_string(),
            at: e.at.filter(|s| s.is_finite() && *s >= 0.0).map(|s| {
                crate::timefmt::utc_seconds(SystemTime::UNIX_EPOCH + Duration::from_secs_f64(s))
            }),
            since_reset_ms: e.since_reset_ms,
            detail: e.detail.clone(),
        })
        .collect()
}
