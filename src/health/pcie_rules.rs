//! The verdict on an NVMe drive's PCIe link, from what sysfs shows of the
//! controller's PCI function ([`crate::device::sysfs::pcie`]):
//!
//! - `pcie_link_degraded` (warning): the link trained at a lower speed or
//!   width than both the drive and its port can do (x4 → x2, Gen4 → Gen3):
//!   a seating, riser, cable or slot problem that costs bandwidth and
//!   often comes with errors. A drive in a slot slower or narrower than
//!   itself runs as built and is not degraded;
//! - `pcie_errors_increasing`: the AER counters of uncorrectable errors
//!   rose while the exporter watched — non-fatal ones (a lost
//!   transaction, the link still up) a warning, fatal ones (the link reset
//!   to recover) critical. Correctable errors are counted and served, not
//!   judged: the link recovered them by itself.

use super::history::{self, History, Tracked};
use super::judgement::{Judge, ProblemName, Severity};
use crate::device::sysfs::pcie::{AerSeverity, Pcie};
use crate::reading::Reading;

pub(super) fn pcie(r: &Reading, history: &History, j: &mut Judge) {
    let Some(p) = &r.pcie else {
        return;
    };
    link(p, j);
    let mut rose = Vec::new();
    let mut severity = Severity::Warning;
    for (what, aer, level) in [
        (Tracked::PcieFatal, AerSeverity::Fatal, Severity::Critical),
        (
            Tracked::PcieNonfatal,
            AerSeverity::Nonfatal,
            Severity::Warning,
        ),
    ] {
        let Some((n, since)) = history.increase_since(what).filter(|&(n, _)| n > 0) else {
            continue;
        };
        severity = severity.max(level);
        let types: Vec<String> = p
            .aer
            .iter()
            .filter(|a| a.severity == aer)
            .flat_map(|a| a.nonzero.iter().map(|(t, c)| format!("{t} {c}")))
            .collect();
        let types = if types.is_empty() {
            String::new()
        } else {
            format!(" (since boot: {})", types.join(", "))
        };
        rose.push(format!(
            "{n} more {} PCIe error(s) since {}{types}",
            aer.as_label(),
            history::utc(since)
        ));
    }
    if !rose.is_empty() {
        let text = format!(
            "{}: uncorrectable errors on the drive's link; check the slot, riser or cable, the drive's seating and the platform's logs",
            rose.join("; ")
        );
        j.add(ProblemName::PcieErrorsIncreasing, severity, text);
    }
}

/// `pcie_link_degraded`, with what the link runs at and could.
fn link(p: &Pcie, j: &mut Judge) {
    let l = &p.link;
    let (slow, narrow) = l.degraded();
    if !(slow || narrow) {
        return;
    }
    let (speed, width) = l.capable();
    let show = |s: Option<u64>, w: Option<u16>| {
        let s = s.map_or("? GT/s".to_string(), gts);
        let w = w.map_or("x?".to_string(), |w| format!("x{w}"));
        format!("{s} {w}")
    };
    let text = format!(
        "the PCIe link runs at {}, below the {} the drive and its port can do; reseat the drive, check the slot, riser or cable",
        show(l.current_speed, l.current_width),
        show(speed, width)
    );
    j.add(ProblemName::PcieLinkDegraded, Severity::Warning, text);
}

/// Transfers per second as the kernel writes them: `8 GT/s`, `2.5 GT/s`.
fn gts(transfers: u64) -> String {
    let tenths = transfers / 100_000_000;
    match tenths % 10 {
        0 => format!("{} GT/s", tenths / 10),
        t => format!("{}.{t} GT/s", tenths / 10),
    }
}

#[cfg(test)]
mod tests;
