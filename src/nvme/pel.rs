//! Persistent Event Log (LID 0Dh): a 512-byte header, then events oldest
//! first, up to the Total Log Length the header gives (NVMe Base 2.0
//! section 5.16.1.14).
//!
//! The log is read within a reporting context (the poller establishes it
//! with LSP 1, reads, and releases it with LSP 2; see
//! `poll::nvme::pel`): while it exists the controller keeps the log the host
//! reads unchanged, and the header's Generation Number tells whether the
//! context was lost while the log was read in several commands.
//!
//! Each event is a header ([`PelEventHeader`], 24 bytes on every revision
//! so far) then EL bytes: the vendor-specific information (VSIL bytes)
//! first, then the event data. The header's own length is EHL + 3, so the
//! next event starts EHL + 3 + EL bytes on. An event that ends exactly at
//! the total log length is whole and decoded (nvme-cli's printer stops at
//! `>= size` and drops such a last event; this decoder does not). Event
//! data layouts and types are in [`super::pel_events`].

use serde::Serialize;
use zerocopy::little_endian::{U16, U32, U64, U128};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::pel_events::{PelDetail, PelEventType, detail};
use super::{LID_PERSISTENT_EVENT, PEL_HEADER_LEN};
use crate::decode::{Bytes, ParseError, printable};

const PAGE: &str = "persistent event log";

/// The log header (libnvme `struct nvme_persistent_event_log`). The one
/// definition of these offsets: the decoder reads through it, the demo and
/// the fixture builder fill it. Exactly 512 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PelHeaderPage {
    /// Byte 0, log identifier: 0Dh.
    pub lid: u8,
    /// Bytes 3:1, reserved.
    pub rsvd1: [u8; 3],
    /// Bytes 7:4, Total Number of Events (TNEV) in the log.
    pub tnev: U32,
    /// Bytes 15:8, Total Log Length (TLL) in bytes, this header included.
    pub tll: U64,
    /// Byte 16, Log Revision.
    pub rv: u8,
    /// Byte 17, reserved.
    pub rsvd17: u8,
    /// Bytes 19:18, Log Header Length.
    pub lhl: U16,
    /// Bytes 27:20, Timestamp (as the Timestamp feature).
    pub ts: U64,
    /// Bytes 43:28, Power on Hours.
    pub poh: U128,
    /// Bytes 51:44, Power Cycle Count.
    pub pcc: U64,
    /// Bytes 53:52, PCI Vendor ID.
    pub vid: U16,
    /// Bytes 55:54, PCI Subsystem Vendor ID.
    pub ssvid: U16,
    /// Bytes 75:56, Serial Number.
    pub sn: [u8; 20],
    /// Bytes 115:76, Model Number.
    pub mn: [u8; 40],
    /// Bytes 371:116, NVM Subsystem NQN.
    pub subnqn: [u8; 256],
    /// Bytes 373:372, Generation Number.
    pub gen_number: U16,
    /// Bytes 377:374, Reporting Context Information.
    pub rci: U32,
    /// Bytes 479:378, reserved.
    pub rsvd378: [u8; 102],
    /// Bytes 511:480, Supported Events Bitmap: bit n = event type n.
    pub seb: [u8; 32],
}

const _: () = assert!(size_of::<PelHeaderPage>() == PEL_HEADER_LEN);

impl PelHeaderPage {
    /// A header with the log identifier and its own length set, to fill in.
    pub fn new() -> Self {
        let mut p = Self::new_zeroed();
        p.lid = LID_PERSISTENT_EVENT;
        p.tll = (PEL_HEADER_LEN as u64).into();
        p
    }
}

impl Default for PelHeaderPage {
    fn default() -> Self {
        Self::new()
    }
}

