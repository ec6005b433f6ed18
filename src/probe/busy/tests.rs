#[test]
fn a_short_interval_is_not_measured_so_the_probe_does_not_skip_itself() {
    // A probe read of 0.4 ms bumps io_ticks by a whole millisecond; over
    // a 5 ms gap that would read as 12 % "other" load, over 1.2 ms as
    // 50 %. Intervals under 200 ms are accumulated instead.
    let policy = BusyPolicy {
        max_utilisation: 0.1,
        min_queue_depth: 0.1,
        max_in_flight: 32,
    };
    let mut t = BusyTracker::new(policy);
    let stat = |ticks| DiskStat {
        io_ticks_ms: ticks,
        time_in_queue_ms: ticks,
        ..DiskStat::default()
    };
    let ms = Duration::from_millis;
    assert!(matches!(t.decide(ms(0), stat(0)), Decision::Probe));
    t.add_probe_busy(Duration::from_micros(400));
    assert!(matches!(t.decide(ms(5), stat(1)), Decision::Probe));
    t.add_probe_busy(Duration::from_micros(400));
    assert!(matches!(t.decide(ms(6), stat(2)), Decision::Probe));
    // 300 ms later: 2 ms of ticks, 0.8 ms of it the probe's → 0.4 %.
    assert!(matches!(t.decide(ms(300), stat(2)), Decision::Probe));
    assert!(t.utilisation().unwrap() < 0.01);
    // Real load: 280 ms busy over the next 300 ms → skip.
    assert!(matches!(
        t.decide(ms(600), stat(282)),
        Decision::SkipBusy { .. }
    ));
}

use super::*;

// A hand-written /sys/block/sda/stat line, 17 fields in kernel order:
// reads 184539, merges 12034, sectors 9876544, ticks 81234,
// writes 98765, merges 45678, sectors 5432100, ticks 123456,
// in_flight 3, io_ticks 345678, time_in_queue 210987,
// discards 120 0 4194304 35, flushes 2210 1830.
const SDA: &str = "  184539    12034  9876544    81234    98765    45678  5432100   \
                       123456        3   345678   210987      120        0  4194304       \
                       35     2210     1830\n";

/// A sample whose time_in_queue grows at three times io_ticks: a QD3 load.
fn stat(io_ticks_ms: u64, in_flight: u64) -> DiskStat {
    qstat(io_ticks_ms, 3 * io_ticks_ms, in_flight)
}

fn qstat(io_ticks_ms: u64, time_in_queue_ms: u64, in_flight: u64) -> DiskStat {
    DiskStat {
        io_ticks_ms,
        time_in_queue_ms,
        in_flight,
        ..DiskStat::default()
    }
}

#[test]
fn parses_sys_block_stat() {
    let s = DiskStat::parse(SDA).unwrap();
    assert_eq!(
        s,
        DiskStat {
            reads_completed: 184539,
            read_sectors: 9876544,
            writes_completed: 98765,
            write_sectors: 5432100,
            in_flight: 3,
            io_ticks_ms: 345678,
            time_in_queue_ms: 210987,
        }
    );
    // An 11-field line (kernels before 4.18) parses too.
    let old = "1 2 3 4 5 6 7 8 9 10 11";
    let s = DiskStat::parse(old).unwrap();
    assert_eq!(
        (s.in_flight, s.io_ticks_ms, s.time_in_queue_ms),
        (9, 10, 11)
    );
}

