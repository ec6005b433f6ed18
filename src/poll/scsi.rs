//! Polling a SAS or SCSI disk: standard INQUIRY every poll (mandatory,
//! cheap, it never touches the medium); with each identity refresh the VPD
//! pages VPD 00h lists (80h serial, 83h WWN and transport protocol, B1h
//! rotation rate), READ CAPACITY(16) and LOG SENSE page 00h; then every
//! poll the log pages 00h lists (only those: a device is never asked for a
//! page it did not list) and the grown defect count (READ DEFECT DATA(12),
//! or (10) from a drive without it). A virtual volume (a RAID logical drive,
//! a virtual disk: `device::discovery::volume`) is read for its identity
//! only: no log pages, no defect list. Shared by live disks, replayed dumps,
//! the demo and `dump`.

use tracing::debug;

use super::refresh::{self, Refresh};
use super::source::{SCSI_LOG_PAGES, Source};
use super::tracker::Tracker;
use super::{PollOutcome, Poller, keep};
use crate::decode::ParseError;
use crate::device::discovery::volume::{self, VolumeFacts};
use crate::device::discovery::{Kind, Transport};
use crate::device::replay::scsi_file_name;
use crate::device::{ScsiRequest, ScsiSource};
use crate::reading::scsi::{ScsiPages, identity, reading};
use crate::scsi::exceptions::Condition;
use crate::scsi::identity::{self as id, Inquiry, ReadCapacity16};
use crate::scsi::{defects, log, self_test};

/// Called with every answer's dump file name and bytes as it is read (`dump`).
pub type RawSink<'a> = &'a mut dyn FnMut(&str, &[u8]);

/// How a SCSI drive is polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScsiPolicy {
    /// Re-read the VPD pages, the capacity and the log page list every
    /// this many polls; pages found unsupported are asked again then.
    pub identity_every: u64,
}

impl ScsiPolicy {
    pub const EVERY_PAGE: Self = Self { identity_every: 1 };
    pub const LIVE: Self = Self {
        identity_every: refresh::LIVE_EVERY,
    };
}

/// What a page read means for its cached decode.
enum Update<T> {
    Got(T),
    /// Failed: keep the last good decode.
    Keep,
    /// Unsupported, or no longer listed: forget it.
    Drop,
}

fn apply<T>(slot: &mut Option<T>, u: Update<T>) {
    match u {
        Update::Got(v) => *slot = Some(v),
        Update::Keep => {}
        Update::Drop => *slot = None,
    }
}

pub struct ScsiPoller {
    src: Box<dyn ScsiSource>,
    /// What discovery saw (`Sas` from the SAS transport class in sysfs).
    hint: Transport,
    /// What discovery made of the disk (`Virtual` from its host adapter,
    /// `Volume` from its transport, either from sysfs copies of its pages);
    /// `Physical` is "not known to be anything else".
    kind_hint: Kind,
    /// What the poller makes of it with the pages it read.
    kind: Kind,
    /// Which polls refresh identity ([`Refresh`]).
    refresh: Refresh,
    tracker: Tracker,
    pages: ScsiPages,
    /// VPD 00h and log 00h lists, from the last refresh.
    vpd_list: Option<Vec<u8>>,
    log_list: Option<Vec<u8>>,
}

impl ScsiPoller {
    pub fn new(src: Box<dyn ScsiSource>, hint: Transport, policy: ScsiPolicy) -> Self {
        let tracker = Tracker::new(src.origin());
        Self {
            src,
            hint,
            kind_hint: Kind::Physical,
            kind: Kind::Physical,
            refresh: Refresh::every(policy.identity_every),
            tracker,
            pages: ScsiPages::default(),
            vpd_list: None,
            log_list: None,
        }
    }

    /// A disk discovery already knows to be `kind` (a virtual volume by
    /// its host adapter).
    pub fn with_kind(mut self, kind: Kind) -> Self {
        self.kind_hint = kind;
        self.kind = kind;
        self
    }