/// The header of one event (libnvme `struct nvme_persistent_event_entry`).
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PelEventHeader {
    /// Byte 0, Event Type.
    pub etype: u8,
    /// Byte 1, Event Type Revision.
    pub etype_rev: u8,
    /// Byte 2, Event Header Length (EHL): the header's length minus 3.
    pub ehl: u8,
    /// Byte 3, Event Header Additional Info.
    pub ehai: u8,
    /// Bytes 5:4, Controller Identifier.
    pub cntlid: U16,
    /// Bytes 13:6, Event Timestamp (as the Timestamp feature).
    pub ets: U64,
    /// Bytes 15:14, Port Identifier.
    pub pelpid: U16,
    /// Bytes 19:16, reserved.
    pub rsvd16: [u8; 4],
    /// Bytes 21:20, Vendor Specific Information Length (VSIL).
    pub vsil: U16,
    /// Bytes 23:22, Event Length (EL): vendor information and event data.
    pub el: U16,
}

/// The event header's length on every revision so far (EHL = 21).
pub const EVENT_HEADER_LEN: usize = 24;
const _: () = assert!(size_of::<PelEventHeader>() == EVENT_HEADER_LEN);

impl PelEventHeader {
    /// A header of `etype` for `data_len` bytes of event data, to fill in.
    pub fn new(etype: u8, data_len: u16) -> Self {
        let mut h = Self::new_zeroed();
        h.etype = etype;
        h.ehl = (EVENT_HEADER_LEN - 3) as u8;
        h.el = data_len.into();
        h
    }
}

/// A timestamp as the Timestamp feature encodes it (NVMe Base 2.0, Set
/// Features, Timestamp): bits 47:0 milliseconds, bit 48 Synch, bits 51:49
/// Timestamp Origin (000b: counting from a controller reset, 001b: set by
/// the host, i.e. milliseconds since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Timestamp(pub u64);

impl Timestamp {
    pub fn millis(self) -> u64 {
        self.0 & 0xFFFF_FFFF_FFFF
    }

    pub fn origin(self) -> u8 {
        ((self.0 >> 49) & 0x7) as u8
    }

    /// Seconds since the Unix epoch, when the host set the clock (origin
    /// 001b); `None` for a time counted from a reset, which is no date.
    pub fn unix_seconds(self) -> Option<f64> {
        (self.origin() == 1).then(|| self.millis() as f64 / 1000.0)
    }
}

/// The log header, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PelHeader {
    pub total_events: u32,
    /// Bytes of the whole log, this header included.
    pub total_length: u64,
    pub revision: u8,
    pub header_length: u16,
    pub timestamp: Timestamp,
    pub power_on_hours: u128,
    pub power_cycles: u64,
    pub vid: u16,
    pub ssvid: u16,
    pub serial: String,
    pub model: String,
    pub generation: u16,
    pub reporting_context: u32,
    pub supported_events: [u8; 32],
}

impl PelHeader {
    /// Decodes the first 512 bytes; rejects a log identifier other than
    /// 0Dh and a total length shorter than the header itself.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, PEL_HEADER_LEN)?;
        let (p, _) = PelHeaderPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
            page: PAGE,
            expected: PEL_HEADER_LEN,
            got: buf.len(),
        })?;
        let invalid = |reason: String| ParseError::Invalid { page: PAGE, reason };
        if p.lid != LID_PERSISTENT_EVENT {
            let why = format!("log identifier (byte 0) is {:02x}h, not 0dh", p.lid);
            return Err(invalid(why));
        }
        let total_length = p.tll.get();
        if total_length < PEL_HEADER_LEN as u64 {
            let why = format!("total log length {total_length} is shorter than the header");
            return Err(invalid(why));
        }
        Ok(Self {
            total_events: p.tnev.get(),
            total_length,
            revision: p.rv,
            header_length: p.lhl.get(),
            timestamp: Timestamp(p.ts.get()),
            power_on_hours: p.poh.get(),
            power_cycles: p.pcc.get(),
            vid: p.vid.get(),
            ssvid: p.ssvid.get(),
            serial: printable(&p.sn),
            model: printable(&p.mn),
            generation: p.gen_number.get(),
            reporting_context: p.rci.get(),
            supported_events: p.seb,
        })
    }

    /// Supported Events Bitmap bit `code`.
    pub fn supports(&self, code: u8) -> bool {
        self.supported_events[usize::from(code / 8)] & (1 << (code % 8)) != 0
    }
}

