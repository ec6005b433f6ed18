//! The landing page's event timeline: the newest events of each drive's
//! persistent event log (NVMe log 0Dh), newest first. Event details come
//! from the drive and are escaped like every other value.

use std::fmt::Write as _;

use super::super::DriveRow;
use super::escape;

/// Appends the timeline; nothing when no drive has events.
pub(super) fn render(page: &mut String, drives: &[DriveRow]) {
    if drives.iter().all(|d| d.events.is_empty()) {
        return;
    }
    page.push_str(
        "<h2>Events</h2>\n<table class=\"events\">\n\
         <tr><th>Device</th><th>When</th><th>Event</th><th>Detail</th></tr>\n",
    );
    for d in drives {
        for e in &d.events {
            let _ = writeln!(
                page,
                "<tr class=\"event\"><td>{}</td><td>{}</td><td>{}</td><td class=\"detail\">{}</td></tr>",
                escape(&d.device),
                escape(&e.when()),
                escape(&e.kind.replace('_', " ")),
                escape(&e.detail)
            );
        }
    }
    page.push_str("</table>\n");
}
