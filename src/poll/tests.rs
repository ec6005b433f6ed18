//! What the pollers' tests (`nvme`, `sata`, `scsi`) share.

use super::{PollOutcome, Source};

/// Whether a poll believes `source` supported (`ssd_page_supported`);
/// `None` when the poll does not report it.
pub(crate) fn belief(out: &PollOutcome, source: Source) -> Option<bool> {
    out.pages
        .iter()
        .find(|(s, _)| *s == source)
        .map(|&(_, b)| b)
}
