//! Polling a SATA drive: CHECK POWER MODE first so a drive in standby is
//! never woken, then IDENTIFY, SMART data, thresholds and status, Device
//! Statistics and the self-test log. Shared by live disks, replayed dumps
//! and `dump`.

use std::sync::Arc;

use tracing::debug;

use super::tracker::Tracker;
use super::{PollOutcome, Poller, keep};
use crate::ata::attributes::{DrivePresets, MediaKind, Namer};
use crate::ata::devstat::{self, DevstatPage};
use crate::ata::error_log::ErrorLogSummary;
use crate::ata::smart::{SmartData, SmartThresholds};
use crate::ata::{DeviceStatistics, Identify, self_test::SelfTestLog};
use crate::device::replay::{SMART_STATUS_FILE, sata_file_name};
use crate::device::{AtaRead, AtaSource};
use crate::health::sata::{SataPages, identity, reading};

/// Called with every page's dump file name and bytes as it is read (`dump`).
pub type RawSink<'a> = &'a mut dyn FnMut(&str, &[u8]);

/// Device Statistics pages the exporter reads, when the drive lists them.
const DEVSTAT_PAGES: [u8; 5] = [
    devstat::PAGE_GENERAL,
    devstat::PAGE_GENERAL_ERRORS,
    devstat::PAGE_TEMPERATURE,
    devstat::PAGE_TRANSPORT,
    devstat::PAGE_SSD,
];

/// How a SATA drive is polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SataPolicy {
    /// Re-read IDENTIFY and the statistics page list every this many polls.
    pub identity_every: u64,
    /// Poll a drive in standby anyway (spinning it up).
    pub wake_standby: bool,
}

impl SataPolicy {
    pub const EVERY_PAGE: Self = Self {
        identity_every: 1,
        wake_standby: false,
    };
    pub const LIVE: Self = Self {
        identity_every: 10,
        wake_standby: false,
    };
}

pub struct SataPoller {
    src: Box<dyn AtaSource>,
    namer: Arc<Namer>,
    policy: SataPolicy,
    polls: u64,
    tracker: Tracker,
    pages: SataPages,
    /// Names and meanings for this model, from the last IDENTIFY.
    presets: Option<DrivePresets>,
    /// Statistics pages the drive lists (page 00h).
    devstat_list: Option<Vec<u8>>,
}

impl SataPoller {
    pub fn new(src: Box<dyn AtaSource>, namer: Arc<Namer>, policy: SataPolicy) -> Self {
        let tracker = Tracker::new(src.origin());
        Self {
            src,
            namer,
            policy,
            polls: 0,
            tracker,
            pages: SataPages::default(),
            presets: None,
            devstat_list: None,
        }
    }

    /// One poll, handing every page read to `sink`.
    pub fn poll_with(&mut self, sink: RawSink<'_>) -> PollOutcome {
        let mut out = PollOutcome::default();
        if !self.policy.wake_standby && self.in_standby(&mut out) {
            debug!(device = %self.src.origin(), "drive in standby; not polled this round");
            out.skipped = Some("standby");
            return out;
        }
        let refresh =
            self.pages.identify.is_none() || self.polls % self.policy.identity_every.max(1) == 0;
        self.polls += 1;
        if refresh {
            self.identify(&mut out, sink);
            if out.gone {
                return out;
            }
        }
        let smart = self.page(
            &mut out,
            sink,
            "ata_smart",
            AtaRead::SmartData,
            SmartData::parse,
        );
        out.up = smart.is_some();
        keep(&mut self.pages.smart, smart);
        self.status(&mut out, sink);
        self.devstat(&mut out, sink, refresh);
        // Every poll: SMART data byte 363 (self-test execution status) would
        // say when a test ran, but not every device updates it (QEMU's AHCI
        // disk does not), and a test result must not wait for a refresh.
        let t = self.page(
            &mut out,
            sink,
            "ata_self_test",
            AtaRead::SelfTestLog,
            SelfTestLog::parse,
        );
        keep(&mut self.pages.self_test, t);
        self.slow_pages(&mut out, sink, refresh);
        out.identity = self.pages.identify.as_ref().map(identity);
        if let (Some(presets), true) = (
            &self.presets,
            self.pages.identify.is_some() || self.pages.smart.is_some(),
        ) {
            out.reading = Some(reading(&self.pages, presets));
        }
        out
    }

    /// Pages that rarely change, read with the identity refresh: thresholds
    /// and the error log. Replays refresh every poll, so they read them all.
    fn slow_pages(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, refresh: bool) {
        if refresh || self.pages.thresholds.is_none() {
            let req = AtaRead::SmartThresholds;
            let t = self.page(out, sink, "ata_thresholds", req, SmartThresholds::parse);
            keep(&mut self.pages.thresholds, t);
        }
        if refresh {
            let req = AtaRead::ErrorLog;
            let e = self.page(out, sink, "ata_error_log", req, ErrorLogSummary::parse);
            keep(&mut self.pages.error_log, e);
        }
    }

    /// CHECK POWER MODE; a failure to ask is counted but does not stop the poll.
    fn in_standby(&mut self, out: &mut PollOutcome) -> bool {
        if self.tracker.is_unsupported("power_mode") {
            return false;
        }
        let mode = self
            .tracker
            .fetched(out, "power_mode", self.src.power_mode());
        out.power_mode = mode.map(|m| m.name());
        mode.is_some_and(|m| m.is_standby())
    }

