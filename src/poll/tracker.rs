//! What a poller believes about each page of its drive across polls.
//!
//! The page-support model:
//! - A page the drive answers is **supported**.
//! - A page the drive says it does not have (an NVMe "invalid field / log
//!   page" status, an ATA abort, a replay file absent, an OCP page whose
//!   GUID is not OCP's) is **unsupported**: not asked again, not counted,
//!   logged once per reason — until [`Tracker::recheck`], which the pollers
//!   call with every identity refresh (a firmware update is only seen
//!   there), so a transient answer never blinds a page for good. A drive
//!   that reappears gets a new poller and starts from nothing.
//! - A [mandatory](Source::mandatory) page is never unsupported: such an
//!   answer is a counted failure, every poll.
//! - Any other failure is counted every poll and logged when it changes.
//!
//! [`Tracker::beliefs`] is what `ssd_page_supported` and the landing page show.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Display;

use tracing::{debug, info, warn};

use super::source::Source;
use super::{PollError, PollOutcome};
use crate::device::FetchError;

#[derive(Debug)]
pub struct Tracker {
    origin: String,
    /// Pages asked since the last recheck and what they answered: `true`
    /// supported (or failed, which is not a "no"), `false` unsupported.
    support: BTreeMap<Source, bool>,
    /// The reason each page was last logged as unsupported (logged once).
    logged_unsupported: HashMap<Source, String>,
    /// The last failure logged per page (a persistent failure is counted
    /// every poll but logged once).
    last_error: HashMap<Source, String>,
    /// Notes already logged about a page's contents (logged once each).
    notes: HashSet<(Source, String)>,
}

impl Tracker {
    pub fn new(origin: String) -> Self {
        Self {
            origin,
            support: BTreeMap::new(),
            logged_unsupported: HashMap::new(),
            last_error: HashMap::new(),
            notes: HashSet::new(),
        }
    }

    /// Logs something about a page's contents once (a reserved value the
    /// exporter serves no series for): neither a failure nor counted.
    pub fn note_once(&mut self, source: Source, note: &str) {
        if self.notes.insert((source, note.to_string())) {
            info!(device = %self.origin, source = source.as_label(), "{note}");
        }
    }

    /// [`Tracker::note_once`] at warn level: something the operator should
    /// act on, said once (the refused pages of `unprivileged`).
    pub fn warn_once(&mut self, source: Source, note: &str) {
        if self.notes.insert((source, note.to_string())) {
            warn!(device = %self.origin, source = source.as_label(), "{note}");
        }
    }

    pub fn is_unsupported(&self, source: Source) -> bool {
        self.support.get(&source) == Some(&false)
    }

    /// Forgets every "unsupported", so each page is asked again.
    pub fn recheck(&mut self) {
        self.support.retain(|_, supported| *supported);
    }

    /// Drops a page's cached decode once the drive says it lacks the page.
    pub fn forget_if_unsupported<T>(&self, source: Source, slot: &mut Option<T>) {
        if self.is_unsupported(source) {
            *slot = None;
        }
    }

    /// What the exporter believes about every page asked so far.
    pub fn beliefs(&self) -> Vec<(Source, bool)> {
        self.support.iter().map(|(&s, &b)| (s, b)).collect()
    }

    /// Records that the drive does not have `source`; a mandatory page
    /// cannot be unsupported, so that is a counted failure instead.
    pub fn unsupported(&mut self, out: &mut PollOutcome, source: Source, why: &str) {
        if source.mandatory() {
            out.mandatory_unsupported = true;
            let msg = format!("{}: mandatory page not available: {why}", self.origin);
            self.fail(out, source, msg);
            return;
        }
        self.support.insert(source, false);
        if self.logged_unsupported.get(&source).map(String::as_str) != Some(why) {
            info!(device = %self.origin, source = source.as_label(),
                "page not supported; asked again with the next identity refresh: {why}");
            self.logged_unsupported.insert(source, why.to_string());
        }
    }

    /// Counts a failure of `source` in `out`; logs it unless it is the same
    /// failure as last time.
    pub fn fail(&mut self, out: &mut PollOutcome, source: Source, message: String) {
        self.support.entry(source).or_insert(true);
        if self.last_error.get(&source) != Some(&message) {
            warn!(device = %self.origin, source = source.as_label(), "poll failed: {message}");
            self.last_error.insert(source, message.clone());
        } else {
            debug!(device = %self.origin, source = source.as_label(), "poll failed again: {message}");
        }
        out.errors.push(PollError { source, message });
    }

    /// Records a good answer of `source`.
    pub fn ok(&mut self, source: Source) {
        self.support.insert(source, true);
        self.logged_unsupported.remove(&source);
        self.last_error.remove(&source);
    }

    /// The value of a fetch, or `None` with the failure recorded.
    pub fn fetched<T>(
        &mut self,
        out: &mut PollOutcome,
        source: Source,
        result: Result<T, FetchError>,
    ) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(FetchError::Unsupported(why)) => {
                self.unsupported(out, source, &why);
                None
            }
            Err(FetchError::Gone(why)) => {
                out.gone = true;
                self.fail(out, source, why);
                None
            }
            Err(FetchError::Failed(why)) => {
                self.fail(out, source, why);
                None
            }
            Err(FetchError::Denied(why)) => {
                // Said once for the drive by `unprivileged`, not per page.
                out.denied.push(source);
                self.support.entry(source).or_insert(true);
                debug!(device = %self.origin, source = source.as_label(), "not permitted: {why}");
                out.errors.push(PollError {
                    source,
                    message: why,
                });
                None
            }
        }
    }

    /// The decoded page, or `None` with the decode failure recorded.
    pub fn decoded<T, E: Display>(
        &mut self,
        out: &mut PollOutcome,
        source: Source,
        what: impl Display,
        result: Result<T, E>,
    ) -> Option<T> {
        match result {
            Ok(page) => {
                self.ok(source);
                Some(page)
            }
            Err(e) => {
                let msg = format!("{} {what}: {e}", self.origin);
                self.fail(out, source, msg);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
