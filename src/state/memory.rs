//! The exporter's memory of every drive it has identified, by identity:
//! restored from the state file at start, handed to a drive's snapshot
//! when the drive first identifies itself (again after a change of
//! identity, or when it comes back after being removed), refreshed from
//! the snapshot after each verdict, and turned into the next file's
//! payload, bounded.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing::{info, warn};

use super::record::{Payload, Record, SelfTestKind, SelfTestRun};
use crate::health::history::History;
use crate::reading::Identity;
use crate::reading::nvme_depth::PelMark;
use crate::snapshot::DriveSnapshot;

mod restore;
pub use restore::Doubted;

/// Drives kept at most; past it the least recently seen are left out.
pub const MAX_DRIVES: usize = 1024;
/// A drive not seen for this long is forgotten.
pub const MAX_AGE: Duration = Duration::from_secs(365 * 24 * 3600);
/// A save with only the time of the newest reading changed waits this long
/// after the previous save (news, such as a counter that moved, is saved
/// at the next tick).
pub const REFRESH: Duration = Duration::from_secs(15 * 60);

/// Serial and model: which drive a record is (with the world-wide name
/// compared where both sides know one, [`Identity::is_same_drive`]).
type Key = (String, String);

fn key(id: &Identity) -> Option<Key> {
    (!id.serial.is_empty()).then(|| (id.serial.clone(), id.model.clone()))
}

fn ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[derive(Debug, Clone)]
struct Entry {
    wwn: String,
    transport: String,
    last_seen: SystemTime,
    history: History,
    last_self_test: Option<SelfTestRun>,
    last_extended_self_test: Option<SelfTestRun>,
    pel_mark: Option<PelMark>,
}

