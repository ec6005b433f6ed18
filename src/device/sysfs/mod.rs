//! What sysfs says about a drive beside its pages, read without any
//! privilege: where it sits ([`place`]: PCI address and slot, SAS address,
//! enclosure slot, the persistent `by-path` name), the PCIe link it sits on
//! and the AER counters of that link ([`pcie`]), and the temperature the
//! kernel's hwmon drivers report ([`hwmon`]). Each module is pure parsers
//! over the text sysfs holds, tested on kernel-format text, plus a thin
//! reader; nothing here writes anything.

pub mod hwmon;
pub mod pcie;
pub mod place;

use std::io::Read;
use std::path::Path;

/// The most a sysfs attribute holds (one page); a longer file is not an
/// attribute the kernel wrote, and is cut there.
pub(crate) const ATTR_LIMIT: u64 = 4096;

/// The text of the attribute `dir/name`, trimmed; `None` when it cannot be
/// read (absent, not readable, not text).
pub fn attr(dir: &Path, name: &str) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(dir.join(name))
        .ok()?
        .take(ATTR_LIMIT)
        .read_to_string(&mut text)
        .ok()?;
    Some(text.trim().to_string())
}

/// The attribute `dir/name` made printable as a drive's own identity
/// strings are ([`crate::decode::printable`]: each byte outside ASCII 20h
/// to 7Eh becomes `?`), after the newline the kernel ends it with; empty
/// when it cannot be read. For what reaches labels, logs and `check`'s
/// terminal output (model, serial, firmware, vendor): the kernel copies
/// these from the drive's INQUIRY or IDENTIFY, and a bridge or a driver may
/// pass control characters or escape sequences through.
pub fn printable_attr(dir: &Path, name: &str) -> String {
    let mut raw = Vec::new();
    match std::fs::File::open(dir.join(name)) {
        Ok(f) => match f.take(ATTR_LIMIT).read_to_end(&mut raw) {
            Ok(_) => crate::decode::printable(raw.trim_ascii()),
            Err(_) => String::new(),
        },
        Err(_) => String::new(),
    }
}

/// The file name of `p` as text (`None` for `..` or a non-UTF-8 name).
pub(crate) fn name_of(p: &Path) -> Option<&str> {
    p.file_name()?.to_str()
}
