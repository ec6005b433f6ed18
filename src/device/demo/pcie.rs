//! The simulated fleet's PCIe links and AER counters (what sysfs would
//! show of each NVMe drive's PCI function), and where each drive sits.
//!
//! - the DC2000B-like drives: Gen4 x4 on Gen4 x4 ports, a correctable
//!   receiver error now and then;
//! - the client drive: a Gen4 x4 drive in a Gen3 slot, running Gen3 as
//!   built (not degraded);
//! - the failing drive: trained x2 of x4 (`pcie_link_degraded`), with a
//!   non-fatal completion timeout every [`NONFATAL_PERIOD`] seconds
//!   (`pcie_errors_increasing`).

use super::sim::{Model, timetable};
use crate::device::sysfs::pcie::{AerCounts, AerSeverity, Link, Pcie};
use crate::device::sysfs::place::Place;

const GT: u64 = 1_000_000_000;
/// A correctable error on a healthy drive's link, every this many seconds.
pub const CORRECTABLE_PERIOD: f64 = 90.0;
/// A non-fatal error on the failing drive's link, every this many seconds.
pub const NONFATAL_PERIOD: f64 = 30.0;

/// The link of `model`'s drive at `t` seconds into the demo; `None` for
/// drives that are not NVMe.
pub fn pcie(model: Model, t: f64) -> Option<Pcie> {
    let gen4_x4 = Link {
        current_speed: Some(16 * GT),
        max_speed: Some(16 * GT),
        current_width: Some(4),
        max_width: Some(4),
        port_max_speed: Some(16 * GT),
        port_max_width: Some(4),
    };
    let (link, nonfatal) = match model {
        Model::Dc2000b | Model::FailSlow => (gen4_x4, 0),
        Model::Rocket => (
            Link {
                current_speed: Some(8 * GT),
                port_max_speed: Some(8 * GT),
                ..gen4_x4
            },
            0,
        ),
        Model::Failing => (
            Link {
                current_width: Some(2),
                ..gen4_x4
            },
            timetable(t, 10.0, NONFATAL_PERIOD, 0.0, 1.0).0,
        ),
        Model::Dc600m | Model::SasSsd => return None,
    };
    let correctable = timetable(t, 45.0, CORRECTABLE_PERIOD, 0.0, 1.0).0;
    let counts = |severity, total: u64, name: &str| AerCounts {
        severity,
        total,
        nonzero: if total > 0 {
            vec![(name.to_string(), total)]
        } else {
            Vec::new()
        },
    };
    Some(Pcie {
        link,
        aer: vec![
            counts(AerSeverity::Correctable, correctable, "RxErr"),
            counts(AerSeverity::Nonfatal, nonfatal, "CmpltTO"),
            counts(AerSeverity::Fatal, 0, ""),
        ],
    })
}

/// Where the simulated drive `n` of the fleet sits (`index` = its place
/// in the fleet): NVMe drives in PCI slots of their own, the SAS SSD in
/// bay 4 of an enclosure. Simulated like everything else.
pub fn place(model: Model, index: usize) -> Place {
    match model {
        Model::Dc600m => Place {
            path: "pci-0000:00:17.0-ata-1.0".into(),
            ..Place::default()
        },
        Model::SasSsd => Place {
            sas_address: "0x5000c500deadbe05".into(),
            sas_phy: "phy-0:0:4".into(),
            enclosure: "0x500605b0deadbe00".into(),
            slot: "4".into(),
            path: "pci-0000:3b:00.0-sas-0x5000c500deadbe05-lun-0".into(),
            ..Place::default()
        },
        _ => {
            let bus = 0x61 + index;
            Place {
                pci_address: format!("0000:{bus:02x}:00.0"),
                slot: format!("{}", 10 + index),
                path: format!("pci-0000:{bus:02x}:00.0-nvme-1"),
                ..Place::default()
            }
        }
    }
}
