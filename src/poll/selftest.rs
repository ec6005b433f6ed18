//! Scheduled self-tests (`selftest.*`, opt-in): which test is due on a
//! drive, and the host-wide limit on drives testing at a time. Pure
//! decisions over what the poll already knows (standby, the drive's own
//! in-progress flag, the busy detector's verdict, the last runs): the
//! poll thread of each drive asks [`Slots::decide`] after each poll and
//! sends the command itself (`app::selftest`), so the command has the
//! drive's one command thread and its deadline like any page.
//!
//! Staggered: at most `selftest.concurrency` drives hold a slot, from the
//! start until a poll after it finds the drive no longer testing (or, on
//! a drive that cannot say, [`Policy::unknown_hold`]), so a RAID set is
//! never tested all at once.
//!
//! Spread: a drive the exporter has no run of (a fresh install, a lost
//! state file, a new drive, a kind just scheduled) gets its first test at
//! its own point of the interval, [`place`] (from its serial), not at its
//! first poll, so no host and no fleet tests every drive at once.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::device::SelfTestOp;
use crate::device::discovery::Transport;

/// Default of `selftest.concurrency`.
pub const DEFAULT_CONCURRENCY: u64 = 1;
/// Bound of `selftest.concurrency`: drives testing at once on one host. A
/// test slows its drive's I/O while it runs; more than this at once is a
/// storm on any host, and a host with many drives still gets through them
/// (60 HDDs whose extended test takes 25 h each, 16 at a time: 4 days).
pub const MAX_CONCURRENCY: u64 = 16;
/// Bound of `selftest.schedule.*`.
pub const MAX_INTERVAL: Duration = Duration::from_secs(365 * 24 * 3600);
/// Least `selftest.schedule.short`: a short test takes up to 2 minutes (the
/// NVMe limit; 1-2 min on SATA SSDs, up to 5 on HDDs), so an hour keeps a
/// drive testing at most a few percent of the time; less is a typo or a
/// unit mistake more often than a wish.
pub const MIN_SHORT: Duration = Duration::from_secs(3600);
/// Least `selftest.schedule.extended`: an extended test takes tens of
/// minutes on an SSD and a day on a large HDD, so a drive tested more
/// often than daily would test most of the time (`30m` is a typo of `30d`).
pub const MIN_EXTENDED: Duration = Duration::from_secs(24 * 3600);
/// What a `selftest.schedule` error adds below the minimum.
pub const WHY_MIN: &str = "; a self-test slows its drive while it runs (set \
     selftest.allow_short_intervals: true to test more often, as in a test rig)";

/// How long a slot is held on a drive that does not report whether its
/// test still runs: about what a short test takes on the slowest disks
/// (smartctl's "recommended polling time" is 1–2 min on SSDs, 2–5 on
/// HDDs), and a day for an extended one (an 18 TB HDD's is ~25 h).
pub const UNKNOWN_HOLD: [Duration; 2] =
    [Duration::from_secs(15 * 60), Duration::from_secs(24 * 3600)];
/// A drive that says "in progress" for longer than this frees its slot
/// anyway (logged), so one stuck drive cannot stop the host's schedule.
pub const MAX_HOLD: Duration = Duration::from_secs(48 * 3600);

/// A scheduled test's kind: the `type` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Short,
    Extended,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Short, Kind::Extended];

    pub fn as_label(self) -> &'static str {
        match self {
            Kind::Short => "short",
            Kind::Extended => "extended",
        }
    }

    pub fn op(self) -> SelfTestOp {
        match self {
            Kind::Short => SelfTestOp::Short,
            Kind::Extended => SelfTestOp::Extended,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The least interval `selftest.schedule` accepts for this kind
    /// without `selftest.allow_short_intervals`.
    pub fn minimum(self) -> Duration {
        match self {
            Kind::Short => MIN_SHORT,
            Kind::Extended => MIN_EXTENDED,
        }
    }
}

/// The validated `selftest` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Interval between short tests of a drive; `None` = none.
    pub short: Option<Duration>,
    /// Interval between extended tests of a drive; `None` = none.
    pub extended: Option<Duration>,
    /// Drives testing at a time on this host, at least 1.
    pub concurrency: usize,
    /// Abort the scheduled tests still running at shutdown.
    pub abort_on_shutdown: bool,
    /// Transports scheduled (`selftest.transports`).
    pub transports: Vec<Transport>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            short: None,
            extended: None,
            concurrency: DEFAULT_CONCURRENCY as usize,
            abort_on_shutdown: false,
            transports: Transport::ALL.to_vec(),
        }
    }
}

impl Policy {
    /// Whether any test is scheduled.
    pub fn enabled(&self) -> bool {
        self.short.is_some() || self.extended.is_some()
    }