    fn identify(&mut self, out: &mut PollOutcome, sink: RawSink<'_>) {
        let id = self.page(out, sink, "identify", AtaRead::Identify, Identify::parse);
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
        if self.tracker.is_unsupported("ata_status") {
            return;
        }
        let result = self.src.smart_status();
        if let Some(status) = self.tracker.fetched(out, "ata_status", result) {
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
    /// [`DEVSTAT_PAGES`] is read every poll.
    fn devstat(&mut self, out: &mut PollOutcome, sink: RawSink<'_>, refresh: bool) {
        if refresh || self.devstat_list.is_none() {
            let list = self.page(
                out,
                sink,
                "ata_devstat",
                AtaRead::DevStat { page: 0 },
                devstat::supported_pages,
            );
            if list.is_some() {
                self.devstat_list = list;
            }
        }
        let Some(list) = self.devstat_list.clone() else {
            self.pages.devstat = None;
            return;
        };
        let mut stats = DeviceStatistics::default();
        for page in DEVSTAT_PAGES.into_iter().filter(|p| list.contains(p)) {
            let req = AtaRead::DevStat { page };
            if let Some(p) = self.page(out, sink, "ata_devstat", req, |b| {
                DevstatPage::parse(page, b)
            }) {
                stats.add_page(&p);
            }
        }
        self.pages.devstat = Some(stats);
    }

    fn page<T, E: std::fmt::Display>(
        &mut self,
        out: &mut PollOutcome,
        sink: RawSink<'_>,
        source: &'static str,
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
        self.poll_with(&mut |_, _| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::PowerMode;
    use crate::ata::smart::SmartStatus;
    use crate::device::FetchError;
    use crate::device::replay::SataReplay;
    use std::path::Path;
    use std::sync::Mutex;

    /// A replayed DC600M whose power mode and failures the test chooses,
    /// recording every request.
    struct Fake {
        inner: SataReplay,
        mode: PowerMode,
        abort: Vec<AtaRead>,
        asked: Arc<Mutex<Vec<String>>>,
    }

    impl AtaSource for Fake {
        fn origin(&self) -> String {
            "/dev/sdz".into()
        }
        fn read(&mut self, req: AtaRead) -> Result<Vec<u8>, FetchError> {
            self.asked.lock().unwrap().push(req.to_string());
            if self.abort.contains(&req) {
                return Err(FetchError::Unsupported(format!(
                    "{req}: ata command aborted (status 51h, error 04h)"
                )));
            }
            self.inner.read(req)
        }
        fn smart_status(&mut self) -> Result<SmartStatus, FetchError> {
            self.asked
                .lock()
                .unwrap()
                .push("smart return status".into());
            self.inner.smart_status()
        }
        fn power_mode(&mut self) -> Result<PowerMode, FetchError> {
            Ok(self.mode)
        }
    }

    fn poller(
        mode: PowerMode,
        abort: Vec<AtaRead>,
        policy: SataPolicy,
    ) -> (SataPoller, Arc<Mutex<Vec<String>>>) {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/sata/kingston-dc600m/sda"
        ));
        let asked = Arc::new(Mutex::new(Vec::new()));
        let fake = Fake {
            inner: SataReplay::new(dir),
            mode,
            abort,
            asked: asked.clone(),
        };
        (
            SataPoller::new(Box::new(fake), Arc::new(Namer::builtin()), policy),
            asked,
        )
    }

    #[test]
    fn a_drive_in_standby_is_not_touched_beyond_check_power_mode() {
        let (mut p, asked) = poller(PowerMode::Standby, vec![], SataPolicy::LIVE);
        let out = p.poll();
        assert_eq!(out.skipped, Some("standby"));
        assert_eq!(out.power_mode, Some("standby"));
        assert!(out.errors.is_empty() && out.reading.is_none());
        assert!(
            asked.lock().unwrap().is_empty(),
            "{:?}",
            asked.lock().unwrap()
        );
    }

    #[test]
    fn wake_standby_polls_a_sleeping_drive() {
        let policy = SataPolicy {
            wake_standby: true,
            ..SataPolicy::LIVE
        };
        let (mut p, asked) = poller(PowerMode::Standby, vec![], policy);
        let out = p.poll();
        assert!(out.up && out.skipped.is_none());
        assert!(asked.lock().unwrap().iter().any(|r| r == "smart read data"));
    }

    #[test]
    fn an_aborted_log_is_unsupported_asked_once_and_the_rest_is_served() {
        let (mut p, asked) = poller(
            PowerMode::ActiveOrIdle,
            vec![AtaRead::SelfTestLog],
            SataPolicy::LIVE,
        );
        for _ in 0..3 {
            let out = p.poll();
            assert!(out.up && out.errors.is_empty(), "{:?}", out.errors);
            let r = out.reading.unwrap();
            assert_eq!(r.ata_attributes.len(), 28);
            assert!(r.self_test_last_result.is_none());
        }
        let n = asked
            .lock()
            .unwrap()
            .iter()
            .filter(|r| *r == "smart self-test log")
            .count();
        assert_eq!(n, 1);
    }
}
