use super::*;
use crate::device::discovery::Transport;
use crate::health::history::Tracked;
use std::time::Duration;

fn snap(device: &str) -> DriveSnapshot {
    let identity = Identity {
        transport: Transport::Nvme,
        kind: crate::device::discovery::Kind::Physical,
        model: "M".into(),
        serial: "S".into(),
        firmware: "F".into(),
        wwn: String::new(),
        capacity_bytes: None,
    };
    DriveSnapshot::new(device, "test", identity)
}

#[test]
fn an_update_runs_outside_the_lock_so_a_scrape_during_it_is_served() {
    let store = Arc::new(Store::default());
    store.insert(snap("nvme0"));
    let (tx, rx) = std::sync::mpsc::channel();
    let s = store.clone();
    std::thread::spawn(move || {
        s.update("nvme0", |d| {
            // A scrape (and another drive's update) while the judge runs.
            let listed = s.list().len();
            s.update("nvme1", |_| {});
            d.polls = 7;
            tx.send(listed).unwrap();
        });
    });
    let listed = rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the store was locked while the update ran");
    assert_eq!(listed, 1);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while store.get("nvme0").unwrap().polls != 7 {
        assert!(
            std::time::Instant::now() < deadline,
            "update never published"
        );
        std::thread::yield_now();
    }
}

#[test]
fn a_drive_removed_or_inserted_anew_during_an_update_keeps_that_state() {
    let store = Store::default();
    store.insert(snap("sda"));
    store.update("sda", |d| {
        d.polls = 1;
        store.remove("sda");
    });
    assert!(store.get("sda").is_none(), "a removed drive came back");

    store.insert(snap("sda"));
    store.update("sda", |d| {
        d.polls = 1;
        let mut fresh = snap("sda");
        fresh.polls = 42;
        store.insert(fresh);
    });
    assert_eq!(store.get("sda").unwrap().polls, 42);

    store.update("sda", |d| d.polls += 1);
    assert_eq!(store.get("sda").unwrap().polls, 43);
}

