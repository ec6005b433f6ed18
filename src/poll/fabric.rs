//! A drive reached over NVMe over fabrics (`discovery.fabrics`): a remote
//! target's controller, whose temperature and spare are the target's, not
//! a drive's — a Linux nvmet target reports 0 K and 0 % (with a 0 %
//! threshold), an array its own summary. They are neither served nor
//! judged (the verdict lists them as unknown); everything else the target
//! answers is, like a local drive's.

use super::{PollOutcome, Poller};
use crate::reading::Reading;

/// The poller of a fabric drive: `inner`'s outcome without temperature and
/// spare.
pub struct Remote {
    inner: Box<dyn Poller>,
}

impl Remote {
    pub fn new(inner: Box<dyn Poller>) -> Self {
        Self { inner }
    }
}

/// Takes a remote target's temperature and spare out of `r`.
pub fn strip(r: &mut Reading) {
    r.temperatures.clear();
    r.temperature_warning_celsius = None;
    r.temperature_critical_celsius = None;
    r.available_spare_ratio = None;
    r.available_spare_threshold_ratio = None;
}

impl Poller for Remote {
    fn origin(&self) -> String {
        self.inner.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        let mut out = self.inner.poll();
        if let Some(r) = out.reading.as_mut() {
            strip(r);
        }
        out
    }

    fn reset(&mut self) {
        self.inner.reset();
    }
}

#[cfg(test)]
mod tests;
