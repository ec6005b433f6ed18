//! The latest state of every drive, shared between pollers (writers) and
//! the HTTP server (reader). `/metrics` only ever encodes what is here.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use crate::device::sysfs::place::Place;
use crate::health::datasheet::{self, rating_for};
use crate::health::forecast;
use crate::health::history::History;
use crate::health::tuning::{Tuner, Tuning};
use crate::health::verdict::{self, Context, ProblemName, Verdict};
use crate::poll::{PollOutcome, Source};
use crate::probe::fleet::Fleet;
use crate::probe::op::ProbeOp;
use crate::probe::qos;
use crate::reading::{Identity, Reading};

/// History must span this long before the forecast prefers the exporter's
/// own observed wear rate over the drive's lifetime average.
const FORECAST_MIN_SPAN: Duration = Duration::from_secs(7 * 24 * 3600);

/// A supervised per-drive task: the `task` label of
/// `ssd_exporter_task_restarts_total`. The poll loop's restarts are counted
/// in the drive's snapshot ([`DriveSnapshot::restarts`]); the latency
/// probe's by the probe fleet, per block device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Task {
    Poll,
    Probe,
}

impl Task {
    pub const ALL: [Task; 2] = [Task::Poll, Task::Probe];

    pub fn as_label(self) -> &'static str {
        match self {
            Task::Poll => "poll",
            Task::Probe => "probe",
        }
    }
}

/// Everything the exporter knows about one drive.
#[derive(Debug, Clone)]
pub struct DriveSnapshot {
    /// Kernel name, the `device` label.
    pub device: String,
    /// Device node or dump folder the pages come from.
    pub origin: String,
    /// Why the poller reads no health from it ([`PollOutcome::not_judged`]).
    pub not_judged: Option<&'static str>,
    /// From the drive's identify data; from sysfs until the first poll.
    pub identity: Identity,
    /// Whether `identity` came from the drive's own pages (not sysfs).
    pub identified: bool,
    /// Where it sits (PCI address and slot, enclosure slot, by-path, the
    /// fabric it is reached over), from discovery; nothing for replays and
    /// the demo.
    pub place: Arc<Place>,
    /// Whether the last poll read and decoded the core health page.
    pub up: bool,
    /// Completed (or abandoned) polls, successful or not.
    pub polls: u64,
    pub last_success: Option<SystemTime>,
    pub last_poll_duration: Option<Duration>,
    /// CPU time spent in this drive's polls (the polling thread's own).
    pub poll_cpu: Duration,
    /// Polls deliberately not made, per reason (`standby`).
    pub skipped: BTreeMap<&'static str, u64>,
    /// Power mode from the last CHECK POWER MODE (SATA).
    pub power_mode: Option<&'static str>,
    /// Failures per source since the exporter started.
    pub errors: BTreeMap<Source, u64>,
    /// Restarts of this drive's supervised tasks after a panic.
    pub restarts: BTreeMap<Task, u64>,
    /// What the poller believes about each page it has asked for
    /// (`ssd_page_supported`), from the newest poll that was not skipped.
    pub pages: Vec<(Source, bool)>,
    /// The newest failure message, for the landing page.
    pub last_error: Option<String>,
    /// The reading from each page's newest good decode: a page that fails
    /// keeps its last values, so a failing drive loses nothing it reported
    /// before (`up`, the poll timestamp and the error counters say how
    /// fresh it is).
    pub reading: Option<Reading>,
    /// What the exporter saw of this drive before, for "increasing" rules.
    pub history: History,
    /// How old the saved state this drive's history was restored from was
    /// (`ssd_state_age_seconds`): zero when there was none. `None` without
    /// a state file, and until the state layer has seen the drive identify
    /// itself (again after its identity changed).
    pub state_age: Option<Duration>,
    /// The scheduled self-tests of a drive `selftest.schedule` covers
    /// (`ssd_self_test*` series); `None` for any other drive.
    pub self_tests: Option<ScheduledSelfTests>,
    /// The newest health verdict (after the first poll).
    pub verdict: Option<Verdict>,
    /// When each muted problem's mute ends, for the mutes in force at the
    /// last verdict that have an end (`ssd_health_mute_expiry_timestamp_seconds`).
    pub mute_expiry: Vec<(ProblemName, SystemTime)>,
    /// Seconds until percentage used reaches 100 % at the rate seen so far.
    pub wearout_seconds: Option<f64>,
    /// Bytes written against the rated endurance ([`Self::rated_endurance`]).
    pub endurance_used: Option<f64>,
    /// What the drive is judged against: the operator's value
    /// (`health.overrides[].rated_endurance_bytes`), the datasheet, or the
    /// drive's own estimate (`ssd_rated_endurance_bytes`).
    pub rated_endurance: Option<forecast::RatedEndurance>,
    /// This drive's health settings: the `health` section, or the first
    /// `health.overrides` entry matching it. Resolved when the drive is
    /// first judged, and again when its identity or the config changes.
    pub tuning: Arc<Tuning>,
    /// What `tuning` was resolved for: the tuner's generation, the model
    /// and the serial.
    tuned_for: Option<(u64, String, String)>,
    /// Whether a suspect OCP Endurance Estimate has been logged.
    ocp_estimate_logged: bool,
}

