//! NVMe drives in sysfs. A drive is an NVMe subsystem
//! (`/sys/class/nvme-subsystem/nvme-subsysN`, whose entries link to its
//! controllers `nvmeM` and hold its multipath heads `nvmeNnK`), polled
//! through one of its controllers (`/sys/class/nvme/nvmeM`, admin commands
//! to `/dev/nvmeM`):
//!
//! - a subsystem with one controller and no multipath head is named after
//!   the controller (`nvme0`) and probed on the controller's namespaces
//!   (`nvme0n1`);
//! - one with a multipath head (the kernel makes one when the subsystem
//!   says it may have several controllers, CMIC bit 1, and
//!   `nvme_core.multipath` is on) or several controllers is named after
//!   the subsystem (`nvme-subsys0`: the name stays when a path goes), polled
//!   through a live controller ([`crate::device::nvme_live`] fails over)
//!   and probed on its heads, the `nvmeNnK` block devices the kernel puts
//!   in the subsystem's folder with `hidden` 0. The heads are numbered after
//!   the subsystem's instance, not a controller's, so they are taken from
//!   the folder, never made up from a controller's name; the hidden paths
//!   `nvmeNcMnK` under each controller are never probed.
//!
//! A controller whose `transport` is not `pcie` (`tcp`, `rdma`, `fc`,
//! `loop`) is a remote target (NVMe over fabrics): watched only with
//! `discovery.fabrics` ([`Filter::fabrics`]), else listed in
//! [`Scan::skipped`] for the log. A controller without a subsystem in sysfs
//! (old kernels, a test's fake tree) is a drive of its own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Discovered, Filter, Kind, NvmePath, Scan, Transport, natural_key, read_attr};
use crate::device::sysfs::place::PlaceIndex;

/// `transport` values of controllers on this host's own bus.
const LOCAL_TRANSPORTS: [&str; 2] = ["pcie", "apple-nvme"];

/// One controller as sysfs shows it.
#[derive(Debug, Clone)]
struct Controller {
    name: String,
    dir: PathBuf,
    transport: String,
    state: String,
    model: String,
    serial: String,
    firmware: String,
    /// sysfs `address`: the PCI function, or `traddr=…,trsvcid=…` of a fabric.
    address: String,
    /// Its own namespaces' block devices (`nvme0n1`), not the hidden
    /// multipath paths.
    namespaces: Vec<String>,
}

impl Controller {
    fn read(dir: PathBuf, name: String) -> Self {
        let namespaces = entries(&dir)
            .into_iter()
            .filter(|n| is_namespace_of(n, &name))
            .collect();
        Self {
            transport: read_attr(&dir, "transport"),
            state: read_attr(&dir, "state"),
            model: read_attr(&dir, "model"),
            serial: read_attr(&dir, "serial"),
            firmware: read_attr(&dir, "firmware_rev"),
            address: read_attr(&dir, "address"),
            namespaces,
            dir,
            name,
        }
    }

    /// A remote target: its transport (a missing attribute is PCIe).
    fn fabric(&self) -> Option<&str> {
        let t = self.transport.as_str();
        (!t.is_empty() && !LOCAL_TRANSPORTS.contains(&t)).then_some(t)
    }
}

