//! The host's slots: which drive may start a test after its poll, and
//! which are testing (the exporter's tests, and those someone else
//! started, which count against `selftest.concurrency` too).

use std::collections::HashMap;
use std::time::{Instant, SystemTime};

use super::{Kind, MAX_HOLD, Policy};

/// What the poll just learned about a drive, for [`Slots::decide`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen {
    /// A physical drive on this host whose transport is scheduled: not a
    /// virtual volume, a fabric target or a drive behind MegaRAID.
    pub eligible: bool,
    /// The poll found it in standby (ATA CHECK POWER MODE).
    pub standby: bool,
    /// The busy detector says it is too busy (`probe::busy`).
    pub busy: bool,
    /// The drive's own flag ([`crate::reading::Reading::self_test_in_progress`])
    /// as this poll read it: `None` when it did not (the page failed, the
    /// poll failed, or the drive has no such flag).
    pub in_progress: Option<bool>,
    /// The drive has given its flag at some poll: a `None` now is a failed
    /// read, not a drive that cannot say.
    pub reports: bool,
    /// The newest runs the exporter started, by [`Kind`] index.
    pub last: [Option<SystemTime>; 2],
    /// The drive's [`super::place`].
    pub place: u64,
    /// By [`Kind`] index, for a kind never run: since when the schedule
    /// has wanted it (its first test is due at the drive's place after).
    pub waiting: [Option<SystemTime>; 2],
    /// A rejected command's kind and when it may be tried again.
    pub retry_after: Option<SystemTime>,
}

/// What to do with a drive after its poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Nothing is due (or the schedule is off, or the drive is not tested).
    Idle,
    /// Send this test now: the slot is the drive's until it ends.
    Start(Kind),
    /// A test is due but waits: `standby`, `busy`, `testing` (the drive
    /// runs one of its own), `slots` (the host's limit is reached),
    /// `rejected` (the drive refused the last try).
    Defer(&'static str),
    /// The drive's test (started by the exporter) still runs.
    Running,
    /// The drive's test ended (or its hold ran out: `overheld`, when no
    /// read showed it ended): the slot is free.
    Ended { overheld: bool },
}

#[derive(Debug, Clone, Copy)]
struct Held {
    kind: Kind,
    since: Instant,
    /// The drive can say whether its test runs ([`Seen::reports`]).
    reports: bool,
}

/// The host's slots: drives whose test the exporter started and that have
/// not been seen to end, and drives seen running a test it did not start.
#[derive(Debug, Default)]
pub struct Slots {
    held: HashMap<String, Held>,
    /// Since when each drive has been seen running a test someone else
    /// started (an operator, the drive itself, an exporter before this
    /// one): it takes a slot until a read shows it ended, or for
    /// [`MAX_HOLD`] at most.
    foreign: HashMap<String, Instant>,
}

impl Slots {
    /// Drives holding a slot with a test the exporter started.
    pub fn holders(&self) -> Vec<String> {
        let mut v: Vec<String> = self.held.keys().cloned().collect();
        v.sort();
        v
    }

    /// The tests a shutdown may abort: the exporter's own, on drives that
    /// say a test runs (on one that cannot say, the test may have ended
    /// and another begun). Never a test someone else started.
    pub fn own_running(&self) -> Vec<String> {
        let mut v: Vec<String> = (self.held.iter())
            .filter(|(_, h)| h.reports)
            .map(|(d, _)| d.clone())
            .collect();
        v.sort();
        v
    }

    /// Gives back `device`'s slot (a drive gone, or a start that failed).
    pub fn release(&mut self, device: &str) {
        self.held.remove(device);
        self.foreign.remove(device);
    }

    /// Whether `device` was last seen running someone else's test, less
    /// than [`MAX_HOLD`] ago.
    fn testing(&self, device: &str, mono: Instant) -> bool {
        (self.foreign.get(device)).is_some_and(|&t| mono.saturating_duration_since(t) < MAX_HOLD)
    }

    /// Slots taken at `mono`: the exporter's tests and the others'.
    fn taken(&self, mono: Instant) -> usize {
        let foreign = self.foreign.keys().filter(|d| self.testing(d, mono));
        self.held.len() + foreign.count()
    }

    /// Decides for `device` after a poll at `now` (`mono` the monotonic
    /// clock), taking a slot on [`Decision::Start`] and freeing one on
    /// [`Decision::Ended`].
    pub fn decide(
        &mut self,
        policy: &Policy,
        device: &str,
        seen: &Seen,
        now: SystemTime,
        mono: Instant,
    ) -> Decision {
        if let Some(h) = self.held.get_mut(device) {
            h.reports |= seen.reports;
            let h = *h;
            return self.ours(policy, device, h, seen, mono);
        }
        // Someone else's test on a drive the schedule covers: counted
        // until a read shows it over (a failed read keeps it).
        match seen.in_progress {
            Some(true) if seen.eligible => {
                self.foreign.entry(device.to_string()).or_insert(mono);
            }
            Some(_) => {
                self.foreign.remove(device);
            }
            None => {}
        }
        if !policy.enabled() || !seen.eligible {
            return Decision::Idle;
        }
        let first = Kind::ALL.map(|k| {
            let since = seen.waiting[k.index()]?;
            policy.first_run(k, seen.place, since)
        });
        let Some(kind) = policy.due(seen.last, first, now) else {
            return Decision::Idle;
        };
        let reason = if seen.retry_after.is_some_and(|t| now < t) {
            "rejected"
        } else if seen.standby {
            "standby"
        } else if seen.in_progress == Some(true) || self.testing(device, mono) {
            "testing"
        } else if seen.busy {
            "busy"
        } else if self.taken(mono) >= policy.concurrency.max(1) {
            "slots"
        } else {
            let held = Held {
                kind,
                since: mono,
                reports: seen.reports,
            };
            self.held.insert(device.to_string(), held);
            return Decision::Start(kind);
        };
        Decision::Defer(reason)
    }

    /// The exporter's test on `device`, held since `h.since`: ended when a
    /// read says so; a drive that cannot say holds it for
    /// [`Policy::unknown_hold`]; a failed read of one that can keeps it;
    /// none holds it past [`MAX_HOLD`].
    fn ours(
        &mut self,
        policy: &Policy,
        device: &str,
        h: Held,
        seen: &Seen,
        mono: Instant,
    ) -> Decision {
        let held = mono.saturating_duration_since(h.since);
        // Whether a read could show the test over: a drive that cannot
        // say ends its hold by the clock, and that is no news.
        let sayable = seen.in_progress.is_some() || h.reports;
        let over = match seen.in_progress {
            Some(false) => true,
            _ if sayable => held >= MAX_HOLD,
            _ => held >= policy.unknown_hold(h.kind),
        };
        if !over {
            return Decision::Running;
        }
        self.held.remove(device);
        Decision::Ended {
            overheld: sayable && seen.in_progress != Some(false),
        }
    }
}