/// What the exporter did of a drive's scheduled self-tests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScheduledSelfTests {
    /// Tests started, by `crate::poll::selftest::Kind` index (`short`,
    /// `extended`), since the exporter started.
    pub started: [u64; 2],
    /// When the exporter last started one on this drive (this run or,
    /// through the state file, an earlier one).
    pub last_run: Option<SystemTime>,
}

impl DriveSnapshot {
    /// A drive that has been found but not polled yet.
    pub fn new(device: &str, origin: &str, identity: Identity) -> Self {
        Self {
            device: device.to_string(),
            origin: origin.to_string(),
            identity,
            identified: false,
            place: Arc::default(),
            up: false,
            polls: 0,
            last_success: None,
            last_poll_duration: None,
            poll_cpu: Duration::ZERO,
            skipped: BTreeMap::new(),
            power_mode: None,
            errors: BTreeMap::new(),
            pages: Vec::new(),
            restarts: BTreeMap::new(),
            last_error: None,
            reading: None,
            history: History::new(None),
            state_age: None,
            self_tests: None,
            verdict: None,
            mute_expiry: Vec::new(),
            wearout_seconds: None,
            endurance_used: None,
            rated_endurance: None,
            tuning: Arc::default(),
            tuned_for: None,
            ocp_estimate_logged: false,
            not_judged: None,
        }
    }

    /// Folds one poll's outcome in.
    pub fn apply(&mut self, outcome: PollOutcome, duration: Duration, now: SystemTime) {
        if outcome.power_mode.is_some() {
            self.power_mode = outcome.power_mode;
        }
        if let Some(reason) = outcome.skipped {
            *self.skipped.entry(reason).or_default() += 1;
            return;
        }
        self.polls += 1;
        self.last_poll_duration = Some(duration);
        self.up = outcome.up;
        self.not_judged = outcome.not_judged;
        if let Some(identity) = outcome.identity {
            self.identify(identity);
        }
        for e in &outcome.errors {
            *self.errors.entry(e.source).or_default() += 1;
        }
        self.pages = outcome.pages;
        if let Some(e) = outcome.errors.last() {
            self.last_error = Some(e.message.clone());
        } else if self.up {
            self.last_error = None;
        }
        if outcome.reading.is_some() {
            self.reading = outcome.reading;
        }
        if self.up {
            self.last_success = Some(now);
        }
    }

    /// Takes the identity a poll read. Another drive under the same name
    /// (swapped between two discovery passes, or another dump put in a
    /// replay folder) is a new drive: what was seen of the old one is not
    /// its history.
    fn identify(&mut self, identity: Identity) {
        if self.identified && !self.identity.is_same_drive(&identity) {
            tracing::warn!(
                device = self.device,
                serial = self.identity.serial,
                new_serial = identity.serial,
                model = identity.model,
                "another drive under this name; its history starts anew"
            );
            self.history = History::new(self.history.window());
            self.state_age = None;
            self.verdict = None;
            self.wearout_seconds = None;
            self.endurance_used = None;
        }
        self.identity = identity;
        self.identified = true;
    }