    /// The kinds scheduled more often than their minimum (only with
    /// `selftest.allow_short_intervals`), with their intervals.
    pub fn below_minimum(&self) -> Vec<(Kind, Duration)> {
        Kind::ALL
            .into_iter()
            .filter_map(|k| Some((k, self.interval(k)?)))
            .filter(|&(k, i)| i < k.minimum())
            .collect()
    }

    /// The interval of `kind`; `None` = not scheduled.
    pub fn interval(&self, kind: Kind) -> Option<Duration> {
        match kind {
            Kind::Short => self.short,
            Kind::Extended => self.extended,
        }
    }

    /// How long a drive that cannot say whether its `kind` test still
    /// runs holds its slot: [`UNKNOWN_HOLD`], or the test's interval when
    /// that is shorter (the next one would be due by then anyway).
    pub fn unknown_hold(&self, kind: Kind) -> Duration {
        let hold = UNKNOWN_HOLD[kind.index()];
        self.interval(kind).map_or(hold, |i| i.min(hold))
    }

    /// When a drive at `place` that has never run `kind` is first due,
    /// having waited for it since `from`: the first time at or after
    /// `from` that lies `place` into an interval counted from the Unix
    /// epoch (the same point of every interval, whenever the exporter
    /// started). `None` when `kind` is not scheduled.
    pub fn first_run(&self, kind: Kind, place: u64, from: SystemTime) -> Option<SystemTime> {
        let every = self.interval(kind)?.as_millis().max(1);
        let from_ms = from.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let offset = u128::from(place) % every;
        // The first k with k * every + offset >= from_ms.
        let k = from_ms.saturating_sub(offset).div_ceil(every);
        let at = k * every + offset;
        let at = u64::try_from(at).ok()?;
        UNIX_EPOCH.checked_add(Duration::from_millis(at))
    }

    /// The test due at `now` after the last runs `last` (by [`Kind`]
    /// index), if any; a kind never run is due from `first` (by index;
    /// `None`: not yet placed, not due). An extended test is due first and
    /// counts as a short one too (it runs the short test's checks and
    /// more), so the short clock starts again from it.
    pub fn due(
        &self,
        last: [Option<SystemTime>; 2],
        first: [Option<SystemTime>; 2],
        now: SystemTime,
    ) -> Option<Kind> {
        let is_due = |kind: Kind, last: Option<SystemTime>| {
            let Some(every) = self.interval(kind) else {
                return false;
            };
            match last {
                Some(t) => now.duration_since(t).unwrap_or_default() >= every,
                None => first[kind.index()].is_some_and(|f| now >= f),
            }
        };
        let [short, extended] = last;
        let short = short.max(extended);
        if is_due(Kind::Extended, extended) {
            Some(Kind::Extended)
        } else if is_due(Kind::Short, short) {
            Some(Kind::Short)
        } else {
            None
        }
    }

    /// The kinds scheduled that `last` (by [`Kind`] index) has no run of
    /// (an extended run counts as a short one): those placed by [`place`].
    pub fn never_run(&self, last: [Option<SystemTime>; 2]) -> [bool; 2] {
        let [short, extended] = last;
        [
            self.short.is_some() && short.max(extended).is_none(),
            self.extended.is_some() && extended.is_none(),
        ]
    }
}

/// The last runs `last` as the schedule counts them at `now`: a run
/// recorded later than `now` (the clock stepped back since it was
/// recorded, or the state file was saved while the clock ran ahead) counts
/// as run at `now`, so it is due again one interval on, not once the clock
/// has caught up with it (years, for a host that boots in 1970). Kept by
/// the caller: the next call finds nothing in the future.
pub fn not_after(last: [Option<SystemTime>; 2], now: SystemTime) -> [Option<SystemTime>; 2] {
    last.map(|t| t.map(|t| t.min(now)))
}

/// A drive's place in every interval, from its serial: the first 8 bytes
/// of its SHA-256, big-endian. The same on every host and across restarts,
/// and spread evenly over any interval for a fleet's serials.
pub fn place(serial: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(serial.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    u64::from_be_bytes(first)
}

mod slots;
pub use slots::{Decision, Seen, Slots};

/// The page a drive's in-progress flag is read from: what a failed read
/// of it is counted under (`ssd_poll_errors_total{source}`).
pub fn flag_source(transport: Transport) -> crate::poll::Source {
    use crate::poll::Source;
    match transport {
        // Log 06h byte 0.
        Transport::Nvme => Source::SelfTestLog,
        // SMART READ DATA byte 363.
        Transport::Sata => Source::AtaSmart,
        // Log page 10h, its newest entry.
        Transport::Sas | Transport::Scsi => Source::ScsiLog(crate::scsi::log::SELF_TEST),
    }
}

#[cfg(test)]
mod tests;