#[test]
fn concurrent_updates_of_one_drive_are_all_kept() {
    // A poll thread and its watchdog: both publish, neither is lost.
    let store = Arc::new(Store::default());
    store.insert(snap("nvme0"));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let s = store.clone();
            std::thread::spawn(move || {
                for _ in 0..500 {
                    s.update("nvme0", |d| {
                        let polls = d.polls;
                        std::thread::yield_now();
                        d.polls = polls + 1;
                    });
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(store.get("nvme0").unwrap().polls, 2000);
}

fn polled(identity: Identity, media_errors: u128) -> PollOutcome {
    let mut reading = Reading::default();
    reading.counters.media_errors = Some(media_errors);
    PollOutcome {
        identity: Some(identity),
        reading: Some(reading),
        up: true,
        ..PollOutcome::default()
    }
}

/// A tuner that counts how often it is asked, with a generation to bump.
struct Counting {
    generation: std::sync::atomic::AtomicU64,
    asked: std::sync::atomic::AtomicU64,
    tuning: Tuning,
}

impl Tuner for Counting {
    fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn tuning(&self, _: &str, _: &Identity) -> Arc<Tuning> {
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Arc::new(self.tuning.clone())
    }
}

#[test]
fn another_drive_under_the_same_name_starts_a_new_history() {
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    let mut s = snap("sda");
    let first = s.identity.clone();
    s.apply(polled(first.clone(), 0), Duration::ZERO, t0);
    s.judge(Vec::new(), t0);
    s.state_age = Some(Duration::ZERO);
    // The same drive with its world-wide name read now: the same history.
    let with_wwn = Identity {
        wwn: "naa.5000000000000001".into(),
        ..first.clone()
    };
    let t1 = t0 + Duration::from_secs(60);
    s.apply(polled(with_wwn.clone(), 2), Duration::ZERO, t1);
    s.judge(Vec::new(), t1);
    assert_eq!(s.history.increase(Tracked::MediaErrors), Some(2));
    assert_eq!(s.state_age, Some(Duration::ZERO));
    // Another serial: its count of 5 is no rise over the old drive's 2.
    let other = Identity {
        serial: "S2".into(),
        ..with_wwn
    };
    let t2 = t1 + Duration::from_secs(60);
    s.apply(polled(other, 5), Duration::ZERO, t2);
    s.judge(Vec::new(), t2);
    assert_eq!(s.history.increase(Tracked::MediaErrors), Some(0));
    assert_eq!(s.history.first_seen(), Some(t2));
    assert_eq!(s.state_age, None, "the state layer must adopt it anew");
}

#[test]
fn a_sysfs_identity_is_no_drive_to_compare_with() {
    // The placeholder from discovery may spell the serial differently; the
    // first identity read from the drive is not "another drive".
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    let mut s = snap("sda");
    s.history.record(t0, &Reading::default());
    let read = Identity {
        serial: "S-from-identify".into(),
        ..s.identity.clone()
    };
    s.apply(polled(read, 0), Duration::ZERO, t0);
    assert!(s.identified);
    assert_eq!(s.history.first_seen(), Some(t0));
}

#[test]
fn a_drive_is_tuned_once_then_again_after_a_reload_or_with_a_new_identity() {
    use std::sync::atomic::Ordering::Relaxed;
    let tuner = Counting {
        generation: 0.into(),
        asked: 0.into(),
        tuning: Tuning {
            source: Some("health.overrides[0]".into()),
            ..Tuning::default()
        },
    };
    let mut s = snap("nvme0");
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    for _ in 0..3 {
        s.retune(&tuner);
        s.judge(Vec::new(), now);
    }
    assert_eq!(tuner.asked.load(Relaxed), 1);
    assert_eq!(s.tuning.source.as_deref(), Some("health.overrides[0]"));
    tuner.generation.store(1, Relaxed);
    s.retune(&tuner);
    s.retune(&tuner);
    assert_eq!(tuner.asked.load(Relaxed), 2);
    // A drive that reports another serial (the first poll of a replay,
    // whose placeholder had none) is resolved again.
    s.identity.serial = "S2".into();
    s.retune(&tuner);
    assert_eq!(tuner.asked.load(Relaxed), 3);
}

#[test]
fn the_operator_s_rated_endurance_wins_over_the_datasheet_s() {
    let mut s = snap("nvme0");
    let mut r = Reading::default();
    r.counters.host_written_bytes = Some(900_000_000_000_000);
    s.reading = Some(r);
    s.polls = 1;
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    // Model "M" is not in the datasheet table: no rating, no ratio.
    s.judge(Vec::new(), now);
    assert_eq!(s.endurance_used, None);
    s.tuning = Arc::new(Tuning {
        rated_endurance_bytes: Some(1.8e15),
        ..Tuning::default()
    });
    s.judge(Vec::new(), now);
    assert_eq!(s.endurance_used, Some(0.5));
    // The Sabrent Rocket 4.0 2 TB is rated 3600 TBW; the operator's 1800 wins.
    s.identity.model = "Sabrent Rocket 4.0".into();
    s.identity.capacity_bytes = Some(2_000_398_934_016);
    s.judge(Vec::new(), now);
    assert_eq!(s.endurance_used, Some(0.5));
    s.tuning = Arc::new(Tuning::default());
    s.judge(Vec::new(), now);
    assert_eq!(s.endurance_used, Some(0.25));
}

/// The rated-endurance hook: the operator's value for the drive
/// (`health.overrides[].rated_endurance_bytes`, through its tuning) is what
/// the drive is judged against, and feeds the endurance used and, at 0 %
/// used, the forecast.
#[test]
fn a_rated_endurance_override_is_judged_against() {
    use crate::health::forecast::EnduranceSource;
    let mut d = snap("nvme0");
    let mut r = Reading {
        percentage_used_ratio: Some(0.0),
        ..Reading::default()
    };
    r.counters.host_written_bytes = Some(1_000_000_000_000); // 1 TB
    r.counters.power_on_seconds = Some(1_000_000);
    d.reading = Some(r);
    d.polls = 1;
    d.up = true;
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    d.judge(Vec::new(), now);
    assert_eq!((d.rated_endurance.clone(), d.endurance_used), (None, None));
    d.tuning = Arc::new(Tuning {
        rated_endurance_bytes: Some(4e12),
        ..Tuning::default()
    });
    d.judge(Vec::new(), now);
    assert_eq!(
        d.rated_endurance.as_ref().unwrap().source,
        EnduranceSource::Override
    );
    assert_eq!(d.endurance_used, Some(0.25));
    // 75 % left at 25 % per 1 000 000 s
    assert_eq!(d.wearout_seconds, Some(3_000_000.0));
}