    /// Resolves [`DriveSnapshot::tuning`] again if the drive's identity or
    /// the tuner's generation changed since it last was; logs which
    /// override applies (once per drive at start, then when it changes).
    pub fn retune(&mut self, tuner: &dyn Tuner) {
        let key = (
            tuner.generation(),
            self.identity.model.clone(),
            self.identity.serial.clone(),
        );
        if self.tuned_for.as_ref() == Some(&key) {
            return;
        }
        let first = self.tuned_for.is_none();
        let tuning = tuner.tuning(&self.device, &self.identity);
        // Once per drive at start when an override applies; after a reload
        // or a new identity, when what applies changed.
        let changed = match first {
            true => tuning.source.is_some(),
            false => {
                tuning != self.tuning && (tuning.source.is_some() || self.tuning.source.is_some())
            }
        };
        if changed {
            mutes::warn_device_only(&self.device, &self.identity.serial, &tuning);
            let mute: Vec<&str> = tuning
                .rules
                .mute
                .iter()
                .map(|m| m.problem.as_label())
                .collect();
            match &tuning.source {
                Some(source) => tracing::info!(
                    device = self.device,
                    serial = self.identity.serial,
                    source,
                    mute = mute.join(","),
                    "health override applies"
                ),
                None => tracing::info!(
                    device = self.device,
                    serial = self.identity.serial,
                    "no health override applies any more"
                ),
            }
        }
        if tuning.increase_window != self.tuning.increase_window || first {
            self.history.set_window(tuning.increase_window);
        }
        self.tuning = tuning;
        self.tuned_for = Some(key);
    }

    /// Logs once per drive an OCP Endurance Estimate below one full drive
    /// write: served as reported, not used as a rating.
    fn log_suspect_ocp_estimate(&mut self, capacity: Option<u128>) {
        let estimate = self
            .reading
            .as_ref()
            .and_then(|r| forecast::ocp_estimate(r, capacity));
        if let Some(forecast::OcpEstimate::Suspect(bytes)) = estimate
            && !self.ocp_estimate_logged
        {
            self.ocp_estimate_logged = true;
            tracing::warn!(
                device = self.origin,
                estimate_bytes = bytes,
                capacity_bytes = capacity.map(|c| c as f64),
                "ocp c0h endurance estimate is below one full drive write: served, \
                 not used as the rated endurance (set health.overrides[].rated_endurance_bytes)"
            );
        }
    }

    /// Judges the drive after a poll with its [`DriveSnapshot::tuning`]:
    /// records the reading into the history, then the verdict, the
    /// wear-out forecast and the endurance used. `latency_over_qos` is
    /// `(op, measured, target)` for each datasheet QoS limit the probe
    /// shows exceeded.
    pub fn judge(&mut self, latency_over_qos: Vec<(ProbeOp, f64, f64)>, now: SystemTime) {
        if let Some(r) = &self.reading {
            self.history.record(now, r);
        }
        let tuning = Arc::clone(&self.tuning);
        let rules = &tuning.rules;
        let rating = rating_for(&self.identity.model, self.identity.capacity_bytes);
        let ctx = Context {
            up: self.up,
            polled: self.polls > 0,
            last_error: self.last_error.as_deref(),
            has_plp: datasheet::has_plp(rating.as_ref(), self.reading.as_ref()),
            latency_over_qos,
            not_judged: self.identity.kind.not_judged_because().or(self.not_judged),
        };
        self.verdict = Some(verdict::evaluate(
            self.reading.as_ref(),
            &self.history,
            &ctx,
            rules,
            now,
        ));
        self.mute_expiry = rules.mute.expiries(now);
        for m in rules.mute.ended(now) {
            mutes::ended(&self.device, m);
        }
        // The operator's figure for the drive wins over the datasheet's,
        // which wins over the drive's own estimates.
        let capacity = self.identity.capacity_bytes;
        self.rated_endurance = forecast::rated_endurance(
            tuning.rated_endurance_bytes,
            rating.as_ref(),
            self.reading.as_ref(),
            capacity,
        );
        self.log_suspect_ocp_estimate(capacity);
        self.endurance_used = self
            .reading
            .as_ref()
            .zip(self.rated_endurance.as_ref())
            .and_then(|(r, rated)| forecast::endurance_used(r, rated));
        self.wearout_seconds = self.reading.as_ref().and_then(|r| {
            let used = self.endurance_used;
            forecast::wearout_seconds(r, &self.history, FORECAST_MIN_SPAN, used)
        });
    }

    /// Records a poll that did not finish within its deadline.
    pub fn apply_deadline(&mut self, deadline: Duration) {
        self.polls += 1;
        self.up = false;
        self.last_poll_duration = Some(deadline);
        *self.errors.entry(Source::Poll).or_default() += 1;
        self.last_error = Some(format!(
            "{}: poll did not finish within {deadline:?}",
            self.origin
        ));
    }

    /// Records one more poll interval during which the overrunning poll
    /// is still stuck: counted, so an `increase()` alert keeps firing for
    /// as long as the drive hangs.
    pub fn apply_still_stuck(&mut self, stuck_for: Duration) {
        self.polls += 1;
        self.up = false;
        *self.errors.entry(Source::Poll).or_default() += 1;
        self.last_error = Some(format!(
            "{}: poll still stuck after {:.0?}",
            self.origin, stuck_for
        ));
    }
}

