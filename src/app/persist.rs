//! The state file's wiring: opened and loaded at start (never fatal: a
//! directory that cannot be used or a file that cannot be believed is one
//! warning, and the exporter runs without it), the memory wrapped around
//! each verdict, a save at most once per poll interval, and one at
//! shutdown. A directory another exporter holds locked is tried again
//! while this one runs, and its file loaded once it is free. File work runs
//! on blocking threads.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use tracing::{debug, info, warn};

use crate::config::Config;
use crate::poll::nvme::pel::PelMarks;
use crate::snapshot::Judge;
use crate::state::file::{self, BAD_NAME, LoadError};
use crate::state::{Counters, Memory, OpenError, StateDir};

/// The longest the shutdown waits for the last save (a hung disk must not
/// hold the exit until systemd's stop timeout).
const SHUTDOWN_SAVE: Duration = Duration::from_secs(5);

/// The state file in use.
pub(crate) struct Persist {
    /// `None` when saves are off (the directory could not be used).
    dir: std::sync::Mutex<Option<StateDir>>,
    /// The directory and the memory's window while another exporter holds
    /// its lock: tried again at each save's turn ([`Self::retry_lock`]).
    locked: Option<(std::path::PathBuf, Option<Duration>)>,
    memory: Arc<Memory>,
    pub counters: Arc<Counters>,
    /// The last save's failure, logged when it first appears and when it
    /// goes; held through each save.
    failing: std::sync::Mutex<Option<String>>,
}

/// Opens and loads `config.state_path`; `None` when state is off. Blocking.
pub(crate) fn open(config: &Config) -> Option<Persist> {
    let path = config.state_path.as_ref()?;
    let counters = Arc::new(Counters::default());
    let window = config.health.increase_window;
    let hint = "running without saving state; set state.path to a writable directory, or to none";
    let mut locked = None;
    let (dir, memory) = match StateDir::open(path) {
        Ok(dir) if dir.writable => {
            let memory = load(&dir, window, &counters, true);
            (Some(dir), memory)
        }
        Ok(dir) => {
            warn!(path = %path.display(), "state.path is not writable; {hint}");
            counters.save_errors.fetch_add(1, Ordering::Relaxed);
            // Still read: the baselines in it are better than none.
            (None, load(&dir, window, &counters, false))
        }
        Err(e @ OpenError::Locked) => {
            warn!(path = %path.display(), "state.path: {e}; running without saved state until it is free (tried again while this exporter runs)");
            counters.save_errors.fetch_add(1, Ordering::Relaxed);
            locked = Some((path.clone(), window));
            (None, Memory::default())
        }
        Err(e) => {
            warn!(path = %path.display(), "state.path: {e}; {hint}");
            counters.save_errors.fetch_add(1, Ordering::Relaxed);
            (None, Memory::default())
        }
    };
    Some(Persist {
        dir: std::sync::Mutex::new(dir),
        locked,
        memory: Arc::new(memory),
        counters,
        failing: Default::default(),
    })
}

/// The memory the state file holds; anything wrong with the file is one
/// warning (and the file kept aside when `aside`, so the next save does
/// not destroy it).
fn load(dir: &StateDir, window: Option<Duration>, counters: &Counters, aside: bool) -> Memory {
    let path = dir.file();
    let payload = match dir.load() {
        Ok(Some(p)) => p,
        Ok(None) => {
            info!(file = %path.display(), "no saved state yet; starting fresh");
            return Memory::default();
        }
        Err(e) => {
            counters.load_errors.fetch_add(1, Ordering::Relaxed);
            let kept = kept(dir, aside);
            let what = match e {
                LoadError::Future(_) => "written by a newer exporter",
                _ => "unreadable or damaged",
            };
            warn!(file = %path.display(), "state file {what}, ignored: {e}{kept}; starting fresh");
            return Memory::default();
        }
    };
    let saved_at = SystemTime::UNIX_EPOCH + Duration::from_millis(payload.saved_at_ms);
    let mut payload = payload;
    if !payload.same_boot(boot_ms()) {
        let n = payload.forget_boot_counts();
        if n > 0 {
            info!(file = %path.display(), drives = n, "saved in another boot: the PCIe error counts start again from the first reading");
        }
    }
    let (memory, doubted) = Memory::from_payload(window, payload, SystemTime::now());
    for d in &doubted {
        match d.moved {
            Some(by) => {
                warn!(file = %path.display(), serial = d.serial, "saved history dated {}s in the future ({}): the clock is behind the one it was saved under; kept, every time moved back by that much", by.as_secs(), d.why)
            }
            None => {
                warn!(file = %path.display(), serial = d.serial, "saved history not believed: {}; the drive starts fresh", d.why)
            }
        }
    }
    if !doubted.is_empty() {
        // The next save replaces a file not wholly believed: kept first.
        info!(file = %path.display(), "state file not wholly believed{}", kept(dir, aside));
        memory.unsaved();
    }
    info!(
        file = %path.display(),
        drives = memory.len(),
        saved = %crate::timefmt::utc_seconds(saved_at),
        "saved state loaded"
    );
    memory
}

/// Keeps the state file aside when `aside` ([`StateDir::keep_aside`]), and
/// says where, for the log line.
fn kept(dir: &StateDir, aside: bool) -> String {
    match aside.then(|| dir.keep_aside()) {
        Some(Ok(())) => format!("; kept as {BAD_NAME}"),
        Some(Err(e)) => format!("; could not keep it as {BAD_NAME}: {e}"),
        None => String::new(),
    }
}

