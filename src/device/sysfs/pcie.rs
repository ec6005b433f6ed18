//! The PCIe link of an NVMe controller's PCI function and its AER counters,
//! as the kernel shows them in sysfs, readable by anyone:
//!
//! - `current_link_speed`, `max_link_speed` (`drivers/pci/pci-sysfs.c`,
//!   `pci_speed_string`): `"8.0 GT/s PCIe"` since Linux 5.7, `"8 GT/s"`
//!   before; `"Unknown"` (`"Unknown speed"` before 5.7) when the link is
//!   down or the speed is not one the kernel knows;
//! - `current_link_width`, `max_link_width`: the lane count, `"%u"`; 0 while
//!   the link is down;
//! - `aer_dev_correctable`, `aer_dev_nonfatal`, `aer_dev_fatal`
//!   (`drivers/pci/pcie/aer.c`, `aer_stats_dev_attr`): one `"<name> <count>"`
//!   line per error type the kernel names (`RxErr`, `BadTLP`, …, `CmpltTO`,
//!   …), a `"dev_cor_errs_bit[<n>] <count>"` line (or `dev_fatal_errs_…`,
//!   `dev_nonfatal_errs_…`) for an unnamed bit that counted, and last
//!   `"TOTAL_ERR_COR <n>"` (`TOTAL_ERR_NONFATAL`, `TOTAL_ERR_FATAL`): the
//!   error messages the function sent since the kernel found it. Present
//!   only for a function with the AER capability.
//!
//! The upstream port (the parent folder in sysfs: a root port or a switch's
//! downstream port) has its own `max_link_*`; a link is degraded only
//! against what both ends can do ([`Link::degraded`]).

use std::path::Path;

use thiserror::Error;

mod watch;
pub use watch::PcieWatch;

/// An AER counter file: the `severity` label of `ssd_pcie_errors_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AerSeverity {
    Correctable,
    /// Uncorrectable, non-fatal: the transaction was lost, the link works.
    Nonfatal,
    /// Uncorrectable, fatal: the link was reset to recover.
    Fatal,
}

impl AerSeverity {
    pub const ALL: [AerSeverity; 3] = [Self::Correctable, Self::Nonfatal, Self::Fatal];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Correctable => "correctable",
            Self::Nonfatal => "nonfatal",
            Self::Fatal => "fatal",
        }
    }

    /// The sysfs attribute of the PCI function.
    pub fn file(self) -> &'static str {
        match self {
            Self::Correctable => "aer_dev_correctable",
            Self::Nonfatal => "aer_dev_nonfatal",
            Self::Fatal => "aer_dev_fatal",
        }
    }

    /// The name of the file's total line.
    fn total(self) -> &'static str {
        match self {
            Self::Correctable => "TOTAL_ERR_COR",
            Self::Nonfatal => "TOTAL_ERR_NONFATAL",
            Self::Fatal => "TOTAL_ERR_FATAL",
        }
    }
}

/// One AER counter file, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AerCounts {
    pub severity: AerSeverity,
    /// The `TOTAL_ERR_*` line: error messages sent.
    pub total: u64,
    /// The error types that counted (`CmpltTO 2`), in the file's order; a
    /// message can carry several, so they need not sum to `total`.
    pub nonzero: Vec<(String, u64)>,
}

/// Why an AER file does not read as the kernel writes it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AerError {
    #[error("{file}: line {line} is not \"<name> <count>\": {text:?}")]
    Line {
        file: &'static str,
        line: usize,
        text: String,
    },
    #[error("{file}: no {total} line")]
    NoTotal {
        file: &'static str,
        total: &'static str,
    },
    #[error("{file}: a line after {total}")]
    AfterTotal {
        file: &'static str,
        total: &'static str,
    },
}

/// Parses one AER counter file (the module's format); every line must be
/// a name without spaces and a decimal count, the total last.
pub fn parse_aer(text: &str, severity: AerSeverity) -> Result<AerCounts, AerError> {
    let (file, total_name) = (severity.file(), severity.total());
    let mut total = None;
    let mut nonzero = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = || AerError::Line {
            file,
            line: i + 1,
            text: line.chars().take(80).collect(),
        };
        let (name, count) = line.split_once(' ').ok_or_else(bad)?;
        let valid_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic());
        let digits = !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit());
        let count: u64 = match (valid_name, digits) {
            (true, true) => count.parse().map_err(|_| bad())?,
            _ => return Err(bad()),
        };
        if total.is_some() {
            return Err(AerError::AfterTotal {
                file,
                total: total_name,
            });
        }
        if name == total_name {
            total = Some(count);
        } else if count > 0 {
            nonzero.push((name.to_string(), count));
        }
    }
    let total = total.ok_or(AerError::NoTotal {
        file,
        total: total_name,
    })?;
    Ok(AerCounts {
        severity,
        total,
        nonzero,
    })
}

