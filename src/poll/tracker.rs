//! What a poller remembers about each page of its drive across polls: which
//! ones the drive does not support (asked once, logged once, never counted
//! as errors) and the last failure logged (a persistent failure is counted
//! every poll but logged once).

use std::collections::{HashMap, HashSet};
use std::fmt::Display;

use tracing::{debug, info, warn};

use super::{PollError, PollOutcome};
use crate::device::FetchError;

#[derive(Debug)]
pub struct Tracker {
    origin: String,
    unsupported: HashSet<&'static str>,
    last_error: HashMap<&'static str, String>,
}

impl Tracker {
    pub fn new(origin: String) -> Self {
        Self {
            origin,
            unsupported: HashSet::new(),
            last_error: HashMap::new(),
        }
    }

    pub fn is_unsupported(&self, source: &str) -> bool {
        self.unsupported.contains(source)
    }

    pub fn mark_unsupported(&mut self, source: &'static str, why: &str) {
        if self.unsupported.insert(source) {
            info!(device = %self.origin, source, "page not supported, not asking again: {why}");
        }
    }

    /// Counts a failure of `source` in `out`; logs it unless it is the same
    /// failure as last time.
    pub fn fail(&mut self, out: &mut PollOutcome, source: &'static str, message: String) {
        if self.last_error.get(source) != Some(&message) {
            warn!(device = %self.origin, source, "poll failed: {message}");
            self.last_error.insert(source, message.clone());
        } else {
            debug!(device = %self.origin, source, "poll failed again: {message}");
        }
        out.errors.push(PollError { source, message });
    }

    /// The value of a fetch, or `None` with the failure recorded.
    pub fn fetched<T>(
        &mut self,
        out: &mut PollOutcome,
        source: &'static str,
        result: Result<T, FetchError>,
    ) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(FetchError::Unsupported(why)) => {
                self.mark_unsupported(source, &why);
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
        }
    }

    /// The decoded page, or `None` with the decode failure recorded.
    pub fn decoded<T, E: Display>(
        &mut self,
        out: &mut PollOutcome,
        source: &'static str,
        what: impl Display,
        result: Result<T, E>,
    ) -> Option<T> {
        match result {
            Ok(page) => {
                self.last_error.remove(source);
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
