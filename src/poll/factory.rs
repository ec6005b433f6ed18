//! The one place pollers are made, for `serve`, `check`, `dump` and the
//! tests: a discovered drive's live poller, a replay folder's, a demo
//! drive's and a dump's; the attribute namer they share; and the identity
//! a drive has before its first poll.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::{info, warn};

use super::Poller;
use super::fabric::Remote;
use super::fallback::AtaOrScsi;
use super::nvme::pel::PelMarks;
use super::nvme::{NvmePoller, PollPolicy};
use super::sata::{SataPolicy, SataPoller};
use super::scsi::{ScsiPolicy, ScsiPoller};
use crate::ata::attributes::Namer;
use crate::device::demo::{DemoDrive, DemoNvme, DemoSata, DemoScsi};
use crate::device::discovery::megaraid::PdAddress;
use crate::device::discovery::{Discovered, Kind, Transport};
use crate::device::megaraid_live::MegaraidChannel;
use crate::device::nvme_live::NvmeLive;
use crate::device::replay::{self, DumpKind, NvmeReplay, SataReplay, ScsiReplay};
use crate::device::sata_live::SataLive;
use crate::device::scsi_live::ScsiLive;
use crate::reading::Identity;

/// How a live drive in standby is treated: polled anyway (`wake`), or
/// skipped, and then polled once after `max_skips` skips in a row (0 =
/// never).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Standby {
    pub wake: bool,
    pub max_skips: u32,
}

/// The poller of a discovered live drive: each command gets `timeout`; a
/// SATA drive in standby is polled as `standby` says. A disk with SAT hints
/// is tried as ATA and handed to the SCSI poller when its IDENTIFY through
/// ATA PASS-THROUGH is refused ([`AtaOrScsi`]). An NVMe drive takes its
/// persistent event log's mark from `marks` (the state file's).
pub fn live(
    d: &Discovered,
    timeout: Duration,
    standby: Standby,
    namer: &Arc<Namer>,
    marks: Option<&PelMarks>,
) -> Box<dyn Poller> {
    if let Some(at) = d.megaraid {
        return behind_megaraid(d, at, timeout, standby, namer);
    }
    if let Some(u) = &d.usb {
        let policy = SataPolicy {
            wake_standby: standby.wake,
            standby_max_skips: standby.max_skips,
            ..SataPolicy::LIVE
        };
        return super::usb::poller(d, u, timeout, policy, namer);
    }
    let (path, sysfs, kind) = (d.dev_path.clone(), d.sysfs.clone(), d.kind);
    let scsi = move |transport| {
        let src = ScsiLive::new(&path, timeout).with_sysfs(&sysfs);
        ScsiPoller::new(Box::new(src), transport, ScsiPolicy::LIVE).with_kind(kind)
    };
    match d.transport {
        Transport::Nvme => {
            let src = NvmeLive::for_drive(&d.dev_path, &d.sysfs, d.subsystem.as_deref(), timeout);
            let poller = Box::new(nvme(Box::new(src), PollPolicy::LIVE, marks));
            if d.place.fabric.is_empty() {
                poller
            } else {
                Box::new(Remote::new(poller))
            }
        }
        Transport::Sata => {
            let src = Box::new(SataLive::new(&d.dev_path, timeout).with_sysfs(&d.sysfs));
            let policy = SataPolicy {
                wake_standby: standby.wake,
                standby_max_skips: standby.max_skips,
                ..SataPolicy::LIVE
            };
            let ata = Box::new(SataPoller::new(src, namer.clone(), policy));
            let make = Box::new(move || Box::new(scsi(Transport::Scsi)) as Box<dyn Poller>);
            Box::new(AtaOrScsi::new(ata, d.basis.clone(), make))
        }
        t @ (Transport::Sas | Transport::Scsi) => Box::new(scsi(t)),
    }
}