/// `max_link_speed` / `current_link_speed` text in transfers per second;
/// `None` for `Unknown` or anything that is not `<decimal> GT/s[ PCIe]`.
pub fn parse_speed(text: &str) -> Option<u64> {
    let text = text.trim();
    let number = text.strip_suffix(" PCIe").unwrap_or(text);
    let number = number.strip_suffix(" GT/s")?;
    let (whole, tenths) = match number.split_once('.') {
        Some((w, t)) if t.len() == 1 => (w, t),
        Some(_) => return None,
        None => (number, "0"),
    };
    let all_digits =
        |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || !all_digits(tenths) {
        return None;
    }
    let tenths: u64 = whole.parse::<u64>().ok()? * 10 + tenths.parse::<u64>().ok()?;
    (tenths > 0).then_some(tenths * 100_000_000)
}

/// `max_link_width` / `current_link_width` text in lanes; `None` for 0 (a
/// link that is down) or anything but a small decimal.
pub fn parse_width(text: &str) -> Option<u16> {
    let text = text.trim();
    let text = text.strip_prefix('x').unwrap_or(text);
    match text.parse::<u16>() {
        Ok(w) if (1..=64).contains(&w) && text.bytes().all(|b| b.is_ascii_digit()) => Some(w),
        _ => None,
    }
}

/// The link of one PCI function and of its upstream port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Link {
    /// Transfers per second now and at most (GT/s × 10⁹).
    pub current_speed: Option<u64>,
    pub max_speed: Option<u64>,
    pub current_width: Option<u16>,
    pub max_width: Option<u16>,
    /// The upstream port's own maxima (`None` without a port, or when it
    /// does not say).
    pub port_max_speed: Option<u64>,
    pub port_max_width: Option<u16>,
}

impl Link {
    /// The most the link can carry: the lower of the function's and its
    /// port's maxima (a Gen4 drive in a Gen3 slot runs Gen3 as built).
    pub fn capable(&self) -> (Option<u64>, Option<u16>) {
        fn lower<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(std::cmp::min(a, b)),
                (a, b) => a.or(b),
            }
        }
        (
            lower(self.max_speed, self.port_max_speed),
            lower(self.max_width, self.port_max_width),
        )
    }

    /// Whether the link trained below what both ends can do: `(speed,
    /// width)` lower than [`Link::capable`]. A link that is down (no current
    /// speed or width) is not judged here.
    pub fn degraded(&self) -> (bool, bool) {
        let (speed, width) = self.capable();
        let below = |now: Option<u64>, most: Option<u64>| matches!((now, most), (Some(n), Some(m)) if n < m);
        (
            below(self.current_speed, speed),
            below(self.current_width.map(u64::from), width.map(u64::from)),
        )
    }
}

/// What sysfs shows of a PCI function: its link and, where it has the AER
/// capability, its counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pcie {
    pub link: Link,
    /// One entry per counter file present, in [`AerSeverity::ALL`] order.
    pub aer: Vec<AerCounts>,
}

/// Reads the link and AER files of the PCI function at `dev` (a folder
/// such as `/sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0`) once; an
/// AER file that is present but does not parse is returned as the error
/// beside what did read. A poll reads through a [`PcieWatch`] instead.
pub fn read(dev: &Path) -> (Pcie, Vec<AerError>) {
    PcieWatch::at(dev.to_path_buf(), 1)
        .read()
        .unwrap_or_default()
}

/// A PCI function's sysfs name: `DDDD:BB:DD.F` in hex (`0000:01:00.0`).
pub fn is_pci_address(name: &str) -> bool {
    let b = name.as_bytes();
    let hex = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_hexdigit);
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && hex(0..4)
        && hex(5..7)
        && hex(8..10)
        && b[11].is_ascii_digit()
}

#[cfg(test)]
mod tests;
