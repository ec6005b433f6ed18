use super::*;

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

fn idle_drive() -> Seen {
    Seen {
        eligible: true,
        in_progress: Some(false),
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
fn never_run_is_due_extended_first() {
    assert_eq!(policy(1).due([None, None], t0()), Some(Kind::Extended));
}

#[test]
fn short_due_after_its_interval_only() {
    let p = policy(1);
    let ext = Some(t0() - 2 * DAY);
    assert_eq!(p.due([Some(t0() - 23 * HOUR), ext], t0()), None);
    assert_eq!(
        p.due([Some(t0() - 25 * HOUR), ext], t0()),
        Some(Kind::Short)
    );
}

#[test]
fn an_extended_run_restarts_the_short_clock() {
    let p = policy(1);
    let last = [Some(t0() - 10 * DAY), Some(t0() - HOUR)];
    assert_eq!(p.due(last, t0()), None);
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
