//! Polling a SATA drive: CHECK POWER MODE first so a drive in standby is
//! never woken, then IDENTIFY, SMART data, thresholds and status, Device
//! Statistics and the self-test log. Shared by live disks, replayed dumps
//! and `dump`.

use std::collections::BTreeMap;
use std::sync::Arc;

use tracing::{debug, info, warn};

use super::refresh::{self, Refresh};
use super::source::{DEVSTAT_PAGES, Source};
use super::standby::StandbySkips;
use super::tracker::Tracker;
use super::{PollOutcome, Poller, keep};
use crate::ata::attributes::{DrivePresets, MediaKind, Namer};
use crate::ata::devstat::{self, DevstatPage};
use crate::ata::error_log::ErrorLogSummary;
use crate::ata::smart::{SmartData, SmartThresholds};
use crate::ata::{DeviceStatistics, Identify, self_test::SelfTestLog};
use crate::device::replay::{SMART_STATUS_FILE, sata_file_name};
use crate::device::{AtaRead, AtaSource};
use crate::reading::sata::{SataPages, identity, reading};

/// Default of `poll.standby_max_skips`: a drive in standby is never woken.
pub const DEFAULT_STANDBY_MAX_SKIPS: u32 = 0;

/// Called with every page's dump file name and bytes as it is read (`dump`).
pub type RawSink<'a> = &'a mut dyn FnMut(&str, &[u8]);

/// How a SATA drive is polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SataPolicy {
    /// Re-read IDENTIFY and the statistics page list every this many polls;
    /// pages found unsupported are asked again with each refresh.
    pub identity_every: u64,
    /// Poll a drive in standby anyway (spinning it up).
    pub wake_standby: bool,
    /// Otherwise, poll it once after this many skips in a row; 0 = never.
    pub standby_max_skips: u32,
}

impl SataPolicy {
    pub const EVERY_PAGE: Self = Self {
        identity_every: 1,
        wake_standby: false,
        standby_max_skips: DEFAULT_STANDBY_MAX_SKIPS,
    };
    pub const LIVE: Self = Self {
        identity_every: refresh::LIVE_EVERY,
        wake_standby: false,
        standby_max_skips: DEFAULT_STANDBY_MAX_SKIPS,
    };
}

pub struct SataPoller {
    src: Box<dyn AtaSource>,
    namer: Arc<Namer>,
    policy: SataPolicy,
    /// Which polls refresh identity ([`Refresh`]).
    refresh: Refresh,
    tracker: Tracker,
    pages: SataPages,
    /// Names and meanings for this model, from the last IDENTIFY.
    presets: Option<DrivePresets>,
    /// Statistics pages the drive lists (page 00h).
    devstat_list: Option<Vec<u8>>,
    /// Each statistics page's newest good decode, by page number: a page
    /// that fails keeps its values, one found unsupported is dropped.
    devstat_pages: BTreeMap<u8, DevstatPage>,
    /// Polls skipped in a row for standby (`standby_max_skips`).
    standby: StandbySkips,
    /// Whether the ids the drive lists more than once were logged: once
    /// per drive, not every poll.
    repeats_logged: bool,
}

impl SataPoller {
    pub fn new(src: Box<dyn AtaSource>, namer: Arc<Namer>, policy: SataPolicy) -> Self {
        let tracker = Tracker::new(src.origin());
        Self {
            src,
            namer,
            policy,
            refresh: Refresh::every(policy.identity_every),
            tracker,
            pages: SataPages::default(),
            presets: None,
            devstat_list: None,
            devstat_pages: BTreeMap::new(),
            standby: StandbySkips::new(policy.standby_max_skips),
            repeats_logged: false,
        }
    }

