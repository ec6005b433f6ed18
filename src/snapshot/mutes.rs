//! What a drive's verdict says of its mutes in the log: an override that
//! mutes by kernel name alone (warned when it applies), and a mute that
//! ended (logged once, by the first drive that meets it).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::SystemTime;

use crate::health::tuning::Tuning;
use crate::health::verdict::Mute;

/// Warns that `tuning`'s override mutes `device` by its kernel name
/// alone, which may name another drive after the next boot.
pub(super) fn warn_device_only(device: &str, serial: &str, tuning: &Tuning) {
    if !tuning.by_device_only || tuning.rules.mute.is_empty() {
        return;
    }
    tracing::warn!(
        device,
        serial,
        source = tuning.source.as_deref().unwrap_or_default(),
        "this override mutes the drive by its kernel name alone; kernel names move \
         between boots (sdX order, nvmeN numbering), so the mute can land on another \
         drive: match it by serial instead (serial: \"{serial}\")"
    );
}

/// Mutes already logged as ended, by where they are configured and when
/// they ended: each is logged once, by the first drive whose verdict meets
/// it (a mute of a model's override covers many drives).
static ENDED: Mutex<Option<BTreeSet<(String, SystemTime)>>> = Mutex::new(None);

/// Logs once that `m` ended; whether this call logged it.
pub(super) fn ended(device: &str, m: &Mute) -> bool {
    let Some(until) = m.until else {
        return false;
    };
    let mut logged = ENDED.lock().unwrap_or_else(|e| e.into_inner());
    if !logged
        .get_or_insert_with(BTreeSet::new)
        .insert((m.at.clone(), until))
    {
        return false;
    }
    let cause = m.cause.map_or(String::new(), |c| format!(", {c}"));
    tracing::warn!(
        device,
        source = m.at,
        problem = m.problem.as_label(),
        until = crate::timefmt::utc_seconds(until),
        "a mute ended ({}{cause}): the problem counts again; remove it from the config, or set a later until",
        m.problem.as_label()
    );
    true
}
