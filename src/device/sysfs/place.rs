//! Where a drive sits, for the labels of `ssd_device_info`: operators
//! replace drives by slot, not by kernel name.
//!
//! - `pci_address`: an NVMe controller's PCI function, the name of the
//!   folder its `device` link resolves to (`0000:01:00.0`);
//! - `slot`: for NVMe the PCI slot whose `/sys/bus/pci/slots/<name>/address`
//!   (`DDDD:BB:DD`, no function) holds that function (created by the
//!   hotplug drivers, pciehp or ACPI, where the platform describes slots);
//!   for a SCSI disk its enclosure slot;
//! - `sas_address`, `sas_phy`: a SAS disk's own address (`device/
//!   sas_address`, else its end device's in the SAS transport class) and
//!   the HBA or expander phy it is attached through (`phy-H:P`,
//!   `phy-H:E:P`: the first phy of its port);
//! - `enclosure`, `slot`: the SES enclosure component whose `device` link
//!   is the drive (`/sys/class/enclosure/<enclosure>/<component>/device`,
//!   `drivers/misc/enclosure.c`): the enclosure's logical identifier (`id`)
//!   or, without one, its name, and the component's `slot` number or,
//!   without one, its name;
//! - `bus`, `bridge`: a disk behind a USB bridge (`bus="usb"`) and what
//!   drivedb.h says the bridge speaks (`crate::usb::Bridge`), from
//!   discovery (`device::discovery::usb`) or a dump's `usb-bridge.txt`;
//! - `path`: the persistent name udev gives the drive's block device in
//!   `/dev/disk/by-path` (the first in name order when there are several).
//!   Without udev there is no such folder and no `path` label: the names
//!   are udev's (`path_id`, whose rules change between versions), and a
//!   derived one would not match what the host's own tools show.
//!
//! The tables a scan needs (slots, enclosures, by-path links) are read once
//! per scan ([`PlaceIndex::read`]), then looked up per drive.

use std::path::{Path, PathBuf};

use super::pcie::is_pci_address;
use super::{attr, name_of};
use crate::usb::Bridge;

/// The bus a drive is attached through, where it is not the host's own
/// (PCIe, a SATA or SAS controller): the `bus` label of `ssd_device_info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bus {
    Usb,
}

impl Bus {
    pub const ALL: [Bus; 1] = [Self::Usb];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Usb => "usb",
        }
    }
}

/// Where one drive sits and how it is attached; empty fields are labels
/// not served.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// Behind a USB bridge: `Usb`.
    pub bus: Option<Bus>,
    /// That bridge.
    pub bridge: Option<Bridge>,
    /// NVMe over fabrics: the controller's sysfs `transport` (`tcp`,
    /// `rdma`, `fc`, `loop`); empty for a local controller.
    pub fabric: String,
    pub pci_address: String,
    pub slot: String,
    pub sas_address: String,
    pub sas_phy: String,
    pub enclosure: String,
    pub path: String,
}

impl Place {
    /// The labels, in exposition order (empty values are not served).
    pub fn labels(&self) -> [(&'static str, &str); 9] {
        [
            ("bus", self.bus.map_or("", Bus::as_label)),
            ("bridge", self.bridge.map_or("", Bridge::as_label)),
            ("fabric", &self.fabric),
            ("pci_address", &self.pci_address),
            ("slot", &self.slot),
            ("sas_address", &self.sas_address),
            ("sas_phy", &self.sas_phy),
            ("enclosure", &self.enclosure),
            ("path", &self.path),
        ]
    }
}

/// One SES enclosure component that names a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bay {
    /// The device the component's `device` link resolves to.
    pub device: PathBuf,
    pub enclosure: String,
    pub slot: String,
}

/// What a scan looks places up in, read once per scan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlaceIndex {
    /// `(address, name)` of every PCI slot (`0000:01:00`, `3`).
    pub slots: Vec<(String, String)>,
    pub bays: Vec<Bay>,
    /// `(block device, link name)` of every `/dev/disk/by-path` link, in
    /// link name order.
    pub by_path: Vec<(String, String)>,
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

