//! What the configuration makes of the host's drives: the attribute namer,
//! the filtered discovery scan and a drive's live poller. `serve` (in
//! `app`) and `check` both start from these, so they watch the same drives
//! the same way.

use std::path::Path;
use std::sync::Arc;

use super::Config;
use crate::ata::attributes::Namer;
use crate::ata::attributes::drivedb::usb::UsbTable;
use crate::device::discovery::{self, Discovered, Filter};
use crate::device::megaraid_live;
use crate::poll::nvme::pel::PelMarks;
use crate::poll::{Poller, factory};

impl Config {
    /// Attribute names for the configured drivedb.h paths.
    pub fn namer(&self) -> Namer {
        let paths: Vec<&Path> = self.drivedb.iter().map(|p| p.as_path()).collect();
        factory::namer(&paths)
    }

    /// The drives sysfs shows now, filtered as configured; the types of
    /// USB bridges from `bridges` (drivedb.h's USB section,
    /// [`Namer::usb_bridges`]).
    pub fn scan(&self, bridges: &Arc<UsbTable>) -> Vec<Discovered> {
        self.scan_noting(bridges).drives
    }

    /// [`Config::scan`], and the controllers it leaves alone and why.
    pub fn scan_noting(&self, bridges: &Arc<UsbTable>) -> discovery::Scan {
        let f = Filter {
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            fabrics: self.fabrics,
            usb: self.usb.then(|| Arc::clone(bridges)),
        };
        let mut scan = discovery::scan_noting(&self.sysfs, &self.dev, &f);
        if self.megaraid {
            (scan.drives).extend(megaraid_live::discover(&self.sysfs, &self.dev, &f));
        }
        scan
    }

    /// The poller of a discovered drive, for its transport, with the
    /// configured command timeout and standby policy, and the state file's
    /// persistent event log marks when there is one.
    pub fn live_poller(
        &self,
        d: &Discovered,
        namer: &Arc<Namer>,
        marks: Option<&PelMarks>,
    ) -> Box<dyn Poller> {
        factory::live(
            d,
            self.poll_timeout,
            factory::Standby {
                wake: self.wake_standby,
                max_skips: self.standby_max_skips,
            },
            namer,
            marks,
        )
    }
}
