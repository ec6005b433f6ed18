use std::os::unix::fs::PermissionsExt as _;
use std::time::{Duration, SystemTime};

use super::file::{self, BAD_NAME, FILE_NAME, LIMIT};
use super::memory::{MAX_AGE, MAX_DRIVES, REFRESH};
use super::*;
use crate::device::discovery::Transport;
use crate::health::history::{History, Tracked};
use crate::reading::{Identity, Reading};
use crate::snapshot::DriveSnapshot;

mod clock;
mod strict;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

fn identity(serial: &str, wwn: &str) -> Identity {
    Identity {
        transport: Transport::Nvme,
        kind: Default::default(),
        model: "KINGSTON SEDC2000BM8960G".into(),
        serial: serial.into(),
        firmware: "EIEK51.3".into(),
        wwn: wwn.into(),
        capacity_bytes: None,
    }
}

/// A drive that has identified itself, with `media` errors, judged at `now`
/// the way `app` does: adopt, record, keep.
fn poll(m: &Memory, s: &mut DriveSnapshot, media: u128, now: SystemTime) {
    s.identified = true;
    m.adopt(s, now);
    let mut r = Reading::default();
    r.counters.media_errors = Some(media);
    s.history.record(now, &r);
    m.keep(s, now);
}

fn drive(device: &str, id: Identity) -> DriveSnapshot {
    let mut s = DriveSnapshot::new(device, "test", id);
    s.history = History::new(Some(Duration::from_secs(86_400)));
    s
}

fn window() -> Option<Duration> {
    Some(Duration::from_secs(86_400))
}

#[test]
fn the_file_round_trips_and_any_damage_is_refused() {
    let m = Memory::default();
    let mut s = drive("nvme0", identity("S1", "eui.0026b7"));
    poll(&m, &mut s, 0, at(T0));
    let payload = m.payload(at(T0), true).unwrap();
    let bytes = file::encode(&payload);
    assert_eq!(file::decode(&bytes).unwrap(), payload);
    let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();

    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    let truncated = &bytes[..bytes.len() - 1];
    let text = String::from_utf8(bytes.clone()).unwrap();
    let future = text.replacen("\"version\":1", "\"version\":2", 1);
    let zero = text.replacen("\"version\":1", "\"version\":0", 1);
    let other = text.replacen("ssd_exporter state", "something else", 1);
    let cases: [(&[u8], &str); 7] = [
        (&flipped, "checksum mismatch"),
        (truncated, "payload bytes where the header says"),
        (future.as_bytes(), "format version 2, newer"),
        (zero.as_bytes(), "version 0"),
        (other.as_bytes(), "format \"something else\""),
        (&bytes[..header_end], "no header line"),
        (b"{not json\n{}", "header:"),
    ];
    for (bad, want) in cases {
        let e = file::decode(bad).unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    }
    assert!(matches!(
        file::decode(future.as_bytes()),
        Err(LoadError::Future(2))
    ));
}

#[test]
fn a_payload_with_a_good_checksum_is_still_parsed_strictly() {
    let body = br#"{"saved_at_ms":1,"drives":[{"serial":7}]}"#;
    let sha: String = {
        use sha2::Digest;
        sha2::Sha256::digest(body)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let mut bytes = format!(
        r#"{{"format":"ssd_exporter state","version":1,"bytes":{},"sha256":"{sha}"}}"#,
        body.len()
    )
    .into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(body);
    let e = file::decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("payload:"), "{e}");
}

#[test]
fn a_counter_rise_across_a_restart_is_a_rise() {
    let dir = tempfile::tempdir().unwrap();
    {
        let state = StateDir::open(dir.path()).unwrap();
        let m = Memory::default();
        let mut s = drive("nvme0", identity("S1", "eui.0026b7"));
        poll(&m, &mut s, 0, at(T0));
        let (bytes, _) = file::encode_capped(m.payload(at(T0), true).unwrap());
        state.save(&bytes).unwrap();
    }
    // Restarted two days later; the drive is nvme1 now and logged 3 errors.
    let state = StateDir::open(dir.path()).unwrap();
    let now = at(T0 + 2 * 86_400);
    let (m, refused) = Memory::from_payload(window(), state.load().unwrap().unwrap(), now);
    assert!(refused.is_empty());
    let mut s = drive("nvme1", identity("S1", "eui.0026b7"));
    poll(&m, &mut s, 3, now);
    assert_eq!(s.history.increase(Tracked::MediaErrors), Some(3));
    assert_eq!(s.state_age, Some(Duration::from_secs(2 * 86_400)));
    // Another drive (other serial) under the same name starts fresh.
    let mut other = drive("nvme0", identity("S2", ""));
    poll(&m, &mut other, 3, now);
    assert_eq!(other.history.increase(Tracked::MediaErrors), Some(0));
    assert_eq!(other.state_age, Some(Duration::ZERO));
}

