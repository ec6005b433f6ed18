use super::*;
use std::time::Instant;

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(24 * 3600);

fn policy(concurrency: usize) -> Policy {
    Policy {
        short: Some(DAY),
        extended: Some(30 * DAY),
        concurrency,
        ..Policy::default()
    }
}

/// An idle drive whose tests both ran long ago: due now.
fn idle_drive() -> Seen {
    Seen {
        eligible: true,
        in_progress: Some(false),
        last: [Some(t0() - 100 * DAY), Some(t0() - 100 * DAY)],
        ..Seen::default()
    }
}

fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + 1_000 * DAY
}

#[test]
fn off_by_default() {
    let mut s = Slots::default();
    let p = Policy::default();
    assert!(!p.enabled());
    let d = s.decide(&p, "sda", &idle_drive(), t0(), Instant::now());
    assert_eq!(d, Decision::Idle);
}

#[test]
fn never_run_is_due_at_its_place_extended_first() {
    let p = policy(1);
    assert_eq!(p.due([None, None], [None, None], t0()), None, "not placed");
    let first = [Some(t0()), Some(t0())];
    assert_eq!(p.due([None, None], first, t0()), Some(Kind::Extended));
    assert_eq!(p.due([None, None], first, t0() - HOUR), None, "before it");
}

#[test]
fn short_due_after_its_interval_only() {
    let p = policy(1);
    let ext = Some(t0() - 2 * DAY);
    assert_eq!(p.due([Some(t0() - 23 * HOUR), ext], [None; 2], t0()), None);
    assert_eq!(
        p.due([Some(t0() - 25 * HOUR), ext], [None; 2], t0()),
        Some(Kind::Short)
    );
}

#[test]
fn an_extended_run_restarts_the_short_clock() {
    let p = policy(1);
    let last = [Some(t0() - 10 * DAY), Some(t0() - HOUR)];
    assert_eq!(p.due(last, [None; 2], t0()), None);
}

#[test]
fn remembered_runs_are_not_repeated() {
    // What the state file gives back after a restart: both tests ran an
    // hour ago, so nothing is due although the exporter just started.
    let mut s = Slots::default();
    let seen = Seen {
        last: [Some(t0() - HOUR), Some(t0() - HOUR)],
        ..idle_drive()
    };
    let d = s.decide(&policy(1), "sda", &seen, t0(), Instant::now());
    assert_eq!(d, Decision::Idle);
}

#[test]
fn at_most_concurrency_drives_at_a_time() {
    let mut s = Slots::default();
    let (p, now) = (policy(2), Instant::now());
    let testing = Seen {
        in_progress: Some(true),
        ..idle_drive()
    };
    let start = Decision::Start(Kind::Extended);
    assert_eq!(s.decide(&p, "a", &idle_drive(), t0(), now), start);
    assert_eq!(s.decide(&p, "b", &idle_drive(), t0(), now), start);
    assert_eq!(
        s.decide(&p, "c", &idle_drive(), t0(), now),
        Decision::Defer("slots")
    );
    // a still runs: c still waits.
    assert_eq!(s.decide(&p, "a", &testing, t0(), now), Decision::Running);
    assert_eq!(
        s.decide(&p, "c", &idle_drive(), t0(), now),
        Decision::Defer("slots")
    );
    // a's test ended: its slot goes to c.
    let ended = Decision::Ended { overheld: false };
    assert_eq!(s.decide(&p, "a", &idle_drive(), t0(), now), ended);
    assert_eq!(s.decide(&p, "c", &idle_drive(), t0(), now), start);
    assert_eq!(s.holders(), ["b", "c"]);
}

