//! Scheduled self-tests, wired: after each poll a covered drive's poll
//! thread asks the host's [`Slots`] whether to start a test and sends it
//! through its own poller (the drive's one command thread, under the poll
//! deadline's watchdog); the runs are remembered in the state file and
//! served as `ssd_self_test*`. A drive that rejects the command is counted
//! (`ssd_poll_errors_total{source="self_test"}`), logged once, and tried
//! again only after the test's interval. At shutdown, with
//! `selftest.abort_on_shutdown`, the running tests it started are aborted
//! (never one someone else started).
//!
//! Covered: physical drives on this host whose transport is in
//! `selftest.transports`. Never a virtual volume (the controller's, not a
//! drive's), an NVMe over fabrics target (its media serve other hosts, and
//! their owner schedules its tests) or a drive behind MegaRAID (the
//! controller runs its own patrol read and consistency checks, and a test
//! through its pass-through is invisible to it).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tracing::{debug, info, warn};

use super::schedule::AfterPoll;
use crate::device::discovery::Transport;
use crate::device::{FetchError, SelfTestOp};
use crate::poll::selftest::{Decision, Kind, Policy, Seen, Slots};
use crate::poll::{Poller, Source};
use crate::probe::busy::{BusyPolicy, BusyTracker, Decision as Busy, DiskStat};
use crate::snapshot::{DriveSnapshot, ScheduledSelfTests, Store};
use crate::state::{Memory, SelfTestKind, SelfTestRun};

/// The longest the shutdown waits for the aborts.
const SHUTDOWN_ABORT: Duration = Duration::from_secs(5);

/// What the scheduler keeps per covered drive.
struct Drive {
    /// `<sysfs>/block/<dev>/stat` of its first block device.
    stat: Option<PathBuf>,
    busy: BusyTracker,
    last: [Option<SystemTime>; 2],
    /// Per kind never run, since when the schedule has wanted it
    /// ([`Seen::waiting`]).
    waiting: [Option<SystemTime>; 2],
    /// The memory has been asked for the drive's last runs.
    restored: bool,
    /// The snapshot's poll count and its flag page's error count at the
    /// last hook: whether the next poll read the flag ([`flag`]).
    polls: u64,
    flag_errors: u64,
    /// The drive has given its in-progress flag ([`Seen::reports`]).
    reports: bool,
    retry_after: Option<SystemTime>,
    /// The last rejection logged, so that it is logged once.
    rejected: Option<String>,
}

/// See the module doc. One per exporter, shared by every poll thread.
pub(crate) struct SelfTests {
    policy: RwLock<Arc<Policy>>,
    slots: Mutex<Slots>,
    /// Each its own lock, held only by its drive's poll thread (and the
    /// shutdown): a command stuck on one drive holds no other.
    drives: Mutex<HashMap<String, Arc<Mutex<Drive>>>>,
    memory: Option<Arc<Memory>>,
    store: Arc<Store>,
    epoch: Instant,
    /// The wall clock (a test's own in tests).
    clock: Clock,
}

/// Where [`SelfTests`] reads the wall clock.
pub(crate) type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The drive's in-progress flag as the poll just published read it:
/// `None` unless a poll ran since the last hook, the drive was up and its
/// flag's page did not fail (a page that fails keeps its last good decode
/// in the reading, which says nothing of a test started since).
fn flag(d: &mut Drive, s: &DriveSnapshot) -> Option<bool> {
    let source = crate::poll::selftest::flag_source(s.identity.transport);
    let errors = s.errors.get(&source).copied().unwrap_or(0);
    let read = s.polls != d.polls && errors == d.flag_errors && s.up;
    (d.polls, d.flag_errors) = (s.polls, errors);
    s.reading.as_ref()?.self_test_in_progress.filter(|_| read)
}

/// The drive's place in the interval, from its serial (its kernel name
/// without one); each kind it has never run waits from `now` on, logged
/// once.
fn place_waiting(
    policy: &Policy,
    d: &mut Drive,
    s: &DriveSnapshot,
    eligible: bool,
    now: SystemTime,
) -> u64 {
    let serial = match s.identity.serial.is_empty() {
        true => &s.device,
        false => &s.identity.serial,
    };
    let place = crate::poll::selftest::place(serial);
    let never = policy.never_run(d.last);
    for kind in Kind::ALL {
        let waiting = &mut d.waiting[kind as usize];
        if !(eligible && never[kind as usize]) {
            *waiting = None;
        } else if waiting.is_none() {
            *waiting = Some(now);
            placed(policy, &s.device, kind, place, now);
        }
    }
    place
}

/// The warning at start when self-tests are scheduled but the runs they
/// start cannot be remembered (`saves`: the state file can be written):
/// every restart would then test again.
pub(crate) fn unremembered(policy: &Policy, saves: bool) -> Option<&'static str> {
    (policy.enabled() && !saves).then_some(
        "selftest.schedule is set but the state file cannot be saved (state.path is none, not usable, or locked by another exporter): the self-tests started are not remembered, so each restart may test the drives again; set state.path to a writable directory",
    )
}

