use super::*;
use crate::device::discovery::Transport;
use std::time::Duration;

fn snap(device: &str) -> DriveSnapshot {
    let identity = Identity {
        transport: Transport::Nvme,
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

/// The rated-endurance hook: a user's value for the model, once the
/// configuration passes one, wins over the drive's own estimate and feeds
/// the endurance used and, at 0 % used, the forecast.
#[test]
fn a_rated_endurance_override_is_judged_against() {
    use crate::health::Reading;
    use crate::health::forecast::EnduranceSource;
    use crate::health::verdict::Rules;
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
    d.judge(&Rules::default(), Vec::new(), now);
    assert_eq!((d.rated_endurance.clone(), d.endurance_used), (None, None));
    d.rated_endurance_override = Some(4e12);
    d.judge(&Rules::default(), Vec::new(), now);
    assert_eq!(
        d.rated_endurance.as_ref().unwrap().source,
        EnduranceSource::Override
    );
    assert_eq!(d.endurance_used, Some(0.25));
    // 75 % left at 25 % per 1 000 000 s
    assert_eq!(d.wearout_seconds, Some(3_000_000.0));
}