#[test]
fn a_different_world_wide_name_is_a_different_drive() {
    let m = Memory::default();
    let mut s = drive("sda", identity("S1", "naa.1"));
    poll(&m, &mut s, 0, at(T0));
    let mut clone = drive("sdb", identity("S1", "naa.2"));
    poll(&m, &mut clone, 5, at(T0 + 60));
    assert_eq!(clone.history.increase(Tracked::MediaErrors), Some(0));
    // A drive that gives no name matches the record that has one.
    let mut nameless = drive("sdc", identity("S1", ""));
    poll(&m, &mut nameless, 9, at(T0 + 120));
    assert_eq!(nameless.history.increase(Tracked::MediaErrors), Some(4));
}

#[test]
fn saves_wait_for_news_or_the_refresh() {
    let m = Memory::default();
    assert!(m.payload(at(T0), true).is_none(), "nothing to save yet");
    let mut s = drive("nvme0", identity("S1", ""));
    poll(&m, &mut s, 0, at(T0));
    assert!(m.payload(at(T0), false).is_some(), "a new drive is news");
    poll(&m, &mut s, 0, at(T0 + 60));
    assert!(m.payload(at(T0 + 60), false).is_none(), "only time moved");
    assert!(
        m.payload(at(T0 + 60), true).is_some(),
        "but shutdown saves it"
    );
    poll(&m, &mut s, 0, at(T0 + 120));
    let later = T0 + 60 + REFRESH.as_secs();
    assert!(
        m.payload(at(later), false).is_some(),
        "refreshed after REFRESH"
    );
    poll(&m, &mut s, 1, at(later + 60));
    assert!(m.payload(at(later + 60), false).is_some(), "a rise is news");
    m.unsaved();
    assert!(
        m.payload(at(later + 61), false).is_some(),
        "a failed save retries"
    );
}

#[test]
fn the_payload_is_bounded_in_drives_age_and_bytes() {
    let m = Memory::default();
    let old = at(T0);
    let mut s = drive("sdz", identity("OLD", ""));
    poll(&m, &mut s, 0, old);
    let now = old + MAX_AGE + Duration::from_secs(60);
    for i in 0..MAX_DRIVES + 5 {
        let mut s = drive("sdx", identity(&format!("S{i:05}"), ""));
        poll(&m, &mut s, 0, now - Duration::from_secs(i as u64));
    }
    let p = m.payload(now, true).unwrap();
    assert_eq!(p.drives.len(), MAX_DRIVES);
    assert_eq!(p.drives[0].serial, "S00000", "most recently seen first");
    assert!(p.drives.iter().all(|d| d.serial != "OLD"));
    // Past the byte cap, the least recently seen go.
    let mut big = p.clone();
    big.drives[0].model = "M".repeat(LIMIT.bytes as usize);
    big.drives.rotate_left(1);
    let (bytes, dropped) = file::encode_capped(big);
    assert!(bytes.len() as u64 <= LIMIT.bytes);
    assert!(dropped >= 1);
    assert_eq!(file::decode(&bytes).unwrap().drives[0].serial, "S00001");
}

#[test]
fn a_refused_record_is_reported_and_the_others_kept() {
    let m = Memory::default();
    let mut a = drive("nvme0", identity("A", ""));
    let mut b = drive("nvme1", identity("B", ""));
    poll(&m, &mut a, 0, at(T0));
    poll(&m, &mut b, 0, at(T0));
    let mut p = m.payload(at(T0), true).unwrap();
    let bad = p.drives.iter_mut().find(|d| d.serial == "B").unwrap();
    bad.history.temperature = Some((40.0, 30.0));
    let (m, refused) = Memory::from_payload(window(), p, at(T0 + 60));
    assert_eq!(m.len(), 1);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].serial, "B");
    assert_eq!(refused[0].moved, None);
    assert!(
        refused[0]
            .why
            .contains("temperature: points out of time order"),
        "{}",
        refused[0].why
    );
}