/// The poller of a physical drive behind a MegaRAID controller: ATA through
/// the controller's SAT layer, or SCSI when the IDENTIFY is refused, both
/// through its pass-through on the management node.
fn behind_megaraid(
    d: &Discovered,
    at: PdAddress,
    timeout: Duration,
    standby: Standby,
    namer: &Arc<Namer>,
) -> Box<dyn Poller> {
    let node = d.dev_path.clone();
    let chan = move || Box::new(MegaraidChannel::new(&node, at, timeout));
    let policy = SataPolicy {
        wake_standby: standby.wake,
        standby_max_skips: standby.max_skips,
        ..SataPolicy::LIVE
    };
    let src = Box::new(SataLive::over(chan()));
    let ata = Box::new(SataPoller::new(src, namer.clone(), policy));
    let make = Box::new(move || {
        let src = Box::new(ScsiLive::over(chan()));
        Box::new(ScsiPoller::new(src, Transport::Scsi, ScsiPolicy::LIVE)) as Box<dyn Poller>
    });
    Box::new(AtaOrScsi::new(ata, d.basis.clone(), make))
}

/// An NVMe poller, with `marks` when given.
fn nvme(
    src: Box<dyn crate::device::NvmeSource>,
    policy: PollPolicy,
    marks: Option<&PelMarks>,
) -> NvmePoller {
    let poller = NvmePoller::new(src, policy);
    match marks {
        Some(m) => poller.with_pel_marks(Arc::clone(m)),
        None => poller,
    }
}

/// A dump folder as a drive: its `device` name, transport and poller, which
/// reads every page on every poll (the dump contract).
pub fn replay(
    dir: &Path,
    namer: &Arc<Namer>,
) -> Result<(String, Transport, Box<dyn Poller>), String> {
    replay_with(dir, namer, None)
}

/// [`replay()`], an NVMe dump taking its persistent event log's mark from
/// `marks` (the state file's, when `state.path` is set).
pub fn replay_with(
    dir: &Path,
    namer: &Arc<Namer>,
    marks: Option<&PelMarks>,
) -> Result<(String, Transport, Box<dyn Poller>), String> {
    let name = replay::device_name(dir);
    let kind = replay::dump_kind(dir)?;
    if let Some(bridge) = replay::usb::bridge(dir)? {
        return replay_bridged(dir, name, kind, bridge, namer, marks);
    }
    Ok(match kind {
        DumpKind::Nvme => (
            name,
            Transport::Nvme,
            Box::new(nvme(
                Box::new(NvmeReplay::new(dir)),
                PollPolicy::EVERY_PAGE,
                marks,
            )),
        ),
        DumpKind::Sata => (name, Transport::Sata, sata_replay(dir, namer)),
        // SAS or SCSI: the poller tells from the pages (VPD 83h, log 18h).
        DumpKind::Scsi => (
            name,
            Transport::Scsi,
            Box::new(ScsiPoller::new(
                Box::new(ScsiReplay::new(dir)),
                Transport::Scsi,
                ScsiPolicy::EVERY_PAGE,
            )),
        ),
    })
}

fn sata_replay(dir: &Path, namer: &Arc<Namer>) -> Box<dyn Poller> {
    Box::new(SataPoller::new(
        Box::new(SataReplay::new(dir)),
        namer.clone(),
        SataPolicy::EVERY_PAGE,
    ))
}

/// A dump read through a USB bridge (`usb-bridge.txt`): SATA pages through
/// SAT, NVMe pages through one of the NVMe families, whose refusals apply.
fn replay_bridged(
    dir: &Path,
    name: String,
    kind: DumpKind,
    bridge: crate::usb::Bridge,
    namer: &Arc<Namer>,
    marks: Option<&PelMarks>,
) -> Result<(String, Transport, Box<dyn Poller>), String> {
    use crate::device::replay::usb::{BridgedReplay, nvme_family};
    match (kind, bridge, nvme_family(bridge)) {
        (DumpKind::Sata, crate::usb::Bridge::Sat, _) => {
            Ok((name, Transport::Sata, sata_replay(dir, namer)))
        }
        (DumpKind::Nvme, _, Some(family)) => {
            let src = Box::new(BridgedReplay::new(dir, family));
            let poller = nvme(src, PollPolicy::EVERY_PAGE, marks);
            Ok((name, Transport::Nvme, Box::new(poller)))
        }
        _ => Err(format!(
            "{}: usb-bridge.txt says {}, which does not carry the {kind:?} pages the dump holds (sat carries SATA pages; jmicron, asmedia, realtek NVMe pages)",
            dir.display(),
            bridge.as_label()
        )),
    }
}