/// One event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PelEvent {
    /// 0 for the oldest event in the log (nvme-cli's "Event Number").
    pub position: u32,
    /// Where its header starts in the log.
    pub offset: usize,
    /// Event Type as reported.
    pub code: u8,
    pub revision: u8,
    pub controller_id: u16,
    pub timestamp: Timestamp,
    pub port_id: u16,
    /// EHL + 3: the event header's own length (24 so far).
    pub header_length: u16,
    pub vendor_info_len: u16,
    /// EL: vendor information and event data, in bytes.
    pub length: u16,
    pub detail: PelDetail,
    /// FNV-1a (64-bit) of the event's bytes, header and data: what marks
    /// an event as counted (see `poll::nvme::pel`).
    pub fingerprint: u64,
}

impl PelEvent {
    pub fn event_type(&self) -> PelEventType {
        PelEventType::from_code(self.code)
    }
}

/// The header and every whole event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PersistentEventLog {
    pub header: PelHeader,
    /// Oldest first.
    pub events: Vec<PelEvent>,
    /// Events the header counts that the bytes given do not hold whole (a
    /// log read only in part, or an event that runs past the log's end).
    pub missing: u32,
}

impl PersistentEventLog {
    /// Decodes the header and the events within the total log length (or
    /// within `buf`, if shorter); at most the header's number of events.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let header = PelHeader::parse(buf)?;
        let limit = usize::try_from(header.total_length)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let mut events = Vec::new();
        let mut off = PEL_HEADER_LEN;
        for position in 0..header.total_events {
            let Some(e) = event_at(buf.get(..limit).unwrap_or_default(), off, position) else {
                break;
            };
            off = e.0;
            events.push(e.1);
        }
        let missing = header.total_events - events.len() as u32;
        Ok(Self {
            header,
            events,
            missing,
        })
    }
}

/// The event whose header starts at `off`, and where the next one starts;
/// `None` when it is not whole within `log`.
fn event_at(log: &[u8], off: usize, position: u32) -> Option<(usize, PelEvent)> {
    let (h, _) = PelEventHeader::ref_from_prefix(log.get(off..)?).ok()?;
    let header_len = usize::from(h.ehl) + 3;
    if header_len < EVENT_HEADER_LEN {
        return None;
    }
    let el = usize::from(h.el.get());
    let end = off.checked_add(header_len)?.checked_add(el)?;
    let bytes = log.get(off..end)?;
    let vsil = usize::from(h.vsil.get()).min(el);
    let data = bytes.get(header_len + vsil..).unwrap_or_default();
    let event = PelEvent {
        position,
        offset: off,
        code: h.etype,
        revision: h.etype_rev,
        controller_id: h.cntlid.get(),
        timestamp: Timestamp(h.ets.get()),
        port_id: h.pelpid.get(),
        header_length: header_len as u16,
        vendor_info_len: h.vsil.get(),
        length: h.el.get(),
        detail: detail(h.etype, data),
        fingerprint: fnv1a(bytes),
    };
    Some((end, event))
}

/// A whole log built through the layouts: `header` with its Total Number
/// of Events and Total Log Length set from `events`, each event's header
/// (whose EL its caller set, see [`PelEventHeader::new`]) then its bytes.
/// The demo, the fixtures and the tests build their logs with it.
pub fn encode(mut header: PelHeaderPage, events: &[(PelEventHeader, Vec<u8>)]) -> Vec<u8> {
    let body: usize = events.iter().map(|(_, d)| EVENT_HEADER_LEN + d.len()).sum();
    header.tnev = (events.len() as u32).into();
    header.tll = ((PEL_HEADER_LEN + body) as u64).into();
    let mut out = header.as_bytes().to_vec();
    for (h, data) in events {
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
    }
    out
}

/// FNV-1a, 64-bit: stable across builds and Rust versions (unlike std's
/// hasher), so a saved marker still matches after an upgrade.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
