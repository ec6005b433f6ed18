//! A drive the exporter may not read: the node cannot be opened, or the
//! kernel refuses the command (EPERM, EACCES: no CAP_SYS_ADMIN for NVMe
//! admin commands, no CAP_SYS_RAWIO for ATA PASS-THROUGH, no access to the
//! node). That is how the exporter was deployed, not a failing drive, so
//! instead of a drive that is down with a failure counted every poll it
//! serves what sysfs gives without privileges — the identity discovery read
//! (model, serial, firmware), the temperature of the kernel's hwmon driver
//! (NVMe's own, drivetemp for SATA), the PCIe link — with `ssd_device_up 1`
//! and `ssd_page_supported 0` for every page it was refused, and says so
//! once, at warn level. The refused pages are asked again every poll, so a
//! capability or permission granted later is picked up.

use super::tracker::Tracker;
use super::{PollOutcome, Source};
use crate::device::sysfs::hwmon::Temps;
use crate::reading::Reading;

/// Turns a poll whose pages were refused into what sysfs gives
/// (`temps` is read only then); a poll that was not refused anything is
/// left as it is.
pub fn serve(out: &mut PollOutcome, tracker: &mut Tracker, temps: impl FnOnce() -> Option<Temps>) {
    if out.denied.is_empty() {
        return;
    }
    let denied = std::mem::take(&mut out.denied);
    let first = out
        .errors
        .iter()
        .find(|e| denied.contains(&e.source))
        .map(|e| e.message.clone())
        .unwrap_or_default();
    out.errors.retain(|e| !denied.contains(&e.source));
    for &source in &denied {
        match out.pages.iter_mut().find(|(s, _)| *s == source) {
            Some(belief) => belief.1 = false,
            None => out.pages.push((source, false)),
        }
    }
    out.pages.sort();
    let temps = temps();
    let what = if temps.is_some() {
        "identity from sysfs, temperature from hwmon"
    } else {
        "identity from sysfs (no hwmon temperature)"
    };
    let names: Vec<&str> = denied.iter().map(|s| s.as_label()).collect();
    tracker.warn_once(
        Source::Poll,
        &format!(
            "{first}; serving what sysfs gives instead ({what}, PCIe link) with ssd_page_supported 0 for {}",
            names.join(", ")
        ),
    );
    if let Some(t) = temps {
        let r = out.reading.get_or_insert_with(Reading::default);
        if r.temperatures.is_empty() {
            r.temperatures = t.sensors;
            r.temperature_critical_celsius = r.temperature_critical_celsius.or(t.critical);
        }
    }
    // Up when nothing but the refusals failed: sysfs answered.
    out.up |= out.errors.is_empty() && !out.gone;
}

#[cfg(test)]
mod tests;
