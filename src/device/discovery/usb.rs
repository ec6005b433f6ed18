//! Disks behind USB bridges (`discovery.usb`). A `sd*` disk is behind USB
//! when its sysfs path runs through a USB device, the folder holding
//! `idVendor`, `idProduct` and `bcdDevice`, whose interface is driven by
//! `usb-storage` (bulk-only) or `uas`. How it is read follows smartctl's
//! `-d auto` on Linux (`os_linux.cpp`, `autodetect_smart_device` and
//! `get_usb_id`; `scsiata.cpp`, `get_usb_dev_type_by_id`):
//!
//! 1. drivedb.h's USB section decides the bridge's type by VID:PID and
//!    bcdDevice ([`UsbTable::lookup`]): SAT, one of the NVMe families, or a
//!    bridge it lists as unsupported or speaking an older protocol the
//!    exporter does not implement (then nothing is sent to it);
//! 2. a bridge drivedb.h does not know (or knows ambiguously) is left
//!    alone, as smartctl refuses it ("Unknown USB bridge"), unless it
//!    shows a SAT layer itself — INQUIRY vendor `ATA` or VPD page 89h in
//!    the kernel's copies, the hints the exporter has always taken (and
//!    smartmontools' `autodetect_sat_device` takes) — and is then tried as
//!    SAT: an IDENTIFY it refuses leaves it alone too (`poll::usb`).
//!
//! A disk left alone is still served: identity and capacity from what the
//! kernel read (sysfs), with no command sent, and never judged.

use std::path::Path;

use super::{
    Discovered, Filter, Kind, ScsiFacts, Transport, read_attr, scsi_transport, vpd_serial,
};
use crate::ata::attributes::drivedb::usb::{UsbLookup, UsbTable};
use crate::device::sysfs::place::{Bus, PlaceIndex};
use crate::device::sysfs::{attr, name_of};
use crate::usb::{Bridge, CdbLen, DeviceType, NvmeBridge};

/// Default of `discovery.usb`: on. The exporter watched USB disks that
/// show a SAT layer before this option existed, and what it sends is what
/// smartctl would send them and no more: CHECK POWER MODE first, so a
/// sleeping disk is skipped, not woken; only the commands drivedb.h's
/// type for the bridge carries; nothing to a bridge drivedb.h does not
/// know, lists as unsupported, or that refused once or never answered
/// ([`crate::poll::usb`]); never a probe or a self-test.
pub const DEFAULT_ON: bool = true;

/// At most this many folders above a disk are searched for the USB
/// device (smartmontools' `get_usb_id` stops after 10).
const MAX_DEPTH: usize = 10;

/// What sysfs says of the USB device a disk sits behind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsbFacts {
    pub vid: u16,
    pub pid: u16,
    /// `bcdDevice`: the device's release number.
    pub bcd: Option<u16>,
    /// The interface's driver: `usb-storage` or `uas`.
    pub driver: String,
    /// The USB device's `serial` string, empty when it has none.
    pub serial: String,
    /// `manufacturer` and `product` strings, for the log.
    pub manufacturer: String,
    pub product: String,
}

/// How a disk behind a bridge is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Plan {
    /// ATA through SAT.
    Sat(CdbLen),
    /// NVMe through a family's frames (`or_sat`: SAT when Identify
    /// Controller fails or names no model).
    Nvme { family: NvmeBridge, or_sat: bool },
    /// Nothing sent: identity and capacity from sysfs, never judged.
    Alone,
}

/// A disk behind a USB bridge: its bridge, how it is read and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsbDisk {
    pub facts: UsbFacts,
    pub bridge: Bridge,
    pub plan: Plan,
    /// The decision, for the log.
    pub why: String,
}

/// The USB device `block_dir` (`<sysfs>/block/sdX`) sits behind, if any.
pub fn usb_facts(block_dir: &Path) -> Option<UsbFacts> {
    let real = std::fs::canonicalize(block_dir.join("device")).ok()?;
    let device = real
        .ancestors()
        .take(MAX_DEPTH)
        .find(|a| a.join("idVendor").is_file())?;
    let hex = |name| attr(device, name).and_then(|v| u16::from_str_radix(&v, 16).ok());
    // The interface is the folder below the device on the disk's path.
    let interface = real
        .ancestors()
        .find(|a| a.parent() == Some(device))
        .map(|i| i.join("driver"));
    let driver = interface
        .and_then(|d| std::fs::canonicalize(d).ok())
        .and_then(|d| name_of(&d).map(str::to_string))
        .unwrap_or_default();
    Some(UsbFacts {
        vid: hex("idVendor")?,
        pid: hex("idProduct")?,
        bcd: hex("bcdDevice"),
        driver,
        serial: attr(device, "serial").unwrap_or_default(),
        manufacturer: attr(device, "manufacturer").unwrap_or_default(),
        product: attr(device, "product").unwrap_or_default(),
    })
}