    /// One poll, handing every page read to `sink`.
    pub fn poll_with(&mut self, sink: RawSink<'_>) -> PollOutcome {
        let mut out = PollOutcome::default();
        if !self.policy.wake_standby && self.in_standby(&mut out) {
            if self.standby.skip() {
                debug!(device = %self.src.origin(), "drive in standby; not polled this round");
                out.skipped = Some("standby");
                return out;
            }
            info!(
                device = %self.src.origin(),
                skipped = self.policy.standby_max_skips,
                "drive in standby for this many polls in a row; polling it once anyway (poll.standby_max_skips)"
            );
        } else {
            self.standby.awake();
        }
        let refresh = self.refresh.due(self.pages.identify.is_some());
        if refresh {
            // The page-support model's slow schedule: ask again whatever
            // was unsupported.
            self.tracker.recheck();
            self.identify(&mut out, sink);
            if out.gone {
                out.pages = self.tracker.beliefs();
                return out;
            }
        }
        let smart = self.page(
            &mut out,
            sink,
            Source::AtaSmart,
            AtaRead::SmartData,
            SmartData::parse,
        );
        out.up = smart.is_some();
        if let Some(s) = &smart {
            self.log_repeats(s);
        }
        keep(&mut self.pages.smart, smart);
        self.status(&mut out, sink);
        self.devstat(&mut out, sink, refresh);
        // Every poll: SMART data byte 363 (self-test execution status) would
        // say when a test ran, but not every device updates it (QEMU's AHCI
        // disk does not), and a test result must not wait for a refresh.
        let t = self.page(
            &mut out,
            sink,
            Source::AtaSelfTest,
            AtaRead::SelfTestLog,
            SelfTestLog::parse,
        );
        keep(&mut self.pages.self_test, t);
        self.slow_pages(&mut out, sink, refresh);
        self.forget_unsupported();
        out.identity = self.pages.identify.as_ref().map(identity);
        if let (Some(presets), true) = (
            &self.presets,
            self.pages.identify.is_some() || self.pages.smart.is_some(),
        ) {
            out.reading = Some(reading(&self.pages, presets));
        }
        out.pages = self.tracker.beliefs();
        out
    }

    /// Logs, once, the attribute ids the drive lists more than once: each
    /// is served and judged by its first entry.
    fn log_repeats(&mut self, smart: &SmartData) {
        let repeated = smart.repeated_ids();
        if self.repeats_logged || repeated.is_empty() {
            return;
        }
        self.repeats_logged = true;
        warn!(
            device = %self.src.origin(),
            ids = ?repeated,
            "the drive lists these SMART attribute ids more than once; each is served and judged by its first entry"
        );
    }

    /// Drops the cached decode of every page found unsupported.
    fn forget_unsupported(&mut self) {
        let (t, p) = (&self.tracker, &mut self.pages);
        t.forget_if_unsupported(Source::AtaThresholds, &mut p.thresholds);
        t.forget_if_unsupported(Source::AtaStatus, &mut p.status);
        t.forget_if_unsupported(Source::AtaSelfTest, &mut p.self_test);
        t.forget_if_unsupported(Source::AtaErrorLog, &mut p.error_log);
    }

