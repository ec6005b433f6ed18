//! smartd's `-n standby,N` (`poll.standby_max_skips`): a drive found in
//! standby is not woken, but after `N` polls skipped in a row one poll is
//! made anyway, so that a disk that is always asleep is still checked some
//! day. `N = 0` never forces one.

/// The skips in a row of one drive, and the most allowed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StandbySkips {
    max: u32,
    in_a_row: u32,
}

impl StandbySkips {
    pub fn new(max: u32) -> Self {
        Self { max, in_a_row: 0 }
    }

    /// The drive is in standby: true to skip this poll, false when `max`
    /// polls in a row were skipped already (the count starts again).
    pub fn skip(&mut self) -> bool {
        if self.max > 0 && self.in_a_row >= self.max {
            self.in_a_row = 0;
            return false;
        }
        self.in_a_row = self.in_a_row.saturating_add(1);
        true
    }

    /// The drive was found awake: the count starts again.
    pub fn awake(&mut self) {
        self.in_a_row = 0;
    }
}

#[cfg(test)]
mod tests;