impl Persist {
    /// `judge` with the memory around it: a drive is adopted before its
    /// verdict, kept after it.
    pub(crate) fn judge(&self, judge: Judge) -> Judge {
        let memory = Arc::clone(&self.memory);
        Arc::new(move |s, now| {
            memory.adopt(s, now);
            judge(s, now);
            memory.keep(s, now);
        })
    }

    /// Whether saves can succeed (the directory was usable at start).
    pub(crate) fn saves(&self) -> bool {
        self.dir.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// While another exporter holds the directory's lock: takes it if it is
    /// free now, and then loads the file into the memory
    /// ([`Memory::absorb`]), so this exporter does not run its whole life
    /// without history. Blocking.
    fn retry_lock(&self) {
        let Some((path, window)) = &self.locked else {
            return;
        };
        let mut dir = self.dir.lock().unwrap_or_else(|e| e.into_inner());
        if dir.is_some() {
            return;
        }
        match StateDir::open(path) {
            Ok(d) if d.writable => {
                info!(path = %path.display(), "state.path: the other exporter's lock is free; loading the saved state and saving from now on");
                self.memory.absorb(load(&d, *window, &self.counters, true));
                *dir = Some(d);
            }
            Err(OpenError::Locked) => debug!(path = %path.display(), "state.path still locked"),
            Ok(_) | Err(_) => {}
        }
    }

    /// The memory (for the scheduled self-tests' last runs).
    pub(crate) fn memory(&self) -> Arc<Memory> {
        Arc::clone(&self.memory)
    }

    /// The persistent event log marks the memory holds, by serial and
    /// model, for the NVMe pollers to take back before their first count.
    pub(crate) fn pel_marks(&self) -> PelMarks {
        let memory = Arc::clone(&self.memory);
        Arc::new(move |serial, model| memory.pel_mark(serial, model))
    }

    /// Writes what is due (everything with `force`). Blocking; one save
    /// at a time (the shutdown's may start while the loop's runs). Without
    /// a usable directory, a save that was due is counted as failed (the
    /// cause was logged at start), so an alert on the rate sees it.
    fn save(&self, force: bool) {
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        let Some(mut payload) = self.memory.payload(SystemTime::now(), force) else {
            return;
        };
        payload.boot_ms = boot_ms();
        let dir = self.dir.lock().unwrap_or_else(|e| e.into_inner());
        let Some(dir) = dir.as_ref() else {
            self.counters.save_errors.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let (bytes, dropped) = file::encode_capped(payload);
        if dropped > 0 {
            warn!(
                dropped,
                limit = file::LIMIT.bytes,
                "state file at its size cap; the least recently seen drives are left out"
            );
        }
        match dir.save(&bytes) {
            Ok(()) => {
                self.counters.saves.fetch_add(1, Ordering::Relaxed);
                debug!(bytes = bytes.len(), "state saved");
                if failing.take().is_some() {
                    info!(file = %dir.file().display(), "state file saves work again");
                }
            }
            Err(e) => {
                self.counters.save_errors.fetch_add(1, Ordering::Relaxed);
                self.memory.unsaved();
                let message = e.to_string();
                if failing.as_deref() != Some(message.as_str()) {
                    warn!(file = %dir.file().display(), "state file not saved: {message}; trying again each poll interval");
                }
                *failing = Some(message);
            }
        }
    }

    /// Saves at most once per `every` (the poll interval), until aborted;
    /// sleeps while nothing is due, so an idle exporter does not wake for
    /// it every interval. A self-test started is saved at once
    /// ([`Memory::urgent`]), so that a crash cannot have the next start
    /// test the drive again.
    pub(crate) async fn save_loop(self: Arc<Self>, every: Duration) {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = self.memory.urgent() => {}
            }
            if self.locked.is_some() {
                let me = Arc::clone(&self);
                let _ = tokio::task::spawn_blocking(move || me.retry_lock()).await;
            }
            while let Some(wait) = self.memory.until_due(SystemTime::now()) {
                if wait == Duration::MAX {
                    self.memory.changed().await;
                } else {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = self.memory.changed() => {}
                    }
                }
            }
            let me = Arc::clone(&self);
            // One save at a time: the next tick waits for this one.
            let _ = tokio::task::spawn_blocking(move || {
                me.retry_lock();
                me.save(false)
            })
            .await;
        }
    }

    /// The save at shutdown, waited for at most [`SHUTDOWN_SAVE`].
    pub(crate) async fn final_save(self: Arc<Self>) {
        let me = Arc::clone(&self);
        let saving = tokio::task::spawn_blocking(move || me.save(true));
        if tokio::time::timeout(SHUTDOWN_SAVE, saving).await.is_err() {
            warn!(
                "the state file's last save did not finish within {SHUTDOWN_SAVE:?}; exiting without it"
            );
        }
    }
}

/// Unix milliseconds of the host's boot: the wall clock less the time
/// since boot (`CLOCK_BOOTTIME`, which counts suspend too). `None` if
/// either clock cannot be read.
fn boot_ms() -> Option<u64> {
    use nix::time::{ClockId, clock_gettime};
    let up = Duration::from(clock_gettime(ClockId::CLOCK_BOOTTIME).ok()?);
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .ok()?;
    u64::try_from(now.checked_sub(up)?.as_millis()).ok()
}

#[cfg(test)]
mod tests;