/// Logs where a drive's first `kind` test was placed in the interval.
fn placed(policy: &Policy, device: &str, kind: Kind, place: u64, now: SystemTime) {
    if let Some(at) = policy.first_run(kind, place, now) {
        info!(
            device,
            kind = kind.as_label(),
            at = %crate::timefmt::utc_seconds(at),
            "scheduled self-test: no {} run remembered; the drive's first is placed in the interval by its serial",
            kind.as_label()
        );
    }
}

/// Warns of intervals below their minimums (`selftest.allow_short_intervals`).
fn warn_short(policy: &Policy) {
    for (kind, interval) in policy.below_minimum() {
        warn!(
            kind = kind.as_label(),
            "selftest.allow_short_intervals: each drive gets a {} self-test every {interval:?}, below the {:?} minimum; for test rigs, never for a fleet",
            kind.as_label(),
            kind.minimum()
        );
    }
}

impl SelfTests {
    pub(crate) fn new(policy: Policy, memory: Option<Arc<Memory>>, store: Arc<Store>) -> Self {
        warn_short(&policy);
        Self {
            policy: RwLock::new(Arc::new(policy)),
            slots: Mutex::default(),
            drives: Mutex::default(),
            memory,
            store,
            epoch: Instant::now(),
            clock: Arc::new(SystemTime::now),
        }
    }