/// How a bridge is read: drivedb.h's type, else SAT where the bridge shows
/// a SAT layer (`sat_hints`), else nothing (see the module's list).
pub fn plan(table: &UsbTable, f: &UsbFacts, sat_hints: bool) -> (Bridge, Plan, String) {
    let id = format!("{:04x}:{:04x}", f.vid, f.pid);
    let found = match table.lookup(f.vid, f.pid, f.bcd) {
        UsbLookup::Found(e) => e,
        UsbLookup::Ambiguous(a, b) => {
            let why = format!(
                "USB bridge {id}: drivedb.h has two types for it ({:?}, {:?}) and its bcdDevice does not choose; nothing sent to it",
                a.family, b.family
            );
            return (Bridge::Unknown, Plan::Alone, why);
        }
        UsbLookup::Unknown if sat_hints => {
            let why = format!(
                "USB bridge {id} not in drivedb.h; it shows a SAT layer (vendor ATA or VPD 89h): tried as SAT"
            );
            return (Bridge::Unknown, Plan::Sat(CdbLen::Sixteen), why);
        }
        UsbLookup::Unknown => {
            let why = format!(
                "USB bridge {id} not in drivedb.h and it shows no SAT layer: nothing sent to it (smartctl: \"Unknown USB bridge\")"
            );
            return (Bridge::Unknown, Plan::Alone, why);
        }
    };
    let ty = found.device_type.as_deref().unwrap_or_default();
    let of = format!("USB bridge {id}, drivedb.h {:?} type {ty:?}", found.family);
    match DeviceType::parse(ty) {
        Ok(DeviceType::Sat(len)) => (Bridge::Sat, Plan::Sat(len), of),
        Ok(DeviceType::Nvme { family, or_sat }) => {
            (family.bridge(), Plan::Nvme { family, or_sat }, of)
        }
        Ok(DeviceType::NotDriven(b)) => {
            let why = match b {
                Bridge::Unsupported => "listed as unsupported",
                _ => "a protocol the exporter does not speak",
            };
            (b, Plan::Alone, format!("{of}: {why}; nothing sent to it"))
        }
        Err(e) => (
            Bridge::Unknown,
            Plan::Alone,
            format!("{of}: {e}; nothing sent to it"),
        ),
    }
}

/// The disk `name` at `block_dir`, behind the USB device `usb`, as
/// discovery serves it; `None` when it is not a disk or `discovery.usb`
/// is off (then `skipped` says so).
pub(super) fn disk(
    block_dir: &Path,
    dev: &Path,
    facts: &ScsiFacts,
    usb: UsbFacts,
    filter: &Filter,
    index: &PlaceIndex,
    skipped: &mut Vec<(String, String)>,
) -> Option<Discovered> {
    let name = name_of(block_dir)?.to_string();
    // The kernel's INQUIRY copy, as for any disk: a disk, and SAT hints?
    let not_usb = ScsiFacts {
        usb: false,
        ..facts.clone()
    };
    let sat_hints = scsi_transport(&not_usb)? == Transport::Sata;
    let Some(table) = &filter.usb else {
        let why = format!(
            "a disk behind a USB bridge ({:04x}:{:04x}, {}): not watched; discovery.usb: true watches it",
            usb.vid, usb.pid, usb.driver
        );
        skipped.push((name, why));
        return None;
    };
    let (bridge, plan, why) = plan(table, &usb, sat_hints);
    let transport = match plan {
        Plan::Sat(_) => Transport::Sata,
        Plan::Nvme { .. } => Transport::Nvme,
        Plan::Alone => Transport::Scsi,
    };
    let dir = block_dir.join("device");
    let mut place = index.scsi(block_dir);
    (place.bus, place.bridge) = (Some(Bus::Usb), Some(bridge));
    Some(Discovered {
        dev_path: dev.join(&name),
        transport,
        model: identity_model(&dir),
        serial: usb_serial(&dir, &usb),
        firmware: read_attr(&dir, "rev"),
        namespaces: vec![name.clone()],
        kind: Kind::Physical,
        basis: why.clone(),
        place,
        paths: Vec::new(),
        subsystem: None,
        sysfs: block_dir.to_path_buf(),
        megaraid: None,
        usb: Some(UsbDisk {
            facts: usb,
            bridge,
            plan,
            why,
        }),
        name,
    })
}

/// The model as the kernel read it: INQUIRY vendor and product.
pub fn identity_model(dir: &Path) -> String {
    [read_attr(dir, "vendor"), read_attr(dir, "model")]
        .iter()
        .filter(|s| !s.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// VPD 80h when the kernel read it (`uas` does; `usb-storage` skips VPD
/// pages), else the USB device's serial string: the enclosure's, the one
/// stable name such a disk has.
pub fn usb_serial(dir: &Path, usb: &UsbFacts) -> String {
    let vpd = vpd_serial(dir);
    if vpd.is_empty() {
        usb.serial.clone()
    } else {
        vpd
    }
}

#[cfg(test)]
mod tests;