/// A simulated drive of the `--demo` fleet, through the live policies (its
/// pages are what a real drive of its model would answer).
pub fn demo(drive: DemoDrive, started: Instant, namer: &Arc<Namer>) -> Box<dyn Poller> {
    match drive.transport() {
        Transport::Nvme => Box::new(NvmePoller::new(
            Box::new(DemoNvme::new(drive, started)),
            PollPolicy::LIVE,
        )),
        Transport::Sata => Box::new(SataPoller::new(
            Box::new(DemoSata::new(drive, started)),
            namer.clone(),
            SataPolicy::LIVE,
        )),
        t @ (Transport::Sas | Transport::Scsi) => Box::new(ScsiPoller::new(
            Box::new(DemoScsi::new(drive, started)),
            t,
            ScsiPolicy::LIVE,
        )),
    }
}

/// The pollers of `ssd_exporter dump`, one per transport: the concrete
/// types, because a dump records each page through the poller's own
/// `poll_with` hook. Every page on one poll (the dump contract), a SATA
/// drive woken from standby, the built-in attribute names.
pub mod dump {
    use super::*;

    pub fn nvme(ctrl: &Path, timeout: Duration) -> NvmePoller {
        NvmePoller::new(
            Box::new(NvmeLive::new(ctrl, timeout)),
            PollPolicy::EVERY_PAGE,
        )
    }

    pub fn sata(dev: &Path, timeout: Duration) -> SataPoller {
        let policy = SataPolicy {
            wake_standby: true,
            ..SataPolicy::EVERY_PAGE
        };
        SataPoller::new(
            Box::new(SataLive::new(dev, timeout)),
            Arc::new(Namer::builtin()),
            policy,
        )
    }

    /// A SCSI disk that discovery's rules (`scsi_transport`, `scsi_kind`)
    /// make `transport` and `kind`.
    pub fn scsi(dev: &Path, transport: Transport, kind: Kind, timeout: Duration) -> ScsiPoller {
        ScsiPoller::new(
            Box::new(ScsiLive::new(dev, timeout)),
            transport,
            ScsiPolicy::EVERY_PAGE,
        )
        .with_kind(kind)
    }
}

/// Attribute names: the built-in table, overridden by the first of `paths`
/// (smartmontools' drivedb.h) that exists; a malformed file is reported
/// and the built-in table used.
pub fn namer(paths: &[&Path]) -> Namer {
    let (namer, errors) = Namer::load(paths);
    for e in errors.iter().take(5) {
        warn!("drivedb: {e}");
    }
    if errors.len() > 5 {
        warn!("drivedb: {} more problems not shown", errors.len() - 5);
    }
    log_names(paths, namer.drivedb_entries());
    namer
}

/// Says once which attribute names are in use: the built-in table alone
/// names fewer attributes than smartctl does with smartmontools' database.
fn log_names(paths: &[&Path], entries: usize) {
    let tried = || {
        let tried: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        tried.join(", ")
    };
    match paths.iter().find(|p| p.exists()) {
        _ if paths.is_empty() => {
            info!("SATA attribute names: the built-in table only (path.drivedb: none)")
        }
        Some(p) if entries > 0 => info!(
            drivedb = %p.display(),
            entries,
            "SATA attribute names: smartmontools' drive database, over the built-in table"
        ),
        Some(p) => info!(
            drivedb = %p.display(),
            "SATA attribute names: the built-in table only (the drive database gave no entry)"
        ),
        None => info!(
            tried = %tried(),
            "SATA attribute names: the built-in table only; install smartmontools for its drive database (drivedb.h), which names more attributes"
        ),
    }
}

/// Identity before the drive's own identify data is read.
pub fn placeholder(transport: Transport, model: &str, serial: &str, firmware: &str) -> Identity {
    Identity {
        transport,
        kind: crate::device::discovery::Kind::Physical,
        model: model.to_string(),
        serial: serial.to_string(),
        firmware: firmware.to_string(),
        wwn: String::new(),
        capacity_bytes: None,
    }
}

#[cfg(test)]
mod tests;
