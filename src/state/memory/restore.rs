//! A record read back from the state file, checked before it is believed,
//! and what is done with one dated in the future.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Entry, ms};
use crate::health::history::{History, RestoreError};
use crate::state::record::Record;

/// A record the file held that was not believed as saved, and why: either
/// refused (the drive starts fresh) or, dated in the future, kept with
/// every time moved back (`moved`) so that its newest is "now".
#[derive(Debug)]
pub struct Doubted {
    pub serial: String,
    pub why: String,
    /// How far its times were moved back; `None`: refused.
    pub moved: Option<Duration>,
}

/// The newest time a record holds: its history's, its last sighting, its
/// self-test runs.
fn newest_ms(r: &Record) -> u64 {
    let runs = [r.last_self_test, r.last_extended_self_test];
    let runs = runs.into_iter().flatten().map(|run| run.started_ms);
    (r.history.newest_ms().into_iter())
        .chain(runs)
        .fold(r.last_seen_ms, u64::max)
}

/// `r` as an entry, its history checked at `now`. A record dated in the
/// future (the clock is behind the one it was saved under: a host that
/// boots with its clock behind and starts before NTP sets it) is not lost:
/// counter baselines need no clock, and the intervals between its times
/// hold, so every time is moved back until its newest is `now`.
pub(super) fn restore(
    window: Option<Duration>,
    mut r: Record,
    now: SystemTime,
) -> Result<(Entry, Option<Doubted>), Doubted> {
    let mut moved = None;
    let history = match History::restore(window, &r.history, now) {
        Err(RestoreError::Future(what)) => {
            let back = newest_ms(&r).saturating_sub(ms(now));
            r.history.shift_back(back);
            r.last_seen_ms = r.last_seen_ms.saturating_sub(back);
            let runs = [&mut r.last_self_test, &mut r.last_extended_self_test];
            for run in runs.into_iter().flatten() {
                run.started_ms = run.started_ms.saturating_sub(back);
            }
            moved = Some(Doubted {
                serial: r.serial.clone(),
                why: RestoreError::Future(what).to_string(),
                moved: Some(Duration::from_millis(back)),
            });
            History::restore(window, &r.history, now)
        }
        other => other,
    };
    let history = history.map_err(|e| Doubted {
        serial: r.serial.clone(),
        why: e.to_string(),
        moved: None,
    })?;
    let entry = Entry {
        wwn: r.wwn,
        transport: r.transport,
        last_seen: UNIX_EPOCH + Duration::from_millis(r.last_seen_ms),
        history,
        last_self_test: r.last_self_test,
        last_extended_self_test: r.last_extended_self_test,
        pel_mark: r.pel_mark,
    };
    Ok((entry, moved))
}