    /// Pages that rarely change, read with the identity refresh: thresholds
    /// and the error log. Replays refresh every poll, so they read them all.
    fn slow_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, refresh: bool) {
        if refresh || self.pages.thresholds.is_none() {
            let req = AtaRead::SmartThresholds;
            let t = self.page(
                out,
                sink,
                Source::AtaThresholds,
                req,
                SmartThresholds::parse,
            );
            keep(&mut self.pages.thresholds, t);
        }
        if refresh {
            let req = AtaRead::ErrorLog;
            let e = self.page(out, sink, Source::AtaErrorLog, req, ErrorLogSummary::parse);
            keep(&mut self.pages.error_log, e);
        }
    }

    /// CHECK POWER MODE; a failure to ask is counted but does not stop the poll.
    fn in_standby(&mut self, out: &mut PollOutcome) -> bool {
        if self.tracker.is_unsupported(Source::PowerMode) {
            return false;
        }
        let mode = self
            .tracker
            .fetched(out, Source::PowerMode, self.src.power_mode());
        if mode.is_some() {
            self.tracker.ok(Source::PowerMode);
        }
        out.power_mode = mode.map(|m| m.name());
        mode.is_some_and(|m| m.is_standby())
    }

    fn identify(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let id = self.page(
            out,
            sink,
            Source::Identify,
            AtaRead::Identify,
            Identify::parse,
        );
        if let Some(id) = &id {
            let media = match id.rotation_rate {
                Some(1) => MediaKind::Ssd,
                Some(_) => MediaKind::Hdd,
                None => MediaKind::Unknown,
            };
            self.presets = Some(self.namer.for_drive_kind(&id.model, &id.firmware, media));
        }
        keep(&mut self.pages.identify, id);
        if self.presets.is_none() && !out.gone {
            // No IDENTIFY yet: name attributes from the defaults alone.
            self.presets = Some(self.namer.for_drive_kind("", "", MediaKind::Unknown));
        }
    }

    fn status(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        if self.tracker.is_unsupported(Source::AtaStatus) {
            return;
        }
        let result = self.src.smart_status();
        if let Some(status) = self.tracker.fetched(out, Source::AtaStatus, result) {
            self.tracker.ok(Source::AtaStatus);
            let text = match status {
                crate::ata::smart::SmartStatus::Passed => "passed\n",
                crate::ata::smart::SmartStatus::Failed => "failed\n",
                crate::ata::smart::SmartStatus::Unknown { .. } => "unknown\n",
            };
            sink(SMART_STATUS_FILE, text.as_bytes());
            self.pages.status = Some(status);
        }
    }

    /// Page 00h (on identity refresh) lists the pages; each listed page of
    /// [`DEVSTAT_PAGES`] is read every poll, each with its own support.
    fn devstat(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, refresh: bool) {
        if refresh || self.devstat_list.is_none() {
            let list = self.page(
                out,
                sink,
                Source::AtaDevstat,
                AtaRead::DevStat { page: 0 },
                devstat::supported_pages,
            );
            if list.is_some() {
                self.devstat_list = list;
            } else if self.tracker.is_unsupported(Source::AtaDevstat) {
                self.devstat_list = None;
            }
        }
        let Some(list) = self.devstat_list.clone() else {
            self.devstat_pages.clear();
            self.pages.devstat = None;
            return;
        };
        for page in DEVSTAT_PAGES {
            let source = Source::AtaDevstatPage(page);
            if !list.contains(&page) {
                self.devstat_pages.remove(&page);
                continue;
            }
            let req = AtaRead::DevStat { page };
            let p = self.page(out, sink, source, req, |b| DevstatPage::parse(page, b));
            match p {
                Some(p) => {
                    self.devstat_pages.insert(page, p);
                }
                None if self.tracker.is_unsupported(source) => {
                    self.devstat_pages.remove(&page);
                }
                None => {}
            }
        }
        let mut stats = DeviceStatistics::default();
        for p in self.devstat_pages.values() {
            stats.add_page(p);
        }
        self.pages.devstat = Some(stats);
    }

    fn page<T, E: std::fmt::Display>(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        source: Source,
        req: AtaRead,
        parse: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Option<T> {
        if self.tracker.is_unsupported(source) {
            return None;
        }
        let bytes = self.tracker.fetched(out, source, self.src.read(req))?;
        sink(&sata_file_name(req), &bytes);
        self.tracker.decoded(out, source, req, parse(&bytes))
    }
}

impl Poller for SataPoller {
    fn origin(&self) -> String {
        self.src.origin()
    }

    fn poll(&mut self) -> PollOutcome {
        let mut out = self.poll_with(&mut |_, _| {});
        let src = &mut self.src;
        super::unprivileged::serve(&mut out, &mut self.tracker, || src.hwmon());
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
        self.pages = SataPages::default();
        self.presets = None;
        self.devstat_list = None;
        self.devstat_pages.clear();
        self.standby = StandbySkips::new(self.policy.standby_max_skips);
        self.repeats_logged = false;
    }
}

#[cfg(test)]
mod tests;