#[test]
fn the_directory_is_created_locked_and_written_atomically() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("a/b");
    let state = StateDir::open(&path).unwrap();
    assert!(state.writable);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    assert!(matches!(StateDir::open(&path), Err(OpenError::Locked)));
    assert_eq!(state.load().unwrap(), None, "no file yet");
    // A temporary file left by a killed process, even a symlink, is
    // replaced, never written through.
    let outside = tmp.path().join("outside");
    std::fs::write(&outside, "untouched").unwrap();
    std::os::unix::fs::symlink(&outside, path.join("state.json.tmp")).unwrap();
    let payload = Payload {
        saved_at_ms: 1,
        boot_ms: None,
        drives: Vec::new(),
    };
    state.save(&file::encode(&payload)).unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched");
    assert_eq!(state.load().unwrap(), Some(payload));
    assert!(!path.join("state.json.tmp").exists());
    let mode = std::fs::metadata(path.join(FILE_NAME))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    state.keep_aside().unwrap();
    assert!(path.join(BAD_NAME).exists() && path.join(FILE_NAME).exists());
    drop(state);
    assert!(
        StateDir::open(&path).is_ok(),
        "the lock goes with the process's hold"
    );
}

#[test]
fn a_state_file_that_is_no_regular_file_is_refused_not_waited_on() {
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::open(tmp.path()).unwrap();
    nix::unistd::mkfifo(&tmp.path().join(FILE_NAME), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let e = state.load().unwrap_err().to_string();
    assert!(e.contains("FIFO"), "{e}");
}

#[test]
fn a_directory_that_cannot_be_made_is_an_error_to_warn_about() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    std::fs::write(&file, "").unwrap();
    let e = StateDir::open(&file.join("state")).unwrap_err();
    assert!(matches!(e, OpenError::Create(_)), "{e}");
}

#[test]
fn the_event_log_mark_is_news_saved_and_looked_up_by_serial_and_model() {
    use crate::reading::nvme_depth::{NvmeReading, PelMark, PelSummary};
    let m = Memory::default();
    let mut s = drive("nvme0", identity("S1", ""));
    poll(&m, &mut s, 0, at(T0));
    assert!(m.payload(at(T0), false).is_some());
    assert_eq!(m.pel_mark("S1", "KINGSTON SEDC2000BM8960G"), None);
    let mark = PelMark {
        position: 5,
        fingerprint: 0x0123_4567_89ab_cdef,
    };
    s.reading = Some(Reading {
        nvme: Some(NvmeReading {
            pel: Some(PelSummary {
                mark: Some(mark),
                ..PelSummary::default()
            }),
            ..NvmeReading::default()
        }),
        ..Reading::default()
    });
    m.keep(&s, at(T0 + 1));
    // A new mark is news: saved at the next tick, not after the refresh.
    let payload = m.payload(at(T0 + 1), false).expect("a new mark is news");
    // A reading without the log keeps the mark.
    s.reading = Some(Reading::default());
    m.keep(&s, at(T0 + 2));
    assert_eq!(m.pel_mark("S1", "KINGSTON SEDC2000BM8960G"), Some(mark));
    let (restored, refused) = Memory::from_payload(
        window(),
        file::decode(&file::encode(&payload)).unwrap(),
        at(T0 + 60),
    );
    assert!(refused.is_empty());
    assert_eq!(
        restored.pel_mark("S1", "KINGSTON SEDC2000BM8960G"),
        Some(mark)
    );
    assert_eq!(restored.pel_mark("S1", "another model"), None);
    assert_eq!(restored.pel_mark("S2", "KINGSTON SEDC2000BM8960G"), None);
}