/// All drives, keyed by kernel name.
#[derive(Debug, Default)]
pub struct Store {
    drives: RwLock<BTreeMap<String, Arc<DriveSnapshot>>>,
    /// Drives with a blocking poll in flight, which may outlive the drive's
    /// poll loop (a drive removed while its open hangs): see [`Store::claim`].
    in_flight: Arc<Mutex<BTreeSet<String>>>,
    /// Per drive, held through each [`Store::update`] of it: a drive's poll
    /// thread and its watchdog can update it at the same moment (a poll
    /// ending just as its deadline passes), and each must see the other's
    /// result. Scrapes and other drives' updates never wait for it.
    updating: Mutex<BTreeMap<String, Arc<Mutex<()>>>>,
}

/// The right to poll a drive; held by its poll thread and released when
/// that thread ends (after a stuck call returns, if it is stuck).
#[derive(Debug)]
pub struct Claim {
    device: String,
    in_flight: Arc<Mutex<BTreeSet<String>>>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.device);
    }
}

impl Store {
    /// Claims `device` for its poll thread; `None` while an earlier loop's
    /// thread still runs, even one whose loop has ended (stuck in a call):
    /// at most one poll thread per drive, so a drive removed and re-added
    /// while its open hangs does not take another thread each time.
    pub fn claim(&self, device: &str) -> Option<Claim> {
        let mut set = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        set.insert(device.to_string()).then(|| Claim {
            device: device.to_string(),
            in_flight: Arc::clone(&self.in_flight),
        })
    }

    pub fn insert(&self, snap: DriveSnapshot) {
        let mut drives = self.drives.write().unwrap_or_else(|e| e.into_inner());
        drives.insert(snap.device.clone(), Arc::new(snap));
    }

    /// Applies `f` to a copy of `device`'s snapshot and publishes it. `f`
    /// (the poll's outcome and the judge) runs outside the lock scrapes
    /// read through, so it never holds up a scrape or another drive. A
    /// drive's updates run one at a time, so none is lost; a drive removed or inserted anew meanwhile
    /// keeps that newer state. `f` must not update the same drive.
    pub fn update(&self, device: &str, f: impl FnOnce(&mut DriveSnapshot)) {
        let this_drive = {
            let mut locks = self.updating.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(locks.entry(device.to_string()).or_default())
        };
        let _one_at_a_time = this_drive.lock().unwrap_or_else(|e| e.into_inner());
        let Some(current) = self.get(device) else {
            return;
        };
        let mut next = Arc::clone(&current);
        f(Arc::make_mut(&mut next));
        let mut drives = self.drives.write().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = drives.get_mut(device).filter(|s| Arc::ptr_eq(s, &current)) {
            *slot = next;
        }
    }

    pub fn remove(&self, device: &str) {
        let mut drives = self.drives.write().unwrap_or_else(|e| e.into_inner());
        drives.remove(device);
    }

    /// One drive's current snapshot.
    pub fn get(&self, device: &str) -> Option<Arc<DriveSnapshot>> {
        let drives = self.drives.read().unwrap_or_else(|e| e.into_inner());
        drives.get(device).cloned()
    }

    /// The current snapshots, cheaply cloned, sorted by device name.
    pub fn list(&self) -> Vec<Arc<DriveSnapshot>> {
        let drives = self.drives.read().unwrap_or_else(|e| e.into_inner());
        drives.values().cloned().collect()
    }
}

/// Judges a drive's snapshot after each poll (health verdict, forecast).
/// One for `serve` and `check`, made by [`judge`].
pub type Judge = Arc<dyn Fn(&mut DriveSnapshot, SystemTime) + Send + Sync>;

/// The verdict after each poll, with each drive's settings from `tuner`
/// and, given the probe fleet, the probes' tail latency against the
/// model's datasheet QoS.
pub fn judge(tuner: Arc<dyn Tuner>, probes: Option<Arc<Fleet>>) -> Judge {
    Arc::new(move |s: &mut DriveSnapshot, now| {
        s.retune(tuner.as_ref());
        let mut over = Vec::new();
        if let (true, Some(p)) = (s.tuning.rules.latency_qos, &probes) {
            for t in qos::targets_for(&s.identity.model) {
                if let Some(v) = qos::breach(|q| p.quantile(&s.device, t.op, q), t.seconds) {
                    over.push((t.op, v, t.seconds));
                }
            }
        }
        s.judge(over, now);
    })
}

mod mutes;

#[cfg(test)]
mod tests;