    /// One poll, handing every answer read to `sink`.
    pub fn poll_with(&mut self, sink: RawSink<'_>) -> PollOutcome {
        let mut out = PollOutcome::default();
        let refresh = self.refresh.due(self.pages.inquiry.is_some());
        if refresh {
            self.tracker.recheck();
        }
        let inq = self.read(
            &mut out,
            sink,
            Source::ScsiInquiry,
            ScsiRequest::Inquiry,
            Inquiry::parse,
        );
        let inquiry_ok = matches!(inq, Update::Got(_));
        if let Update::Got(i) = &inq {
            if !i.is_disk() {
                let note = format!(
                    "inquiry: peripheral qualifier {} type {:02x}h is not a disk; polled anyway",
                    i.peripheral_qualifier, i.peripheral_type
                );
                self.tracker.note_once(Source::ScsiInquiry, &note);
            }
        }
        keep(
            &mut self.pages.inquiry,
            match inq {
                Update::Got(i) => Some(i),
                _ => None,
            },
        );
        if out.gone {
            out.pages = self.tracker.beliefs();
            return out;
        }
        if refresh {
            self.identity_pages(&mut out, sink);
        }
        self.pages.sysfs_links = self.src.sas_links();
        let mut ie_failed = false;
        if self.kind.is_physical() {
            ie_failed = self.log_pages(&mut out, sink);
            self.defects(&mut out, sink);
            self.note_exception();
        }
        out.up = inquiry_ok && !ie_failed;
        out.identity = identity(&self.pages, self.hint, self.kind);
        if self.pages.inquiry.is_some() {
            out.reading = Some(reading(&self.pages));
        }
        out.pages = self.tracker.beliefs();
        debug!(device = %self.src.origin(), up = out.up, "scsi poll done");
        out
    }