    /// The same with `clock` for the wall clock.
    #[cfg(test)]
    pub(crate) fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    pub(crate) fn policy(&self) -> Arc<Policy> {
        Arc::clone(&self.policy.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// A reload's `selftest` section, in force from each drive's next poll.
    pub(crate) fn replace(&self, policy: Policy) {
        warn_short(&policy);
        *self.policy.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(policy);
    }

    /// The hook of a covered drive's poll loop; `stat` is its block
    /// device's stat file, for the busy detector.
    pub(crate) fn cover(self: &Arc<Self>, device: &str, stat: Option<PathBuf>) -> AfterPoll {
        lock(&self.drives).insert(
            device.to_string(),
            Arc::new(Mutex::new(Drive {
                stat,
                busy: BusyTracker::new(BusyPolicy::default()),
                last: [None, None],
                waiting: [None, None],
                restored: false,
                polls: 0,
                flag_errors: 0,
                reports: false,
                retry_after: None,
                rejected: None,
            })),
        );
        let me = Arc::clone(self);
        Arc::new(move |device: &str, poller: &mut dyn Poller| me.after_poll(device, poller))
    }

    /// A drive gone: its slot and its memory of rejections go with it.
    pub(crate) fn forget(&self, device: &str) {
        lock(&self.drives).remove(device);
        lock(&self.slots).release(device);
    }

    /// What the poll just learned at `now`, as [`Slots::decide`] wants it.
    fn seen(&self, policy: &Policy, d: &mut Drive, s: &DriveSnapshot, now: SystemTime) -> Seen {
        if !d.restored && s.identified {
            d.restored = true;
            if let Some(m) = &self.memory {
                let saved = m.self_test_runs(&s.identity);
                for (mine, saved) in d.last.iter_mut().zip(saved) {
                    *mine = (*mine).max(saved);
                }
            }
        }
        d.last = crate::poll::selftest::not_after(d.last, now);
        // With self-tests off nothing is decided, so nothing is read: the
        // stat file would cost every poll of every drive its system calls.
        let stat = d
            .stat
            .as_ref()
            .filter(|_| policy.enabled())
            .and_then(|p| std::fs::read_to_string(p).ok());
        let busy = stat.and_then(|t| DiskStat::parse(&t)).is_some_and(|st| {
            let now = self.epoch.elapsed();
            matches!(d.busy.decide(now, st), Busy::SkipBusy { .. })
        });
        let eligible = s.identified
            && !s.identity.is_virtual()
            && policy.transports.contains(&s.identity.transport);
        let place = place_waiting(policy, d, s, eligible, now);
        let in_progress = flag(d, s);
        d.reports |= in_progress.is_some();
        Seen {
            eligible,
            standby: s.power_mode == Some("standby"),
            busy,
            in_progress,
            reports: d.reports,
            last: d.last,
            place,
            waiting: d.waiting,
            retry_after: d.retry_after,
        }
    }

    fn after_poll(&self, device: &str, poller: &mut dyn Poller) {
        let policy = self.policy();
        let Some(snap) = self.store.get(device) else {
            return;
        };
        let Some(drive) = lock(&self.drives).get(device).cloned() else {
            return;
        };
        let mut d = lock(&drive);
        let d = &mut *d;
        let now = (self.clock)();
        let seen = self.seen(&policy, d, &snap, now);
        let decision = lock(&self.slots).decide(&policy, device, &seen, now, Instant::now());
        let served = policy.enabled() && seen.eligible;
        match decision {
            Decision::Start(kind) => match poller.self_test(kind.op()) {
                Ok(()) => {
                    info!(
                        device,
                        kind = kind.as_label(),
                        "scheduled self-test started"
                    );
                    d.last[kind as usize] = Some(now);
                    if kind == Kind::Extended {
                        d.last[Kind::Short as usize] = Some(now);
                    }
                    d.rejected = None;
                    self.started(device, &snap, kind, now);
                }
                Err(e) => {
                    lock(&self.slots).release(device);
                    let interval = match kind {
                        Kind::Short => policy.short,
                        Kind::Extended => policy.extended,
                    };
                    d.retry_after = interval.map(|i| now + i);
                    self.rejected(device, d, kind, e);
                }
            },
            Decision::Defer(why) => debug!(device, why, "scheduled self-test due; deferred"),
            Decision::Ended { overheld: true } => warn!(
                device,
                "no read of the drive has shown its self-test over after {:?}; its slot is given to the next drive",
                crate::poll::selftest::MAX_HOLD
            ),
            Decision::Ended { .. } => info!(
                device,
                "scheduled self-test ended (result in the drive's self-test log)"
            ),
            Decision::Idle | Decision::Running => {}
        }
        let last = d.last[0].max(d.last[1]);
        if served != snap.self_tests.is_some()
            || served && snap.self_tests.as_ref().is_some_and(|t| t.last_run != last)
        {
            self.store.update(device, |s| match served {
                true => s.self_tests.get_or_insert_with(Default::default).last_run = last,
                false => s.self_tests = None,
            });
        }
    }

    fn started(&self, device: &str, snap: &DriveSnapshot, kind: Kind, now: SystemTime) {
        if let Some(m) = &self.memory {
            let started_ms = now
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            let kind = match kind {
                Kind::Short => SelfTestKind::Short,
                Kind::Extended => SelfTestKind::Extended,
            };
            m.self_test_started(&snap.identity, SelfTestRun { started_ms, kind });
        }
        self.store.update(device, |s| {
            let t = s.self_tests.get_or_insert_with(ScheduledSelfTests::default);
            t.started[kind as usize] += 1;
            t.last_run = Some(now);
        });
    }

    /// A rejected or failed start: counted each time, logged when its
    /// message is new.
    fn rejected(&self, device: &str, d: &mut Drive, kind: Kind, e: FetchError) {
        let message = e.to_string();
        if d.rejected.as_deref() != Some(message.as_str()) {
            warn!(
                device,
                kind = kind.as_label(),
                "scheduled self-test not started: {message}; trying again after the test's interval"
            );
            d.rejected = Some(message.clone());
        }
        self.store.update(device, |s| {
            *s.errors.entry(Source::SelfTest).or_default() += 1;
            s.last_error = Some(message);
        });
    }

    /// With `selftest.abort_on_shutdown`, aborts the tests still held (each
    /// through a new handle on the drive's node: its poll thread may be
    /// stuck), waiting at most [`SHUTDOWN_ABORT`].
    pub(crate) async fn shutdown(self: Arc<Self>, timeout: Duration) {
        let holders = self.to_abort();
        if holders.is_empty() {
            return;
        }
        let me = Arc::clone(&self);
        let aborting = tokio::task::spawn_blocking(move || {
            for device in holders {
                me.abort(&device, timeout);
            }
        });
        if tokio::time::timeout(SHUTDOWN_ABORT, aborting)
            .await
            .is_err()
        {
            warn!(
                "the self-test aborts did not finish within {SHUTDOWN_ABORT:?}; exiting without them"
            );
        }
    }

    /// The drives whose tests the shutdown aborts, only with
    /// `selftest.abort_on_shutdown`: those running a test the exporter
    /// started ([`Slots::own_running`]), never one someone else started.
    fn to_abort(&self) -> Vec<String> {
        match self.policy().abort_on_shutdown {
            true => lock(&self.slots).own_running(),
            false => Vec::new(),
        }
    }

    fn abort(&self, device: &str, timeout: Duration) {
        let Some(snap) = self.store.get(device) else {
            return;
        };
        let transport = snap.identity.transport;
        let path = std::path::Path::new(&snap.origin);
        let result = match transport {
            Transport::Nvme => {
                use crate::device::NvmeSource;
                crate::device::nvme_live::NvmeLive::new(path, timeout).self_test(SelfTestOp::Abort)
            }
            Transport::Sata => {
                use crate::device::AtaSource;
                crate::device::sata_live::SataLive::new(path, timeout).self_test(SelfTestOp::Abort)
            }
            Transport::Sas | Transport::Scsi => {
                use crate::device::ScsiSource;
                crate::device::scsi_live::ScsiLive::new(path, timeout).self_test(SelfTestOp::Abort)
            }
        };
        match result {
            Ok(()) => info!(
                device,
                "scheduled self-test aborted at shutdown (selftest.abort_on_shutdown)"
            ),
            Err(e) => warn!(device, "scheduled self-test not aborted at shutdown: {e}"),
        }
    }
}

#[cfg(test)]
mod tests;