#[test]
fn standby_busy_and_own_tests_defer() {
    let mut s = Slots::default();
    let (p, now) = (policy(1), Instant::now());
    let cases = [
        (
            Seen {
                standby: true,
                ..idle_drive()
            },
            "standby",
        ),
        (
            Seen {
                busy: true,
                ..idle_drive()
            },
            "busy",
        ),
        (
            Seen {
                in_progress: Some(true),
                ..idle_drive()
            },
            "testing",
        ),
        (
            Seen {
                retry_after: Some(t0() + HOUR),
                ..idle_drive()
            },
            "rejected",
        ),
    ];
    for (seen, why) in cases {
        assert_eq!(s.decide(&p, "sda", &seen, t0(), now), Decision::Defer(why));
    }
    assert!(s.holders().is_empty());
    let retry = Seen {
        retry_after: Some(t0() - HOUR),
        ..idle_drive()
    };
    assert_eq!(
        s.decide(&p, "sda", &retry, t0(), now),
        Decision::Start(Kind::Extended)
    );
}

#[test]
fn ineligible_drives_are_never_tested() {
    let mut s = Slots::default();
    let seen = Seen {
        eligible: false,
        ..idle_drive()
    };
    let d = s.decide(&policy(4), "megaraid0-pd1", &seen, t0(), Instant::now());
    assert_eq!(d, Decision::Idle);
}

#[test]
fn a_drive_that_cannot_say_holds_its_slot_for_the_kind_s_time() {
    let mut s = Slots::default();
    let (p, now) = (policy(1), Instant::now());
    let unknown = Seen {
        in_progress: None,
        ..idle_drive()
    };
    assert_eq!(
        s.decide(&p, "sdb", &unknown, t0(), now),
        Decision::Start(Kind::Extended)
    );
    let later = now + UNKNOWN_HOLD[1] - Duration::from_secs(1);
    assert_eq!(
        s.decide(&p, "sdb", &unknown, t0(), later),
        Decision::Running
    );
    let after = now + UNKNOWN_HOLD[1];
    let ended = Decision::Ended { overheld: false };
    assert_eq!(s.decide(&p, "sdb", &unknown, t0(), after), ended);
}

#[test]
fn a_hold_never_outlasts_the_test_s_interval() {
    let mut p = policy(1);
    assert_eq!(p.unknown_hold(Kind::Short), UNKNOWN_HOLD[0]);
    p.short = Some(Duration::from_secs(5));
    assert_eq!(p.unknown_hold(Kind::Short), Duration::from_secs(5));
}

#[test]
fn a_stuck_test_frees_its_slot_after_the_longest_hold() {
    let mut s = Slots::default();
    let (p, now) = (policy(1), Instant::now());
    let testing = Seen {
        in_progress: Some(true),
        ..idle_drive()
    };
    assert_eq!(
        s.decide(&p, "sdc", &idle_drive(), t0(), now),
        Decision::Start(Kind::Extended)
    );
    assert_eq!(
        s.decide(&p, "sdc", &testing, t0(), now + MAX_HOLD),
        Decision::Ended { overheld: true }
    );
}

#[test]
fn intervals_below_the_minimums_are_named_for_the_warning() {
    assert!(policy(1).below_minimum().is_empty());
    let rig = Policy {
        short: Some(Duration::from_secs(4)),
        extended: Some(HOUR),
        ..policy(1)
    };
    assert_eq!(
        rig.below_minimum(),
        [
            (Kind::Short, Duration::from_secs(4)),
            (Kind::Extended, HOUR)
        ]
    );
}

/// The place is SHA-256's first 8 bytes, big-endian: `printf S1 |
/// sha256sum` starts 3696ad59777e09d5.
#[test]
fn a_drive_s_place_is_its_serial_s_sha256() {
    assert_eq!(place("S1"), 0x3696_ad59_777e_09d5);
    assert_ne!(place("S1"), place("S2"));
}