impl PlaceIndex {
    /// The slots and enclosures of `sysfs` and the by-path links of `dev`.
    pub fn read(sysfs: &Path, dev: &Path) -> Self {
        let slots = entries(&sysfs.join("bus/pci/slots"))
            .into_iter()
            .filter_map(|s| Some((attr(&s, "address")?, name_of(&s)?.to_string())))
            .collect();
        let mut bays = Vec::new();
        for enclosure in entries(&sysfs.join("class/enclosure")) {
            let Some(dir_name) = name_of(&enclosure) else {
                continue;
            };
            let id = attr(&enclosure, "id").filter(|id| !id.is_empty());
            let name = id.unwrap_or_else(|| dir_name.to_string());
            for component in entries(&enclosure) {
                let Ok(device) = std::fs::canonicalize(component.join("device")) else {
                    continue;
                };
                let slot = attr(&component, "slot")
                    .filter(|s| !s.is_empty())
                    .or_else(|| name_of(&component).map(str::to_string))
                    .unwrap_or_default();
                bays.push(Bay {
                    device,
                    enclosure: name.clone(),
                    slot,
                });
            }
        }
        let by_path = entries(&dev.join("disk/by-path"))
            .into_iter()
            .filter_map(|link| {
                let target = std::fs::read_link(&link).ok()?;
                Some((name_of(&target)?.to_string(), name_of(&link)?.to_string()))
            })
            .collect();
        Self {
            slots,
            bays,
            by_path,
        }
    }

    /// The PCI slot holding the function `pci_address`.
    pub fn pci_slot(&self, pci_address: &str) -> Option<&str> {
        let device = pci_address.rsplit_once('.')?.0;
        self.slots
            .iter()
            .find(|(address, _)| address == device)
            .map(|(_, name)| name.as_str())
    }

    /// The enclosure bay whose component names `device` (a canonical path).
    pub fn bay(&self, device: &Path) -> Option<&Bay> {
        self.bays.iter().find(|b| b.device == device)
    }

    /// The by-path name of the block device `block` (`nvme0n1`, `sda`).
    pub fn path(&self, block: &str) -> Option<&str> {
        self.by_path
            .iter()
            .find(|(target, _)| target == block)
            .map(|(_, link)| link.as_str())
    }

    /// The place of the NVMe controller at `ctrl` (its class folder) whose
    /// first namespace is `first_ns`.
    pub fn nvme(&self, ctrl: &Path, first_ns: Option<&str>) -> Place {
        let function = std::fs::canonicalize(ctrl.join("device")).ok();
        let pci_address = function
            .as_deref()
            .and_then(name_of)
            .filter(|n| is_pci_address(n))
            .unwrap_or_default()
            .to_string();
        let bay = function.as_deref().and_then(|f| self.bay(f));
        let slot = self
            .pci_slot(&pci_address)
            .or(bay.map(|b| b.slot.as_str()))
            .unwrap_or_default();
        Place {
            slot: slot.to_string(),
            enclosure: bay.map(|b| b.enclosure.clone()).unwrap_or_default(),
            path: first_ns
                .and_then(|ns| self.path(ns))
                .unwrap_or_default()
                .to_string(),
            pci_address,
            ..Place::default()
        }
    }

    /// The place of the SCSI disk at `block` (`<sysfs>/block/sdX`).
    pub fn scsi(&self, block: &Path) -> Place {
        let device = std::fs::canonicalize(block.join("device")).ok();
        let bay = device.as_deref().and_then(|d| self.bay(d));
        let (sas_address, sas_phy) = sas(block);
        Place {
            sas_address,
            sas_phy,
            enclosure: bay.map(|b| b.enclosure.clone()).unwrap_or_default(),
            slot: bay.map(|b| b.slot.clone()).unwrap_or_default(),
            path: name_of(block)
                .and_then(|n| self.path(n))
                .unwrap_or_default()
                .to_string(),
            ..Place::default()
        }
    }
}

/// A SAS disk's address and the phy it is attached through (see the
/// module's list), each empty when sysfs does not say.
fn sas(block: &Path) -> (String, String) {
    let own = attr(&block.join("device"), "sas_address").filter(|a| !a.is_empty());
    let Ok(real) = std::fs::canonicalize(block) else {
        return (own.unwrap_or_default(), String::new());
    };
    let end = real
        .ancestors()
        .find(|a| name_of(a).is_some_and(|n| n.starts_with("end_device-")));
    let Some((end, name)) = end.and_then(|e| Some((e, name_of(e)?))) else {
        return (own.unwrap_or_default(), String::new());
    };
    let address = own
        .or_else(|| attr(&end.join("sas_device").join(name), "sas_address"))
        .unwrap_or_default();
    let phy = end
        .parent()
        .map(entries)
        .unwrap_or_default()
        .into_iter()
        .find_map(|p| {
            name_of(&p)
                .filter(|n| n.starts_with("phy-"))
                .map(str::to_string)
        })
        .unwrap_or_default();
    (address, phy)
}

#[cfg(test)]
mod tests;
