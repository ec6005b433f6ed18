//! Datasheet ratings of the drives this project is built around
//! (`shared/reference/drives.md`). Only what that file states is here; a
//! model it does not rate gets no number, never a guessed one. To add a
//! drive, add one `Entry` to `TABLE` and cite where its numbers come from.

use crate::nvme::Condition;
use crate::reading::Reading;

/// What a datasheet promises for one model and capacity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rating {
    /// Rated endurance in bytes written by the host (decimal TB × 10^12).
    pub tbw_bytes: Option<f64>,
    /// Rated drive writes per day over the warranty.
    pub dwpd: Option<f64>,
    pub warranty_years: Option<f64>,
    /// Whether the drive has power-loss protection.
    pub has_plp: Option<bool>,
}

/// One row of the table.
struct Entry {
    /// Matched case-insensitively in the model string.
    model: &'static str,
    /// Longer names that contain `model` but are other models.
    not: &'static [&'static str],
    /// Nominal capacities (decimal GB, inclusive) the ratings hold for;
    /// outside it, or with the capacity unknown, only `has_plp` is given.
    capacity_gb: Option<(u64, u64)>,
    tbw_bytes: Option<f64>,
    dwpd: Option<f64>,
    warranty_years: Option<f64>,
    has_plp: Option<bool>,
}

const TABLE: &[Entry] = &[
    // drives.md: "Kingston DC600M (SATA 6 Gb/s, 2.5", 480 GB – 7.68 TB) —
    // mixed-use, 1 DWPD for 5 years"; "PLP present".
    Entry {
        model: "DC600M",
        not: &["DC600ME"],
        capacity_gb: Some((480, 7680)),
        tbw_bytes: None,
        dwpd: Some(1.0),
        warranty_years: Some(5.0),
        has_plp: Some(true),
    },
    // drives.md: "Sabrent Rocket NVMe 4.0 (client NVMe, PCIe 4.0, 2 TB)":
    // "3600 TBW (2 TB), 5-year warranty"; "A client drive with no PLP".
    Entry {
        model: "Rocket 4.0",
        not: &[],
        capacity_gb: Some((2000, 2000)),
        tbw_bytes: Some(3600e12),
        dwpd: None,
        warranty_years: Some(5.0),
        has_plp: Some(false),
    },
    // drives.md: "Kingston DC2000B (NVMe, PCIe 4.0, M.2, 960 GB)": "power
    // loss protection (PLP) from on-board tantalum capacitors". No endurance
    // or warranty is stated there, so none is given here.
    Entry {
        model: "DC2000B",
        not: &[],
        capacity_gb: None,
        tbw_bytes: None,
        dwpd: None,
        warranty_years: None,
        has_plp: Some(true),
    },
];

/// The rating of `model` at `capacity_bytes`, if the table knows the model.
/// A DWPD rating becomes TBW as nominal capacity × DWPD × 365 × years.
pub fn rating_for(model: &str, capacity_bytes: Option<u128>) -> Option<Rating> {
    let e = TABLE.iter().find(|e| model_matches(model, e))?;
    let nominal = capacity_bytes.map(nominal_gb);
    let rated = match (e.capacity_gb, nominal) {
        (None, _) => true,
        (Some((lo, hi)), Some(gb)) => (lo..=hi).contains(&gb),
        (Some(_), None) => false,
    };
    if !rated {
        return Some(Rating {
            tbw_bytes: None,
            dwpd: None,
            warranty_years: None,
            has_plp: e.has_plp,
        });
    }
    let from_dwpd = match (e.dwpd, e.warranty_years, nominal) {
        (Some(dwpd), Some(years), Some(gb)) => Some(gb as f64 * 1e9 * dwpd * 365.0 * years),
        _ => None,
    };
    Some(Rating {
        tbw_bytes: e.tbw_bytes.or(from_dwpd),
        dwpd: e.dwpd,
        warranty_years: e.warranty_years,
        has_plp: e.has_plp,
    })
}

fn model_matches(model: &str, e: &Entry) -> bool {
    let model = model.to_ascii_uppercase();
    let has = |pattern: &str| model.contains(&pattern.to_ascii_uppercase());
    has(e.model) && !e.not.iter().any(|n| has(n))
}

/// The advertised capacity in decimal GB. Drives sized by IDEMA LBA1-03
/// have 97 696 368 + 1 953 504 × (GB − 50) sectors of 512 bytes, slightly
/// more than GB × 10^9 bytes (a "960 GB" drive has 960 197 124 096); the
/// formula is inverted and rounded. Below 50 GB it does not apply and the
/// byte count is rounded to GB directly.
fn nominal_gb(capacity_bytes: u128) -> u64 {
    const BASE: f64 = 97_696_368.0;
    const PER_GB: f64 = 1_953_504.0;
    let sectors = capacity_bytes as f64 / 512.0;
    let gb = if sectors >= BASE {
        (sectors - BASE) / PER_GB + 50.0
    } else {
        capacity_bytes as f64 / 1e9
    };
    gb.round() as u64
}

/// Whether a drive has power-loss protection: the datasheet first;
/// otherwise a drive that reports nonzero PLP health or PLP starts, or has
/// raised the volatile memory backup bit, has it. `None` when nothing says.
/// (A zero PLP health is no evidence: an OCP drive without capacitors may
/// report 0.)
pub fn has_plp(rating: Option<&Rating>, reading: Option<&Reading>) -> Option<bool> {
    if let Some(known) = rating.and_then(|r| r.has_plp) {
        return Some(known);
    }
    let r = reading?;
    let evidence = r.plp_health_ratio.is_some_and(|h| h > 0.0)
        || r.counters.plp_starts.is_some_and(|n| n > 0)
        || r.critical_warning
            .iter()
            .any(|&(n, set)| n == Condition::VolatileMemoryBackup && set);
    evidence.then_some(true)
}

#[cfg(test)]
mod tests;
