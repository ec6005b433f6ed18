//! What the simulated NVMe drives say about themselves beyond SMART,
//! built through the decoders' layouts like every other demo page:
//! - the DC2000B-like drive has one endurance group (its write
//!   amplification 1.1), firmware EIEK52.0 waiting in slot 2 for the next
//!   reset, a persistent event log that gains a thermal excursion with
//!   every heating episode, and a quiet telemetry header;
//! - the fail-slow one (same model and firmware) has the same pages, quiet:
//!   no firmware waiting, no events since it was powered on;
//! - the failing one has a worn endurance group past its own estimate,
//!   OCP media dies offline at its die failure tolerance, a hardware error
//!   event every [`HW_ERROR_PERIOD`] and a new telemetry capture every
//!   [`CAPTURE_PERIOD`] (the first after [`CAPTURE_FIRST`]);
//! - the client drive has a firmware slot log and nothing else.
//!
//! Event timestamps are wall-clock times (the drive's clock runs in real
//! time; only its counters are compressed), fixed per event so a log read
//! twice is the same log.

use std::time::SystemTime;

use zerocopy::{FromZeros, IntoBytes};

use super::pages::{NvmeHealth, OcpHealth};
use super::sim::{self, Model};
use crate::nvme::endurance_group::{BILLION_BYTES, EnduranceGroupLogPage};
use crate::nvme::endurance_group_list::EnduranceGroupListPage;
use crate::nvme::fw_slot::FwSlotLogPage;
use crate::nvme::identify::space_padded;
use crate::nvme::pel::{PelEventHeader, PelHeaderPage, encode};
use crate::nvme::pel_events::{FwCommitEventData, PowerOnResetInfo, ThermalExcursionData};
use crate::nvme::telemetry::TelemetryHeaderPage;

pub const HW_ERROR_PERIOD: f64 = 200.0;
pub const CAPTURE_FIRST: f64 = 90.0;
pub const CAPTURE_PERIOD: f64 = 300.0;
/// The logs keep their newest events, as a full log does.
const MAX_EVENTS: usize = 64;
/// Timestamp Origin 001b: the host set the clock.
const HOST_SET: u64 = 1 << 49;

/// Whether `model` reports the depth pages beyond firmware slots.
pub fn has_depth(model: Model) -> bool {
    matches!(model, Model::Dc2000b | Model::Failing | Model::FailSlow)
}

/// Identify Endurance Group List: group 1.
pub fn group_list() -> Vec<u8> {
    EnduranceGroupListPage::of(&[1]).as_bytes().to_vec()
}

/// Bytes as the page's billions of bytes, rounded up.
fn billions(bytes: u128) -> u128 {
    bytes.div_ceil(BILLION_BYTES)
}

/// Endurance group 1: the drive's SMART and OCP counters in the group's
/// units, its own estimate 700 TB.
pub fn endurance_group(h: &NvmeHealth, ocp: Option<&OcpHealth>) -> Vec<u8> {
    let mut p = EnduranceGroupLogPage::zeroed();
    // spare below threshold (bit 0), reliability (bit 2), as SMART says
    p.critical_warning = h.critical_warning & 0x05;
    p.avl_spare = h.available_spare;
    p.avl_spare_threshold = h.spare_threshold;
    p.percent_used = h.percent_used;
    p.endurance_estimate = 700_000.into();
    p.data_units_read = billions(h.data_units_read * 512_000).into();
    p.data_units_written = billions(h.data_units_written * 512_000).into();
    if let Some(o) = ocp {
        p.media_units_written = billions(o.media_written_bytes).into();
    }
    p.host_read_cmds = h.host_reads.into();
    p.host_write_cmds = h.host_writes.into();
    p.media_data_integrity_err = h.media_errors.into();
    p.num_err_info_log_entries = h.error_entries.into();
    p.total_end_grp_cap = 960_197_124_096.into();
    p.as_bytes().to_vec()
}

/// Firmware slots: the DC2000B-like drive has EIEK52.0 waiting in slot 2.
pub fn fw_slots(model: Model) -> Vec<u8> {
    let mut p = FwSlotLogPage::zeroed();
    match model {
        Model::Rocket => {
            p.afi = 0x01;
            p.frs[0] = space_padded("RKT401.3");
        }
        Model::Dc2000b => {
            p.afi = 0x21;
            p.frs[0] = space_padded("EIEK51.3");
            p.frs[1] = space_padded("EIEK52.0");
        }
        _ => {
            p.afi = 0x01;
            p.frs[0] = space_padded("EIEK51.3");
        }
    }
    p.as_bytes().to_vec()
}

