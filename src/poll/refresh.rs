//! The slow schedule every poller keeps: identity, the page lists and the
//! pages found unsupported are read again every so many polls (identity
//! changes only with a firmware update), and always while no identity is
//! held yet.

/// Live drives refresh identity every this many polls.
pub const LIVE_EVERY: u64 = 10;

/// Counts polls and says which of them refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refresh {
    every: u64,
    polls: u64,
}

impl Refresh {
    /// Every `every`th poll from the first (0 and 1: every poll).
    pub fn every(every: u64) -> Self {
        Self {
            every: every.max(1),
            polls: 0,
        }
    }

    /// Counts one poll; whether it refreshes: the first since [`Refresh::reset`],
    /// every `every`th after it, and any while `have_identity` is false.
    pub fn due(&mut self, have_identity: bool) -> bool {
        let due = !have_identity || self.polls % self.every == 0;
        self.polls += 1;
        due
    }

    /// The next poll refreshes (the drive may have been replaced).
    pub fn reset(&mut self) {
        self.polls = 0;
    }
}

#[cfg(test)]
mod tests;
