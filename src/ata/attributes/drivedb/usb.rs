//! The USB section of drivedb.h: entries whose family starts with `USB:`
//! map a USB bridge to the device type smartctl drives it with. Read as
//! smartmontools reads them (`knowndrives.cpp`):
//!
//! ```text
//! { "USB: <device>; <bridge>",   family: the enclosure and the bridge chip
//!   "0x152d:0x0583",             VID:PID, a regex over "0x%04x:0x%04x"
//!   "0x0214",                    bcdDevice, a regex over "0x%04x"; "" = any
//!   "",
//!   "-d sntjmicron" }            presets: only `-d TYPE`; "" = unsupported
//! ```
//!
//! [`UsbTable::lookup`] follows `lookup_usb_device`: the first entry whose
//! VID:PID matches is taken, unless a later one also matches the
//! bcdDevice exactly; two matching entries of different types with no
//! bcdDevice to choose between them are ambiguous. What a type means, and
//! what the exporter does with it, is `crate::usb`'s.

use super::Pattern;

/// One USB bridge entry.
#[derive(Debug, Clone)]
pub struct UsbEntry {
    /// `USB: <device>; <bridge>`, as the file spells it.
    pub family: String,
    /// The `0xVVVV:0xPPPP` pattern.
    pub id: Pattern,
    /// The `0xBBBB` bcdDevice pattern; `None` when the entry takes any.
    pub bcd: Option<Pattern>,
    /// The `-d` argument (`sat`, `sat,12`, `sntjmicron`, …); empty for a
    /// bridge drivedb.h marks unsupported; an error when the presets do
    /// not parse (smartmontools then stops its search: "syntax error").
    pub device_type: Result<String, String>,
}

/// What drivedb.h says about one bridge.
#[derive(Debug, Clone, Copy)]
pub enum UsbLookup<'a> {
    /// One entry decides (its `device_type` may be empty: unsupported).
    Found(&'a UsbEntry),
    /// Two entries of different types match and the bcdDevice does not
    /// choose (smartctl: "type is ambiguous").
    Ambiguous(&'a UsbEntry, &'a UsbEntry),
    /// No entry matches, or the matching one does not parse.
    Unknown,
}

/// The USB entries of one drivedb.h, in file order.
#[derive(Debug, Clone, Default)]
pub struct UsbTable {
    pub entries: Vec<UsbEntry>,
}

impl UsbTable {
    /// The entry for a bridge with these ids, as `lookup_usb_device` finds
    /// it (`bcd`: the USB device's `bcdDevice`, when known).
    pub fn lookup(&self, vid: u16, pid: u16, bcd: Option<u16>) -> UsbLookup<'_> {
        let id = format!("0x{vid:04x}:0x{pid:04x}");
        let bcd = bcd.map(|b| format!("0x{b:04x}"));
        let mut first: Option<&UsbEntry> = None;
        for e in self.entries.iter().filter(|e| e.id.is_match(&id)) {
            let Ok(ty) = &e.device_type else {
                return UsbLookup::Unknown;
            };
            let exact = match (&e.bcd, &bcd) {
                (Some(p), Some(b)) => p.is_match(b),
                _ => false,
            };
            match first {
                _ if exact => return UsbLookup::Found(e),
                None => first = Some(e),
                Some(f) if f.device_type.as_ref() != Ok(ty) => {
                    return UsbLookup::Ambiguous(f, e);
                }
                Some(_) => {}
            }
            // The first matching entry without a bcdDevice ends the search.
            if e.bcd.is_none() {
                break;
            }
        }
        first.map_or(UsbLookup::Unknown, UsbLookup::Found)
    }
}

/// Reads a USB entry's fields (`family` starts with `USB:`): an error
/// when a pattern does not parse; presets that do not parse are kept in
/// [`UsbEntry::device_type`].
pub fn entry(family: String, id: &str, bcd: &str, presets: &str) -> Result<UsbEntry, String> {
    Ok(UsbEntry {
        family,
        id: Pattern::new(id)?,
        bcd: (!bcd.is_empty()).then(|| Pattern::new(bcd)).transpose()?,
        device_type: device_type(presets),
    })
}

/// The `-d` argument of a USB entry's presets, as `parse_db_presets` reads
/// them with only `-d` allowed: options `-X ARG` separated by blanks, the
/// last `-d` winning, an argument at most 80 characters; anything else is a
/// syntax error. Empty presets are an unsupported bridge (`""`).
pub fn device_type(presets: &str) -> Result<String, String> {
    let mut ty = String::new();
    let mut words = presets.split([' ', '\t']).filter(|w| !w.is_empty());
    while let Some(opt) = words.next() {
        let bad = || format!("USB presets {presets:?}: only `-d TYPE` is allowed");
        if opt != "-d" {
            return Err(bad());
        }
        let arg = words.next().ok_or_else(bad)?;
        if arg.len() > 80 {
            return Err(format!(
                "USB presets {presets:?}: type longer than 80 characters"
            ));
        }
        ty = arg.to_owned();
    }
    Ok(ty)
}

#[cfg(test)]
mod tests;