/// The kernel counts PCIe AER errors from 0 at each boot: a payload from
/// another boot (or one that does not say) loses them, one from this boot
/// keeps them; nothing else is touched.
#[test]
fn pcie_counts_are_kept_within_a_boot_and_forgotten_after_a_reboot() {
    use crate::health::history::{SavedHistory, SavedSeries};
    let counts = SavedSeries {
        first_seen_ms: None,
        points: vec![(T0 * 1000, 4, 0)],
    };
    let record = Record {
        serial: "S1".into(),
        model: "M".into(),
        wwn: String::new(),
        transport: "nvme".into(),
        last_seen_ms: T0 * 1000,
        history: SavedHistory {
            pcie_fatal: counts.clone(),
            pcie_nonfatal: counts.clone(),
            media_errors: counts.clone(),
            ..SavedHistory::default()
        },
        last_self_test: None,
        last_extended_self_test: None,
        pel_mark: None,
    };
    let boot = (T0 - 3600) * 1000;
    let payload = Payload {
        saved_at_ms: T0 * 1000,
        boot_ms: Some(boot),
        drives: vec![record],
    };
    assert!(
        payload.same_boot(Some(boot + 5_000)),
        "the clock stepped 5 s"
    );
    assert!(!payload.same_boot(Some(boot + 2 * 3600 * 1000)), "rebooted");
    assert!(!payload.same_boot(None));
    let older = Payload {
        boot_ms: None,
        ..payload.clone()
    };
    assert!(!older.same_boot(Some(boot)), "an older file does not say");
    let mut rebooted = payload.clone();
    assert_eq!(rebooted.forget_boot_counts(), 1);
    let h = &rebooted.drives[0].history;
    assert!(h.pcie_fatal.is_empty() && h.pcie_nonfatal.is_empty());
    assert_eq!(h.media_errors, counts, "the drive's own counters stay");
    assert_eq!(rebooted.forget_boot_counts(), 0);
}

/// The schedule keeps a clock per kind: an extended run counts for both,
/// a short one after it leaves the extended clock where it was, and both
/// come back from the saved file.
#[test]
fn self_test_runs_per_kind_survive_the_file() {
    let m = Memory::default();
    let id = identity("S1", "eui.0026b7");
    let mut s = drive("nvme0", id.clone());
    poll(&m, &mut s, 0, at(T0));
    let run = |secs: u64, kind| SelfTestRun {
        started_ms: secs * 1000,
        kind,
    };
    m.self_test_started(&id, run(T0 + 10, SelfTestKind::Extended));
    assert_eq!(
        m.self_test_runs(&id),
        [Some(at(T0 + 10)), Some(at(T0 + 10))]
    );
    m.self_test_started(&id, run(T0 + 20, SelfTestKind::Short));
    m.self_test_started(&id, run(T0 + 30, SelfTestKind::Short));
    assert_eq!(
        m.self_test_runs(&id),
        [Some(at(T0 + 30)), Some(at(T0 + 10))]
    );
    let payload = m.payload(at(T0 + 40), true).expect("a start is news");
    let (back, refused) = Memory::from_payload(window(), payload, at(T0 + 40));
    assert!(refused.is_empty());
    assert_eq!(
        back.self_test_runs(&id),
        [Some(at(T0 + 30)), Some(at(T0 + 10))]
    );
    let other = identity("S1", "eui.ffffff");
    assert_eq!(
        back.self_test_runs(&other),
        [None, None],
        "another drive's runs"
    );
}

/// The saver's sleep agrees with what `payload` would give: forever while
/// nothing moved, until the refresh while only times moved, none after
/// news; and `changed` is told of a first move or of news, even when told
/// before anyone waits.
#[tokio::test(flavor = "current_thread")]
async fn the_saver_sleeps_until_a_payload_can_be_due() {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Waker};
    let ready = |m: &Memory| {
        let mut f = pin!(m.changed());
        f.as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
            .is_ready()
    };
    let m = Memory::default();
    assert_eq!(m.until_due(at(T0)), Some(Duration::MAX), "nothing moved");
    assert!(!ready(&m), "nothing to wake for");
    let mut s = drive("nvme0", identity("S1", ""));
    poll(&m, &mut s, 0, at(T0));
    assert!(ready(&m), "a new drive wakes the saver");
    assert_eq!(m.until_due(at(T0)), None, "a new drive is news");
    assert!(m.payload(at(T0), false).is_some());
    poll(&m, &mut s, 0, at(T0 + 60));
    assert!(ready(&m), "the first move after a payload wakes it");
    assert_eq!(
        m.until_due(at(T0 + 60)),
        Some(REFRESH - Duration::from_secs(60)),
        "only time moved: due at the refresh"
    );
    assert!(m.payload(at(T0 + 60), false).is_none());
    poll(&m, &mut s, 0, at(T0 + 120));
    assert!(!ready(&m), "more of the same does not wake it again");
    assert_eq!(m.until_due(at(T0 + REFRESH.as_secs())), None);
    poll(&m, &mut s, 1, at(T0 + 180));
    assert!(ready(&m), "a rise is news and wakes it");
    assert_eq!(m.until_due(at(T0 + 180)), None);
}
