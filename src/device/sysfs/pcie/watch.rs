//! A PCI function's link and AER files, read poll after poll at one system
//! call per file. The function's folder is resolved once; the files that
//! move (the current link speed and width, the AER counters) are kept open
//! and read again from offset 0, for which sysfs writes the attribute's
//! text afresh (`seq_read_iter` restarts at offset 0); the maxima, which
//! only a new device or slot changes, are read again every `every`th read,
//! and so is a file that was absent. A read that fails (the function went:
//! sysfs answers ENODEV on a file kept open) drops the whole view, and the
//! next read resolves the folder again.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::{
    AerError, AerSeverity, Link, Pcie, is_pci_address, parse_aer, parse_speed, parse_width,
};
use crate::device::sysfs::{ATTR_LIMIT, attr, name_of};

/// The files kept open: the current link, then the AER counters in
/// [`AerSeverity::ALL`] order.
const CURRENT_SPEED: &str = "current_link_speed";
const CURRENT_WIDTH: &str = "current_link_width";

/// The link and AER files of one PCI function.
#[derive(Debug)]
pub struct PcieWatch {
    function: PathBuf,
    speed: Option<File>,
    width: Option<File>,
    aer: [Option<File>; 3],
    /// The function's and its port's maxima: everything of [`Link`] but
    /// the current speed and width.
    maxima: Link,
    reads: u64,
    every: u64,
}

impl PcieWatch {
    /// The function `device` links to (a controller's `device`), if it is
    /// a PCI function; its files are opened by the first [`Self::read`].
    pub fn resolve(device: &Path, every: u64) -> Option<Self> {
        let function = std::fs::canonicalize(device).ok()?;
        let is_function = name_of(&function).is_some_and(is_pci_address);
        is_function.then(|| Self::at(function, every))
    }

    /// The function whose folder is `function`, resolved.
    pub fn at(function: PathBuf, every: u64) -> Self {
        Self {
            function,
            speed: None,
            width: None,
            aer: [None, None, None],
            maxima: Link::default(),
            reads: 0,
            every: every.max(1),
        }
    }

    /// The link and AER counters now, and the AER files that do not
    /// parse; `None` when a file kept open no longer reads (the function
    /// went): drop this watch and resolve again.
    pub fn read(&mut self) -> Option<(Pcie, Vec<AerError>)> {
        if self.reads % self.every == 0 {
            self.reopen();
        }
        self.reads += 1;
        let mut link = self.maxima;
        link.current_speed = text(self.speed.as_ref())?.as_deref().and_then(parse_speed);
        link.current_width = text(self.width.as_ref())?.as_deref().and_then(parse_width);
        let mut pcie = Pcie {
            link,
            aer: Vec::new(),
        };
        let mut errors = Vec::new();
        for (severity, file) in AerSeverity::ALL.into_iter().zip(&self.aer) {
            let Some(text) = text(file.as_ref())? else {
                continue;
            };
            match parse_aer(&text, severity) {
                Ok(counts) => pcie.aer.push(counts),
                Err(e) => errors.push(e),
            }
        }
        Some((pcie, errors))
    }

    /// Reads the maxima and opens the files that move (again).
    fn reopen(&mut self) {
        let dev = self.function.as_path();
        let speed = |dir: &Path, name| attr(dir, name).as_deref().and_then(parse_speed);
        let width = |dir: &Path, name| attr(dir, name).as_deref().and_then(parse_width);
        self.maxima = Link {
            max_speed: speed(dev, "max_link_speed"),
            max_width: width(dev, "max_link_width"),
            ..Link::default()
        };
        let port = dev
            .parent()
            .filter(|p| name_of(p).is_some_and(is_pci_address));
        if let Some(port) = port {
            self.maxima.port_max_speed = speed(port, "max_link_speed");
            self.maxima.port_max_width = width(port, "max_link_width");
        }
        let open = |name: &str| File::open(dev.join(name)).ok();
        self.speed = open(CURRENT_SPEED);
        self.width = open(CURRENT_WIDTH);
        self.aer = AerSeverity::ALL.map(|s| open(s.file()));
    }
}

/// The text of a file kept open, read from offset 0: `Some(None)` without
/// a file, `None` when the read fails.
fn text(file: Option<&File>) -> Option<Option<String>> {
    let Some(file) = file else {
        return Some(None);
    };
    let mut buf = [0u8; ATTR_LIMIT as usize];
    let n = file.read_at(&mut buf, 0).ok()?;
    let text = String::from_utf8_lossy(&buf[..n]);
    Some(Some(text.trim().to_string()))
}

#[cfg(test)]
mod tests;