#[derive(Debug, Default)]
struct Inner {
    drives: BTreeMap<Key, Entry>,
    /// Per device, the newest counter values of the history it was just
    /// given, compared with its first reading to log a counter that went
    /// down meanwhile.
    restored: HashMap<String, Vec<(&'static str, u128)>>,
    /// Drives whose saved records came after they were first adopted
    /// ([`Memory::absorb`]): adopted again at their next verdict, and not
    /// kept until then (their fresh history would replace the saved one).
    late: std::collections::BTreeSet<Key>,
    /// Something besides reading times changed since the last payload.
    news: bool,
    /// Anything changed since the last payload.
    moved: bool,
    last_payload: Option<SystemTime>,
}

/// See the module doc. Shared by every drive's poll thread and the saver.
#[derive(Debug, Default)]
pub struct Memory {
    inner: Mutex<Inner>,
    /// Told when something to save appears (news, or the first move after
    /// a payload), so that the saver sleeps while there is nothing.
    changed: tokio::sync::Notify,
    /// Told when something must be saved now, not at the saver's next
    /// tick: a self-test started (a crash before the save would have the
    /// next start test the drive again).
    urgent: tokio::sync::Notify,
}

impl Memory {
    /// The memory a loaded payload holds, each history checked
    /// ([`History::restore`]) at `now` and made with `window`, the one the
    /// drives' snapshots are made with (`health.increase_window`); the
    /// records not believed as saved (refused, or moved back in time).
    pub fn from_payload(
        window: Option<Duration>,
        payload: Payload,
        now: SystemTime,
    ) -> (Memory, Vec<Doubted>) {
        let memory = Memory::default();
        let mut doubted = Vec::new();
        let mut inner = memory.lock();
        for r in payload.drives.into_iter().take(MAX_DRIVES) {
            if r.serial.is_empty() {
                continue;
            }
            let k = (r.serial.clone(), r.model.clone());
            match restore::restore(window, r, now) {
                Ok((entry, moved)) => {
                    doubted.extend(moved);
                    inner.drives.entry(k).or_insert(entry);
                }
                Err(refused) => doubted.push(refused),
            }
        }
        drop(inner);
        (memory, doubted)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drives remembered.
    pub fn len(&self) -> usize {
        self.lock().drives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Before a verdict: a drive that has identified itself and not been
    /// adopted yet gets the history remembered for its identity, if any,
    /// and its state age. A drive without a serial is not remembered.
    pub fn adopt(&self, s: &mut DriveSnapshot, now: SystemTime) {
        if !s.identified {
            return;
        }
        let k = key(&s.identity);
        let mut inner = self.lock();
        let late = k.as_ref().is_some_and(|k| inner.late.remove(k));
        if s.state_age.is_some() && !late {
            return;
        }
        s.state_age = Some(Duration::ZERO);
        let Some(k) = k else {
            return;
        };
        let Some(e) = inner.drives.get(&k) else {
            return;
        };
        let wwn_differs =
            !e.wwn.is_empty() && !s.identity.wwn.is_empty() && e.wwn != s.identity.wwn;
        if wwn_differs {
            return;
        }
        let age = now.duration_since(e.last_seen).unwrap_or_default();
        let history = e.history.clone();
        let values = history.latest_values();
        s.history = history;
        s.state_age = Some(age);
        info!(
            device = s.device,
            serial = s.identity.serial,
            age = %crate::timefmt::utc_seconds(e.last_seen),
            "history restored from the saved state"
        );
        inner.restored.insert(s.device.clone(), values);
    }

    /// After a verdict: remembers the drive's history (adopted drives only).
    pub fn keep(&self, s: &DriveSnapshot, now: SystemTime) {
        if s.state_age.is_none() {
            return;
        }
        let Some(k) = key(&s.identity) else {
            return;
        };
        let mut inner = self.lock();
        if inner.late.contains(&k) {
            return;
        }
        if let Some(before) = inner.restored.remove(&s.device) {
            went_down(s, &before);
        }
        let fresh = || Entry {
            wwn: s.identity.wwn.clone(),
            transport: s.identity.transport.as_str().to_string(),
            last_seen: now,
            history: History::new(None),
            last_self_test: None,
            last_extended_self_test: None,
            pel_mark: None,
        };
        let mut news = false;
        let e = inner.drives.entry(k).or_insert_with(|| {
            news = true;
            fresh()
        });
        if !e.wwn.is_empty() && !s.identity.wwn.is_empty() && e.wwn != s.identity.wwn {
            // Another drive with the same serial and model: this one wins.
            *e = fresh();
            news = true;
        }
        if e.wwn.is_empty() && !s.identity.wwn.is_empty() {
            e.wwn = s.identity.wwn.clone();
            news = true;
        }
        // The entry's history is a copy of this snapshot's (or the one it
        // was given): the same revision means only times moved.
        news |= e.history.revision() != s.history.revision();
        e.history = s.history.clone();
        // The event log is read with identity refreshes: a reading without
        // one leaves the mark as it was.
        let mark = s
            .reading
            .as_ref()
            .and_then(|r| r.nvme.as_ref()?.pel.as_ref()?.mark);
        if mark.is_some() && mark != e.pel_mark {
            e.pel_mark = mark;
            news = true;
        }
        e.last_seen = s.history.latest().unwrap_or(now);
        let wake = news && !inner.news || !inner.moved;
        inner.news |= news;
        inner.moved = true;
        drop(inner);
        if wake {
            self.changed.notify_one();
        }
    }

    /// How long the saver may sleep at `now` before a payload can be due:
    /// `None` when one is due now (news, or moves older than [`REFRESH`]),
    /// `Duration::MAX` when nothing moved. [`Self::changed`] ends the sleep
    /// early when something appears.
    pub fn until_due(&self, now: SystemTime) -> Option<Duration> {
        let inner = self.lock();
        if inner.news {
            return None;
        }
        if !inner.moved {
            return Some(Duration::MAX);
        }
        let age = now.duration_since(inner.last_payload?).unwrap_or_default();
        REFRESH.checked_sub(age).filter(|d| !d.is_zero())
    }

    /// Resolves when something to save appeared since the last call (at
    /// once if it appeared before this call: the wake-up is kept).
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// Resolves when something must be saved at once (as [`Self::changed`]
    /// keeps its wake-up).
    pub async fn urgent(&self) {
        self.urgent.notified().await;
    }

    /// The payload to save at `now`, if one is due: after news, after
    /// [`REFRESH`] when only times moved, or whenever anything moved with
    /// `force` (shutdown). Bounded: drives not seen for [`MAX_AGE`] are
    /// left out, and at most [`MAX_DRIVES`], most recently seen first.
    pub fn payload(&self, now: SystemTime, force: bool) -> Option<Payload> {
        let mut inner = self.lock();
        let stale = inner
            .last_payload
            .is_none_or(|t| now.duration_since(t).unwrap_or_default() >= REFRESH);
        if !(inner.news || inner.moved && (force || stale)) {
            return None;
        }
        inner.news = false;
        inner.moved = false;
        inner.last_payload = Some(now);
        let mut drives: Vec<Record> = inner
            .drives
            .iter()
            .filter(|(_, e)| now.duration_since(e.last_seen).unwrap_or_default() < MAX_AGE)
            .map(|((serial, model), e)| Record {
                serial: serial.clone(),
                model: model.clone(),
                wwn: e.wwn.clone(),
                transport: e.transport.clone(),
                last_seen_ms: ms(e.last_seen),
                history: e.history.saved(),
                last_self_test: e.last_self_test,
                last_extended_self_test: e.last_extended_self_test,
                pel_mark: e.pel_mark,
            })
            .collect();
        drives.sort_by_key(|d| std::cmp::Reverse(d.last_seen_ms));
        drives.truncate(MAX_DRIVES);
        Some(Payload {
            saved_at_ms: ms(now),
            boot_ms: None,
            drives,
        })
    }

    /// The persistent event log mark remembered for the drive with this
    /// serial and model (Identify Controller's, trimmed), if any.
    pub fn pel_mark(&self, serial: &str, model: &str) -> Option<PelMark> {
        let k = (serial.to_string(), model.to_string());
        self.lock().drives.get(&k)?.pel_mark
    }

    /// The newest short and extended self-tests the exporter started on
    /// the drive `id` is (an extended one counts for both), as remembered.
    pub fn self_test_runs(&self, id: &Identity) -> [Option<SystemTime>; 2] {
        let at =
            |r: Option<SelfTestRun>| r.map(|r| UNIX_EPOCH + Duration::from_millis(r.started_ms));
        let Some(k) = key(id) else {
            return [None, None];
        };
        let inner = self.lock();
        match inner.drives.get(&k) {
            Some(e) if e.wwn.is_empty() || id.wwn.is_empty() || e.wwn == id.wwn => {
                let extended = match e.last_self_test {
                    Some(r) if r.kind == SelfTestKind::Extended => Some(r),
                    _ => e.last_extended_self_test,
                };
                [at(e.last_self_test), at(extended)]
            }
            _ => [None, None],
        }
    }

    /// Remembers a self-test the exporter started on the drive `id` is
    /// (kept once the drive has been adopted; saved at once: [`Self::urgent`]).
    pub fn self_test_started(&self, id: &Identity, run: SelfTestRun) {
        let Some(k) = key(id) else {
            return;
        };
        let mut inner = self.lock();
        let Some(e) = inner.drives.get_mut(&k) else {
            return;
        };
        if let Some(prev) = e
            .last_self_test
            .filter(|p| p.kind == SelfTestKind::Extended)
        {
            e.last_extended_self_test = Some(prev);
        }
        if run.kind == SelfTestKind::Extended {
            e.last_extended_self_test = None;
        }
        e.last_self_test = Some(run);
        inner.news = true;
        drop(inner);
        self.changed.notify_one();
        self.urgent.notify_one();
    }

    /// Takes in the records of a state file loaded late (the directory's
    /// lock was held by another exporter at start, and is free now): each
    /// replaces what this run kept of the drive, whose next verdict adopts
    /// it as at a start, so that its baselines are the saved ones.
    pub fn absorb(&self, loaded: Memory) {
        let loaded = loaded.inner.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut inner = self.lock();
        for (k, e) in loaded.drives {
            inner.late.insert(k.clone());
            inner.drives.insert(k, e);
        }
        inner.news = true;
        drop(inner);
        self.changed.notify_one();
    }

    /// A payload was not written: the next one is due at the next tick.
    pub fn unsaved(&self) {
        self.lock().news = true;
        self.changed.notify_one();
    }
}

/// Logs each counter lower than the history it was restored with said: a
/// reset (by firmware, or a drive whose serial was reused), taken as a new
/// baseline.
fn went_down(s: &DriveSnapshot, before: &[(&'static str, u128)]) {
    let now = s.history.latest_values();
    for (name, saved) in before {
        if let Some(&(_, v)) = now.iter().find(|(n, _)| n == name) {
            if v < *saved {
                warn!(
                    device = s.device,
                    serial = s.identity.serial,
                    counter = name,
                    saved,
                    now = v,
                    "counter went down since the saved state (a reset by firmware?); counting from its new value"
                );
            }
        }
    }
}