    /// VPD pages, READ CAPACITY(16) and the log page list.
    fn identity_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let list = self.read(
            out,
            sink,
            Source::ScsiVpd(id::VPD_SUPPORTED),
            ScsiRequest::Vpd(0),
            id::vpd_supported,
        );
        apply(&mut self.vpd_list, list);
        let listed = |p: u8| self.vpd_list.as_ref().is_some_and(|l| l.contains(&p));
        let (serial, device_id, b1) = (
            listed(id::VPD_UNIT_SERIAL),
            listed(id::VPD_DEVICE_ID),
            listed(id::VPD_BLOCK_CHARACTERISTICS),
        );
        let u = self.vpd(out, sink, serial, id::VPD_UNIT_SERIAL, id::vpd_unit_serial);
        apply(&mut self.pages.serial, u);
        let parse_83 =
            |b: &[u8]| Ok::<_, ParseError>((id::vpd_naa(b)?, id::vpd_port_protocols(b)?));
        match self.vpd(out, sink, device_id, id::VPD_DEVICE_ID, parse_83) {
            Update::Got((naa, protocols)) => {
                self.pages.wwn = naa;
                self.pages.protocols = protocols;
            }
            Update::Keep => {}
            Update::Drop => (self.pages.wwn, self.pages.protocols) = (None, Vec::new()),
        }
        let u = flatten(self.vpd(
            out,
            sink,
            b1,
            id::VPD_BLOCK_CHARACTERISTICS,
            id::vpd_rotation_rate,
        ));
        apply(&mut self.pages.rotation_rate, u);
        if let Some(rpm) = self.pages.rotation_rate.filter(|&r| r != 1) {
            // VPD B1h medium rotation rate (SBC-4 6.6.2): 0001h is
            // non-rotating; anything else is a spinning disk's rpm.
            let note =
                format!("vpd b1h: a rotating medium ({rpm} rpm), not an SSD; served all the same");
            self.tracker
                .note_once(Source::ScsiVpd(id::VPD_BLOCK_CHARACTERISTICS), &note);
        }
        let cap = self.read(
            out,
            sink,
            Source::ScsiReadCapacity,
            ScsiRequest::ReadCapacity16,
            ReadCapacity16::parse,
        );
        apply(&mut self.pages.capacity, cap);
        self.classify();
        if !self.kind.is_physical() {
            self.log_list = None;
            return;
        }
        let req = ScsiRequest::Log {
            page: log::SUPPORTED_PAGES,
            subpage: 0,
        };
        let list = self.read(
            out,
            sink,
            Source::ScsiLog(log::SUPPORTED_PAGES),
            req,
            log::supported_pages,
        );
        apply(&mut self.log_list, list);
    }

    /// Physical, virtual or a LUN, from discovery's hint, VPD 83h's port
    /// protocols and the INQUIRY strings ([`volume::classify`]); logged
    /// when it changes.
    fn classify(&mut self) {
        let Some(inq) = &self.pages.inquiry else {
            return;
        };
        let facts = VolumeFacts {
            vendor: &inq.vendor,
            product: &inq.product,
            port_protocols: &self.pages.protocols,
            ..VolumeFacts::default()
        };
        let (kind, why) = match self.kind_hint {
            Kind::Physical => volume::classify(&facts),
            hint => (hint, None),
        };
        if !kind.is_physical() && self.kind != kind {
            let why = why.map_or(String::new(), |w| format!(": {w}"));
            let note = format!(
                "not a drive (kind {}){why}; watched for its identity only (no log pages, not judged)",
                kind.as_label()
            );
            self.tracker.note_once(Source::ScsiInquiry, &note);
        }
        if !kind.is_physical() {
            let p = &mut self.pages;
            (p.errors, p.non_medium_errors, p.temperature) = Default::default();
            (p.start_stop, p.self_test, p.percentage_used) = Default::default();
            (p.power_on_minutes, p.sas_phys) = Default::default();
            (p.informational_exception, p.grown_defects) = Default::default();
        }
        self.kind = kind;
    }

    /// The grown defect count: READ DEFECT DATA(12) first (a 32-bit list
    /// length), (10) from a drive that does not have (12).
    fn defects(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let (source, req) = (Source::ScsiDefects12, ScsiRequest::GrownDefects12);
        let d = self.read(out, sink, source, req, defects::grown_defects_12);
        if !self.tracker.is_unsupported(source) {
            return apply(&mut self.pages.grown_defects, flatten(d));
        }
        let (source, req) = (Source::ScsiDefects, ScsiRequest::GrownDefects10);
        let d = self.read(out, sink, source, req, defects::grown_defects);
        apply(&mut self.pages.grown_defects, flatten(d));
    }

    /// Logs once what the informational exception is when it is neither
    /// a failure nor a warning (those are problems of the verdict).
    fn note_exception(&mut self) {
        let Some(ie) = self.pages.informational_exception else {
            return;
        };
        let what = match ie.condition() {
            Condition::Test => "the TEST bit's false report (asc 5dh, ascq ffh), not a failure",
            Condition::Other => {
                "no informational exception asc (neither 0bh nor 5dh), not a failure"
            }
            _ => return,
        };
        let note = format!(
            "log 2fh: asc {:02x}h ascq {:02x}h is {what}",
            ie.asc, ie.ascq
        );
        self.tracker
            .note_once(Source::ScsiLog(log::INFORMATIONAL_EXCEPTIONS), &note);
    }

    fn vpd<T>(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        listed: bool,
        page: u8,
        parse: impl FnOnce(&[u8]) -> Result<T, ParseError>,
    ) -> Update<T> {
        if !listed {
            return Update::Drop;
        }
        self.read(
            out,
            sink,
            Source::ScsiVpd(page),
            ScsiRequest::Vpd(page),
            parse,
        )
    }

    /// Every log page of [`SCSI_LOG_PAGES`] that page 00h lists; true when
    /// the informational exceptions page (the health page) was listed and
    /// failed.
    fn log_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) -> bool {
        let mut ie_failed = false;
        for page in SCSI_LOG_PAGES.into_iter().skip(1) {
            let listed = self.log_list.as_ref().is_some_and(|l| l.contains(&page));
            let p = &mut LogRead {
                poller: self,
                out,
                listed,
                page,
            };
            let failed = match page {
                log::WRITE_ERRORS | log::READ_ERRORS | log::VERIFY_ERRORS => {
                    let i = match page {
                        log::READ_ERRORS => 0,
                        log::WRITE_ERRORS => 1,
                        _ => 2,
                    };
                    let u = p.read(sink, |b| log::error_counters(b, page));
                    p.store(u, |pages| &mut pages.errors[i])
                }
                log::NON_MEDIUM_ERRORS => {
                    let u = flatten(p.read(sink, log::non_medium_errors));
                    p.store(u, |pages| &mut pages.non_medium_errors)
                }
                log::TEMPERATURE => {
                    let u = p.read(sink, log::temperature);
                    p.store(u, |pages| &mut pages.temperature)
                }
                log::START_STOP => {
                    let u = p.read(sink, log::start_stop);
                    p.store(u, |pages| &mut pages.start_stop)
                }
                log::SELF_TEST => {
                    let u = p.read(sink, self_test::self_tests);
                    p.store(u, |pages| &mut pages.self_test)
                }
                log::SOLID_STATE_MEDIA => {
                    let u = flatten(p.read(sink, log::percentage_used));
                    p.store(u, |pages| &mut pages.percentage_used)
                }
                log::BACKGROUND_SCAN => {
                    let u = flatten(p.read(sink, log::power_on_minutes));
                    p.store(u, |pages| &mut pages.power_on_minutes)
                }
                log::PROTOCOL_SPECIFIC_PORT => {
                    let u = p.read(sink, log::sas_phys);
                    p.store(u, |pages| &mut pages.sas_phys)
                }
                log::INFORMATIONAL_EXCEPTIONS => {
                    let u = flatten(p.read(sink, log::informational_exceptions));
                    p.store(u, |pages| &mut pages.informational_exception)
                }
                _ => false,
            };
            ie_failed |= failed && page == log::INFORMATIONAL_EXCEPTIONS;
        }
        ie_failed
    }

    /// Reads and decodes one answer; what failed is recorded in `out`.
    fn read<T, E: std::fmt::Display>(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        source: Source,
        req: ScsiRequest,
        parse: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Update<T> {
        if self.tracker.is_unsupported(source) {
            return Update::Drop;
        }
        let Some(bytes) = self.tracker.fetched(out, source, self.src.read(req)) else {
            return if self.tracker.is_unsupported(source) {
                Update::Drop
            } else {
                Update::Keep
            };
        };
        sink(&scsi_file_name(req), &bytes);
        match self.tracker.decoded(out, source, req, parse(&bytes)) {
            Some(v) => Update::Got(v),
            None => Update::Keep,
        }
    }
}