#[test]
fn a_first_run_is_the_drive_s_point_of_the_interval() {
    let p = Policy {
        extended: None,
        ..policy(1)
    };
    let at = place("S1");
    // 0x3696ad59777e09d5 ms mod one day is 9 550 293 ms (2:39:10.293).
    let point = Duration::from_millis(9_550_293);
    assert_eq!(p.first_run(Kind::Short, at, t0()), Some(t0() + point));
    assert_eq!(
        p.first_run(Kind::Short, at, t0() + point),
        Some(t0() + point)
    );
    let just_after = t0() + point + Duration::from_millis(1);
    assert_eq!(
        p.first_run(Kind::Short, at, just_after),
        Some(t0() + DAY + point)
    );
    assert_eq!(p.first_run(Kind::Extended, at, t0()), None, "not scheduled");
}

/// Issue 33: a fresh state file on a host of 48 drives with concurrency
/// 16 started 16 tests at the first poll. Now none starts then; over the
/// day each drive is tested once, a few an hour at most.
#[test]
fn a_fresh_host_spreads_its_first_tests_over_the_interval() {
    let p = Policy {
        extended: None,
        ..policy(16)
    };
    let serials: Vec<String> = (0..48).map(|i| format!("SN{i:04}")).collect();
    let mut s = Slots::default();
    let mut last = vec![None; serials.len()];
    let mut started_at: Vec<Option<SystemTime>> = vec![None; serials.len()];
    let mut per_hour = [0usize; 24];
    let mono = Instant::now();
    for minute in 0..(24 * 60) {
        let now = t0() + Duration::from_secs(60 * minute);
        for (i, serial) in serials.iter().enumerate() {
            // A test runs for a minute.
            let testing = started_at[i].is_some_and(|t| now < t + Duration::from_secs(60));
            let seen = Seen {
                eligible: true,
                in_progress: Some(testing),
                last: [last[i], None],
                place: place(serial),
                waiting: [Some(t0()), None],
                ..Seen::default()
            };
            let at = mono + Duration::from_secs(60 * minute);
            if let Decision::Start(_) = s.decide(&p, serial, &seen, now, at) {
                last[i] = Some(now);
                started_at[i] = Some(now);
                per_hour[(minute / 60) as usize] += 1;
            }
        }
        if minute == 0 {
            assert!(
                s.holders().is_empty(),
                "tested at the first poll: {:?}",
                s.holders()
            );
        }
    }
    assert!(
        last.iter().all(Option::is_some),
        "every drive tested in a day"
    );
    assert_eq!(
        per_hour.iter().sum::<usize>(),
        48,
        "each once: {per_hour:?}"
    );
    assert!(per_hour.iter().all(|&n| n <= 8), "bunched: {per_hour:?}");
}

#[test]
fn a_test_someone_else_started_takes_a_slot_until_a_read_shows_it_over() {
    let mut s = Slots::default();
    let (p, now) = (policy(1), Instant::now());
    let theirs = Seen {
        in_progress: Some(true),
        reports: true,
        ..idle_drive()
    };
    let unread = Seen {
        in_progress: None,
        reports: true,
        ..idle_drive()
    };
    // sda runs an operator's test: it is not started again, and sdb waits.
    assert_eq!(
        s.decide(&p, "sda", &theirs, t0(), now),
        Decision::Defer("testing")
    );
    assert_eq!(
        s.decide(&p, "sdb", &idle_drive(), t0(), now),
        Decision::Defer("slots")
    );
    // A failed read of sda says nothing: the slot stays taken.
    assert_eq!(
        s.decide(&p, "sda", &unread, t0(), now),
        Decision::Defer("testing")
    );
    assert_eq!(
        s.decide(&p, "sdb", &idle_drive(), t0(), now),
        Decision::Defer("slots")
    );
    // A read shows it over: sdb may start.
    assert!(matches!(
        s.decide(&p, "sda", &idle_drive(), t0(), now),
        Decision::Start(_)
    ));
    s.release("sda");
    assert_eq!(
        s.decide(&p, "sdb", &idle_drive(), t0(), now),
        Decision::Start(Kind::Extended)
    );
    // Never one the exporter did not start.
    assert_eq!(s.own_running(), Vec::<String>::new());
}