#[test]
fn rejects_bad_lines() {
    for bad in [
        "",
        "1 2 3 4 5 6 7 8 9 10",
        "1 2 3 4 5 6 7 8 9 10 x",
        "1 2 3 4 5 6 7 8 -9 10 11",
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 11",
        "1 2 3 4 5 6 7 8 9 10 99999999999999999999999",
    ] {
        assert_eq!(DiskStat::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn first_call_probes_unless_queue_is_full() {
    let mut t = BusyTracker::new(BusyPolicy::default());
    assert_eq!(t.decide(Duration::ZERO, stat(1000, 31)), Decision::Probe);
    let mut t = BusyTracker::new(BusyPolicy::default());
    assert_eq!(
        t.decide(Duration::ZERO, stat(1000, 32)),
        Decision::SkipBusy {
            utilisation: 0.0,
            queue_depth: 0.0,
            in_flight: 32
        }
    );
}

#[test]
fn utilisation_from_two_samples() {
    let mut t = BusyTracker::new(BusyPolicy::default());
    let t0 = Duration::from_secs(100);
    t.decide(t0, stat(10_000, 0));
    // Δio_ticks 450 ms over 500 ms wall = 0.9 ≥ 0.9, and
    // Δtime_in_queue 1350 ms / 500 ms = 2.7 in flight ≥ 2 → skip.
    let d = t.decide(t0 + Duration::from_millis(500), stat(10_450, 1));
    assert_eq!(
        d,
        Decision::SkipBusy {
            utilisation: 0.9,
            queue_depth: 2.7,
            in_flight: 1
        }
    );
    // Next 500 ms: Δ 445 ms = 0.89 → probe.
    let d = t.decide(t0 + Duration::from_millis(1000), stat(10_895, 1));
    assert_eq!(d, Decision::Probe);
    assert!((t.utilisation().unwrap() - 0.89).abs() < 1e-12);
}

#[test]
fn probe_busy_is_not_production_load() {
    let mut t = BusyTracker::new(BusyPolicy::default());
    t.decide(Duration::ZERO, stat(0, 0));
    // 460 ms busy in 500 ms, 20 ms of it the probe's: (460 − 20)/500 = 0.88.
    t.add_probe_busy(Duration::from_millis(20));
    let d = t.decide(Duration::from_millis(500), stat(460, 0));
    assert_eq!(d, Decision::Probe);
    assert!((t.utilisation().unwrap() - 0.88).abs() < 1e-12);
}

#[test]
fn probe_share_arithmetic() {
    let mut t = BusyTracker::new(BusyPolicy::default());
    assert_eq!(t.probe_share(), None);
    t.decide(Duration::ZERO, stat(1000, 0));
    t.add_probe_busy(Duration::from_millis(5));
    t.add_probe_busy(Duration::from_micros(5000));
    assert_eq!(t.probe_share(), None); // interval not closed yet
    // 10 ms of probe I/O in Δio_ticks = 200 ms → 0.05.
    t.decide(Duration::from_secs(1), stat(1200, 0));
    assert!((t.probe_share().unwrap() - 0.05).abs() < 1e-12);
    // An idle interval (Δio_ticks = 0): no share.
    t.decide(Duration::from_secs(2), stat(1200, 0));
    assert_eq!(t.probe_share(), None);
    // Probe busier than io_ticks shows (granularity): clamped to 1.
    t.add_probe_busy(Duration::from_millis(3));
    t.decide(Duration::from_secs(3), stat(1202, 0));
    assert_eq!(t.probe_share(), Some(1.0));
}

#[test]
fn counters_going_backwards_restart() {
    let mut t = BusyTracker::new(BusyPolicy::default());
    t.decide(Duration::ZERO, stat(5000, 0));
    t.decide(Duration::from_millis(200), stat(5200, 0)); // 100 % busy
    assert_eq!(t.utilisation(), Some(1.0));
    // Device re-added: counters reset. Probe, no utilisation known.
    let d = t.decide(Duration::from_millis(400), stat(10, 0));
    assert_eq!(d, Decision::Probe);
    assert_eq!(t.utilisation(), None);
    // Same instant twice: the interval is kept, no division by zero.
    t.decide(Duration::from_millis(600), stat(190, 0));
    let d = t.decide(Duration::from_millis(600), stat(190, 0));
    assert_eq!(
        d,
        Decision::SkipBusy {
            utilisation: 0.9,
            queue_depth: 2.7,
            in_flight: 0
        }
    );
    // time_in_queue alone going backwards also restarts.
    t.decide(Duration::from_millis(800), qstat(400, 0, 0));
    assert_eq!(t.utilisation(), None);
    assert_eq!(t.queue_depth(), None);
}

#[test]
fn a_steady_single_stream_is_probed_a_queue_is_not() {
    // 100 % busy both times; what differs is the queue behind it.
    let ms = Duration::from_millis;
    let mut t = BusyTracker::new(BusyPolicy::default());
    t.decide(ms(0), qstat(0, 0, 1));
    // One QD1 stream: 500 ms busy, 500 ms of I/O time in 500 ms → 1.0.
    assert_eq!(t.decide(ms(500), qstat(500, 500, 1)), Decision::Probe);
    assert_eq!((t.utilisation(), t.queue_depth()), (Some(1.0), Some(1.0)));
    // A QD4 job: 2000 ms of I/O time in 500 ms → 4 in flight on average.
    assert_eq!(
        t.decide(ms(1000), qstat(1000, 2500, 4)),
        Decision::SkipBusy {
            utilisation: 1.0,
            queue_depth: 4.0,
            in_flight: 4
        }
    );
    // Just under the bar: 1.9 on average → probe.
    assert_eq!(t.decide(ms(1500), qstat(1500, 3450, 2)), Decision::Probe);
    assert!((t.queue_depth().unwrap() - 1.9).abs() < 1e-12);
    // Deep queue but idle gaps (utilisation 0.5): probe.
    assert_eq!(t.decide(ms(2000), qstat(1750, 4450, 0)), Decision::Probe);
    assert_eq!(t.queue_depth(), Some(2.0));
}

#[test]
fn probe_time_is_not_queue_depth() {
    // 500 ms of ticks and 1000 ms of queue time, 60 ms of it the probe's:
    // others (1000 − 60) / 500 = 1.88 in flight on average → probe.
    let ms = Duration::from_millis;
    let mut t = BusyTracker::new(BusyPolicy::default());
    t.decide(ms(0), qstat(0, 0, 0));
    t.add_probe_busy(ms(60));
    assert_eq!(t.decide(ms(500), qstat(500, 1000, 1)), Decision::Probe);
    assert!((t.queue_depth().unwrap() - 1.88).abs() < 1e-12);
}

proptest::proptest! {
    #[test]
    fn parse_and_decide_never_panic(text in ".{0,200}", now in proptest::num::u64::ANY) {
        let stat = DiskStat::parse(&text).unwrap_or_default();
        let mut t = BusyTracker::new(BusyPolicy::default());
        t.decide(Duration::from_nanos(now), stat);
        t.add_probe_busy(Duration::MAX);
        t.decide(Duration::MAX, DiskStat { io_ticks_ms: u64::MAX, ..stat });
        let _ = t.probe_share();
    }
}