/// A decoded page whose field may be absent: an absent field is dropped.
fn flatten<T>(u: Update<Option<T>>) -> Update<T> {
    match u {
        Update::Got(Some(v)) => Update::Got(v),
        Update::Got(None) | Update::Drop => Update::Drop,
        Update::Keep => Update::Keep,
    }
}

/// One log page's read, for [`ScsiPoller::log_pages`].
struct LogRead<'a, 'o> {
    poller: &'a mut ScsiPoller,
    out: &'o mut PollOutcome,
    listed: bool,
    page: u8,
}

impl LogRead<'_, '_> {
    fn read<T>(
        &mut self,
        sink: RawSink<'_>,
        parse: impl FnOnce(&[u8]) -> Result<T, ParseError>,
    ) -> Update<T> {
        if !self.listed {
            return Update::Drop;
        }
        let req = ScsiRequest::Log {
            page: self.page,
            subpage: 0,
        };
        self.poller
            .read(self.out, sink, Source::ScsiLog(self.page), req, parse)
    }

    /// Applies `u` to the slot `f` names; true when the page was read and
    /// failed (kept its last values).
    fn store<T>(&mut self, u: Update<T>, f: impl FnOnce(&mut ScsiPages) -> &mut Option<T>) -> bool {
        let failed = self.listed && matches!(u, Update::Keep);
        apply(f(&mut self.poller.pages), u);
        failed
    }
}

impl Poller for ScsiPoller {
    fn origin(&self) -> String {
        self.src.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        let mut out = self.poll_with(&mut |_, _| {});
        super::unprivileged::serve(&mut out, &mut self.tracker, || None);
        out
    }

    fn self_test(
        &mut self,
        op: crate::device::SelfTestOp,
    ) -> Result<(), crate::device::FetchError> {
        self.src.self_test(op)
    }

    fn reset(&mut self) {
        self.refresh.reset();
        self.tracker = Tracker::new(self.src.origin());
        self.pages = ScsiPages::default();
        self.vpd_list = None;
        self.log_list = None;
    }
}

#[cfg(test)]
mod tests;