/// The telemetry header at `t`: the failing drive captures its state every
/// [`CAPTURE_PERIOD`] and keeps it for collection.
pub fn telemetry(model: Model, t: f64) -> Vec<u8> {
    let mut p = TelemetryHeaderPage::new();
    p.ieee = [0xB7, 0x26, 0x00];
    if model == Model::Failing {
        let (captures, _) = sim::timetable(t, CAPTURE_FIRST, CAPTURE_PERIOD, 0.0, 0.0);
        p.ctrlavail = 1;
        p.ctrldgn = (4 + captures % 252) as u8;
    } else {
        p.ctrldgn = 2;
    }
    p.as_bytes().to_vec()
}

/// An event of `etype` at `at` (wall clock, real seconds after `start`).
fn event(etype: u8, start: SystemTime, at: f64, data: Vec<u8>) -> (PelEventHeader, Vec<u8>) {
    let ms = start
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        + at * 1000.0;
    let mut h = PelEventHeader::new(etype, data.len() as u16);
    h.etype_rev = 1;
    h.cntlid = 1.into();
    h.ets = (HOST_SET | (ms.max(0.0) as u64 & 0xFFFF_FFFF_FFFF)).into();
    (h, data)
}

/// The drive's history before the demo started: a power-on an hour back,
/// the host setting the clock, and (DC2000B) the commit of EIEK52.0.
fn history(model: Model, start: SystemTime) -> Vec<(PelEventHeader, Vec<u8>)> {
    let mut por = b"EIEK51.3".to_vec();
    let mut ctrl = PowerOnResetInfo::new_zeroed();
    ctrl.cid = 1.into();
    por.extend_from_slice(ctrl.as_bytes());
    let mut clock = vec![0u8; 8];
    clock.extend_from_slice(&4_000u64.to_le_bytes()); // ms since the reset
    let mut out = vec![
        event(0x04, start, -3600.0, por),
        event(0x03, start, -3596.0, clock),
    ];
    if model == Model::Dc2000b {
        let commit = FwCommitEventData {
            old_fw_rev: *b"EIEK51.3",
            new_fw_rev: *b"EIEK52.0",
            fw_commit_action: 1, // replace the image, activate at the next reset
            fw_slot: 2,
            sct_fw: 0,
            sc_fw: 0,
            vndr_assign_fw_commit_rc: 0.into(),
        };
        out.push(event(0x02, start, -600.0, commit.as_bytes().to_vec()));
    }
    out
}

/// The whole persistent event log at `t` (seconds since `start`).
pub fn persistent_event_log(model: Model, start: SystemTime, t: f64) -> Vec<u8> {
    let mut events = history(model, start);
    match model {
        Model::Dc2000b => {
            // a thermal excursion where each heating episode starts throttling
            let (n, _, _) = sim::throttling(t);
            for k in 0..n {
                let at = sim::THROTTLE_FIRST + k as f64 * sim::THROTTLE_PERIOD + sim::THROTTLE_ON;
                let data = ThermalExcursionData {
                    over_temp: 1,
                    threshold: 0,
                };
                events.push(event(0x0D, start, at, data.as_bytes().to_vec()));
            }
        }
        Model::Failing => {
            let (n, _) = sim::timetable(t, 0.0, HW_ERROR_PERIOD, HW_ERROR_PERIOD, 0.0);
            for k in 1..=n {
                let code = 0x0001u16.to_le_bytes(); // reported as it is
                let data = vec![code[0], code[1], 0, 0];
                events.push(event(0x05, start, k as f64 * HW_ERROR_PERIOD, data));
            }
        }
        _ => {}
    }
    let keep = events.len().saturating_sub(MAX_EVENTS);
    let events = events.split_off(keep);
    let mut h = PelHeaderPage::new();
    h.rv = 1;
    h.lhl = 512.into();
    h.vid = 0x2646.into();
    h.ssvid = 0x2646.into();
    h.gen_number = 1.into();
    h.seb[0] = 0b0011_1110; // 01h-05h
    h.seb[1] = 0b0010_0000; // 0Dh
    encode(h, &events)
}