#[test]
fn a_foreign_test_never_seen_to_end_stops_counting_after_the_longest_hold() {
    let mut s = Slots::default();
    let (p, now) = (policy(1), Instant::now());
    let theirs = Seen {
        in_progress: Some(true),
        ..idle_drive()
    };
    assert_eq!(
        s.decide(&p, "sda", &theirs, t0(), now),
        Decision::Defer("testing")
    );
    let later = now + MAX_HOLD;
    assert_eq!(
        s.decide(&p, "sdb", &idle_drive(), t0(), later),
        Decision::Start(Kind::Extended)
    );
}

#[test]
fn a_failed_read_after_a_start_keeps_the_slot() {
    let mut s = Slots::default();
    let (p, now) = (policy(1), Instant::now());
    let reporting = Seen {
        reports: true,
        ..idle_drive()
    };
    let unread = Seen {
        in_progress: None,
        reports: true,
        ..idle_drive()
    };
    let start = Decision::Start(Kind::Extended);
    assert_eq!(s.decide(&p, "nvme0", &reporting, t0(), now), start);
    // Past the hold of a drive that cannot say, the read still fails:
    // the slot is kept, and sdb waits.
    let later = now + UNKNOWN_HOLD[1] + HOUR;
    assert_eq!(
        s.decide(&p, "nvme0", &unread, t0(), later),
        Decision::Running
    );
    assert_eq!(
        s.decide(&p, "sdb", &idle_drive(), t0(), later),
        Decision::Defer("slots")
    );
    // The first read that works and shows it over frees it.
    let ended = Decision::Ended { overheld: false };
    assert_eq!(s.decide(&p, "nvme0", &reporting, t0(), later), ended);
    // A read that never comes frees it after the longest hold, with a warning.
    assert_eq!(s.decide(&p, "sdb", &reporting, t0(), later), start);
    let stuck = Decision::Ended { overheld: true };
    assert_eq!(s.decide(&p, "sdb", &unread, t0(), later + MAX_HOLD), stuck);
}

#[test]
fn only_the_exporter_s_own_running_tests_are_aborted() {
    let mut s = Slots::default();
    let (p, now) = (policy(3), Instant::now());
    let reporting = Seen {
        reports: true,
        ..idle_drive()
    };
    let theirs = Seen {
        in_progress: Some(true),
        reports: true,
        ..idle_drive()
    };
    let mute = Seen {
        in_progress: None,
        ..idle_drive()
    };
    assert!(matches!(
        s.decide(&p, "sda", &reporting, t0(), now),
        Decision::Start(_)
    ));
    assert!(matches!(
        s.decide(&p, "sdb", &theirs, t0(), now),
        Decision::Defer(_)
    ));
    assert!(matches!(
        s.decide(&p, "sdc", &mute, t0(), now),
        Decision::Start(_)
    ));
    // sdb's test is someone else's; sdc cannot say whether ours still runs.
    assert_eq!(s.own_running(), ["sda"]);
}

#[test]
fn a_run_recorded_in_the_future_is_due_one_interval_after_it_is_seen() {
    let p = policy(1);
    // Saved while the clock ran a year ahead, or read after it stepped back.
    let future = [Some(t0() + 365 * DAY), Some(t0() + 365 * DAY)];
    let last = not_after(future, t0());
    assert_eq!(last, [Some(t0()), Some(t0())]);
    // Not yet: it may have run just now.
    assert_eq!(p.due(last, [None, None], t0() + HOUR), None);
    // One short interval on, not a year on.
    assert_eq!(p.due(last, [None, None], t0() + DAY), Some(Kind::Short));
    // Runs in the past are left as they are.
    let past = [Some(t0() - DAY), None];
    assert_eq!(not_after(past, t0()), past);
}