/// One subsystem's folder.
#[derive(Debug, Clone, Default)]
struct Subsystem {
    name: String,
    dir: PathBuf,
    controllers: Vec<String>,
    /// Multipath heads: block devices in the folder with `hidden` not 1.
    heads: Vec<String>,
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort_by_key(|n| natural_key(n));
    names
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `nvme0`, not `nvme0n1`, `nvme-fabrics` or `nvme-subsys0`.
pub fn is_controller_name(name: &str) -> bool {
    name.strip_prefix("nvme").is_some_and(digits)
}

/// `nvme3n1`: a namespace block device (a head or a controller's own).
fn is_block_name(name: &str) -> bool {
    name.strip_prefix("nvme")
        .and_then(|r| r.split_once('n'))
        .is_some_and(|(a, b)| digits(a) && digits(b))
}

/// `nvme0n1` under `nvme0`; not `nvme0c1n1` (a hidden path), not `nvme10n1`.
fn is_namespace_of(entry: &str, ctrl: &str) -> bool {
    entry
        .strip_prefix(ctrl)
        .and_then(|r| r.strip_prefix('n'))
        .is_some_and(digits)
}

fn subsystems(sysfs: &Path) -> Vec<Subsystem> {
    let class = sysfs.join("class/nvme-subsystem");
    entries(&class)
        .into_iter()
        .filter(|n| n.strip_prefix("nvme-subsys").is_some_and(digits))
        .map(|name| {
            let dir = class.join(&name);
            let all = entries(&dir);
            let heads = all
                .iter()
                .filter(|n| is_block_name(n) && read_attr(&dir.join(n), "hidden") != "1")
                .cloned()
                .collect();
            Subsystem {
                controllers: all.into_iter().filter(|n| is_controller_name(n)).collect(),
                heads,
                name,
                dir,
            }
        })
        .collect()
}

/// The NVMe drives of `sysfs` (see the module), controllers sorted
/// naturally within each and drives by name.
pub(super) fn scan(sysfs: &Path, dev: &Path, filter: &Filter, index: &PlaceIndex) -> Scan {
    let class = sysfs.join("class/nvme");
    let mut controllers: BTreeMap<String, Controller> = entries(&class)
        .into_iter()
        .filter(|n| is_controller_name(n))
        .map(|n| (n.clone(), Controller::read(class.join(&n), n)))
        .collect();
    let mut out = Scan::default();
    // Remote targets first: not watched without discovery.fabrics.
    controllers.retain(|name, c| match c.fabric() {
        Some(t) if !filter.fabrics => {
            out.skipped.push((
                name.clone(),
                format!(
                    "an NVMe over fabrics controller (transport {t}, {}): a remote target, not watched; discovery.fabrics: true watches it",
                    c.address
                ),
            ));
            false
        }
        _ => true,
    });
    for s in subsystems(sysfs) {
        let members: Vec<Controller> = s
            .controllers
            .iter()
            .filter_map(|n| controllers.remove(n))
            .collect();
        if let Some(d) = drive(members, Some(&s), dev, index) {
            out.drives.push(d);
        }
    }
    for c in controllers.into_values() {
        out.drives.extend(drive(vec![c], None, dev, index));
    }
    out.drives.retain(|d| filter.accepts(&d.name));
    out.drives.sort_by_key(|d| natural_key(&d.name));
    out
}

/// One drive of `members` (sorted), polled first through a live one.
fn drive(
    mut members: Vec<Controller>,
    subsystem: Option<&Subsystem>,
    dev: &Path,
    index: &PlaceIndex,
) -> Option<Discovered> {
    if let Some(i) = members.iter().position(|c| c.state == "live") {
        members[..=i].rotate_right(1);
    }
    let first = members.first()?;
    let heads = subsystem.map(|s| s.heads.clone()).unwrap_or_default();
    let multipath = !heads.is_empty() || members.len() > 1;
    let name = match subsystem {
        Some(s) if multipath => s.name.clone(),
        _ => first.name.clone(),
    };
    let namespaces = if heads.is_empty() {
        first.namespaces.clone()
    } else {
        heads
    };
    let mut place = index.nvme(&first.dir, namespaces.first().map(String::as_str));
    place.fabric = first.fabric().unwrap_or_default().to_string();
    let over = match first.fabric() {
        Some(t) => format!(" over {t} ({})", first.address),
        None => String::new(),
    };
    let basis = if multipath {
        let names: Vec<&str> = members.iter().map(|c| c.name.as_str()).collect();
        format!(
            "an NVMe subsystem{over} with controllers {} (polled through {}), multipath heads {}",
            names.join(", "),
            first.name,
            if namespaces.is_empty() {
                "none".to_string()
            } else {
                namespaces.join(", ")
            }
        )
    } else {
        format!("an NVMe controller{over}")
    };
    let paths = members
        .iter()
        .map(|c| NvmePath {
            name: c.name.clone(),
            dev: dev.join(&c.name),
            sysfs: c.dir.clone(),
        })
        .collect();
    Some(Discovered {
        dev_path: dev.join(&first.name),
        transport: Transport::Nvme,
        model: first.model.clone(),
        serial: first.serial.clone(),
        firmware: first.firmware.clone(),
        namespaces,
        kind: Kind::Physical,
        basis,
        sysfs: first.dir.clone(),
        place,
        paths,
        subsystem: subsystem.filter(|_| multipath).map(|s| s.dir.clone()),
        usb: None,
        megaraid: None,
        name,
    })
}

#[cfg(test)]
mod tests;
