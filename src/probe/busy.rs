//! Back-off: read `/sys/block/<dev>/stat`, decide whether the drive is too
//! busy to probe, and account the probe's own share of the drive's busy
//! time (`ssd_probe_busy_ratio`).
//!
//! Field order from the kernel's `Documentation/block/stat.rst`: 1 read
//! I/Os, 2 read merges, 3 read sectors, 4 read ticks (ms), 5 write I/Os,
//! 6 write merges, 7 write sectors, 8 write ticks, 9 in_flight, 10 io_ticks
//! (ms with at least one I/O in flight), 11 time_in_queue (ms); since 4.18
//! 12–15 discard I/Os, merges, sectors, ticks; since 5.5 16–17 flush I/Os,
//! ticks.

use std::time::Duration;

/// The counters of one `/sys/block/<dev>/stat` line that the probe uses.
/// Sectors are 512 bytes whatever the device's block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DiskStat {
    /// Field 1.
    pub reads_completed: u64,
    /// Field 3.
    pub read_sectors: u64,
    /// Field 5.
    pub writes_completed: u64,
    /// Field 7.
    pub write_sectors: u64,
    /// Field 9: I/Os issued to the driver and not yet completed — a gauge.
    pub in_flight: u64,
    /// Field 10: milliseconds during which the device had I/O in flight.
    pub io_ticks_ms: u64,
    /// Field 11: milliseconds of I/O weighted by the number in flight.
    pub time_in_queue_ms: u64,
}

impl DiskStat {
    /// Parses the whitespace-separated line of `/sys/block/<dev>/stat`: at
    /// least 11 unsigned integers (17 on current kernels; later fields are
    /// ignored, so future kernels that append more still parse). None if
    /// there are fewer than 11 or any field is not an unsigned integer.
    /// (`/proc/diskstats` lines carry major, minor and name first; strip
    /// them before calling.)
    pub fn parse(text: &str) -> Option<DiskStat> {
        let mut f = [0u64; 11];
        let mut n = 0;
        for word in text.split_whitespace() {
            let v = word.parse::<u64>().ok()?;
            if let Some(slot) = f.get_mut(n) {
                *slot = v;
            }
            n += 1;
        }
        if n < f.len() {
            return None;
        }
        Some(DiskStat {
            reads_completed: f[0],
            read_sectors: f[2],
            writes_completed: f[4],
            write_sectors: f[6],
            in_flight: f[8],
            io_ticks_ms: f[9],
            time_in_queue_ms: f[10],
        })
    }
}

/// When to leave a drive alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusyPolicy {
    /// Skip when the drive was busy (≥ 1 I/O in flight, the probe's own
    /// excluded) for at least this fraction of the last interval...
    pub max_utilisation: f64,
    /// ...and at least this many of other I/Os were in flight on average
    /// over it (Δtime_in_queue / Δwall, Little's law).
    pub min_queue_depth: f64,
    /// Skip when at least this many I/Os are in flight right now.
    pub max_in_flight: u64,
}

/// Default [`BusyPolicy::max_utilisation`] (`probe.busy_threshold`).
pub const DEFAULT_MAX_UTILISATION: f64 = 0.9;

impl Default for BusyPolicy {
    /// `max_utilisation = 0.9`, `min_queue_depth = 2`, `max_in_flight = 32`.
    ///
    /// The probe exists to measure latency under production load, so
    /// ordinary load must not stop it: the measured reference is a probe at
    /// 10/s beside a queue-depth-4 job (`shared/reference/probe-notes.md`),
    /// which these defaults keep probing in its idle gaps. What they stop is
    /// probing a drive with no idle gaps *and* a queue: at ≥ 90 %
    /// utilisation with two or more I/Os in flight on average, a probe read
    /// waits behind other I/O, so it measures the queue rather than the
    /// drive, and it adds load where there is no slack.
    ///
    /// The queue depth is what tells saturation from a steady single
    /// stream: io_ticks counts time with *any* I/O in flight, so an SSD
    /// serving one QD1 stream (a log writer, a backup, `dd`) reads as
    /// ~100 % busy although it has nearly all its parallelism left. Such a
    /// drive is still probed — its latency under that load is exactly what
    /// users want to see. 32 in flight right now is a full SATA NCQ queue
    /// (the DC600M's whole queue): beyond that a new I/O waits in the block
    /// layer, whatever the averages say.
    fn default() -> Self {
        Self {
            max_utilisation: DEFAULT_MAX_UTILISATION,
            min_queue_depth: 2.0,
            max_in_flight: 32,
        }
    }
}

/// The outcome of [`BusyTracker::decide`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Issue the probe I/O.
    Probe,
    /// Leave the drive alone this time; count a `busy` skip.
    SkipBusy {
        /// Utilisation over the last interval (0..1), 0 if unknown.
        utilisation: f64,
        /// Average other I/Os in flight over the last interval, 0 if unknown.
        queue_depth: f64,
        /// I/Os in flight at the time of the decision.
        in_flight: u64,
    },
}

/// Remembers the previous stat sample to turn counters into rates.
#[derive(Clone, Debug)]
pub struct BusyTracker {
    policy: BusyPolicy,
    /// The previous sample and when it was taken.
    last: Option<(Duration, DiskStat)>,
    /// Utilisation and average queue depth over the last complete interval.
    last_load: Option<(f64, f64)>,
    /// Probe busy time since the last sample.
    pending_probe_busy: Duration,
    /// Probe busy time and Δio_ticks (ms) of the last complete interval.
    last_interval: Option<(Duration, u64)>,
}

impl BusyTracker {
    /// A tracker with no previous sample.
    pub fn new(policy: BusyPolicy) -> Self {
        Self {
            policy,
            last: None,
            last_load: None,
            pending_probe_busy: Duration::ZERO,
            last_interval: None,
        }
    }

    /// The policy in force.
    pub fn policy(&self) -> BusyPolicy {
        self.policy
    }

    /// Utilisation over the last complete interval (the probe's own busy
    /// time excluded), None before two samples.
    pub fn utilisation(&self) -> Option<f64> {
        self.last_load.map(|(u, _)| u)
    }

    /// Average number of other I/Os in flight over the last complete
    /// interval (the probe's own excluded), None before two samples.
    pub fn queue_depth(&self) -> Option<f64> {
        self.last_load.map(|(_, q)| q)
    }

    /// Given the stat read now and the monotonic time, decides, and
    /// remembers the sample. Utilisation = (Δio_ticks − probe busy) / Δwall
    /// over the interval since the previous call, clamped to 0..=1; queue
    /// depth = (Δtime_in_queue − probe busy) / Δwall, at least 0. The
    /// first call (no previous sample) probes unless in-flight is over the
    /// limit; so does a call after the counters went backwards (device
    /// re-added), which restarts the interval. A call at the same instant
    /// as the previous one keeps the previous interval.
    pub fn decide(&mut self, now: Duration, stat: DiskStat) -> Decision {
        const MIN_INTERVAL: Duration = Duration::from_millis(200);
        match self.last {
            // Too short to measure: io_ticks has millisecond (or jiffy)
            // granularity, so one probe read could read as a busy drive.
            // Keep accumulating until the interval is long enough.
            Some((then, _)) if now.saturating_sub(then) < MIN_INTERVAL => {}
            Some((then, prev)) if now > then => {
                let deltas = stat
                    .io_ticks_ms
                    .checked_sub(prev.io_ticks_ms)
                    .zip(stat.time_in_queue_ms.checked_sub(prev.time_in_queue_ms));
                if let Some((dticks, dqueue)) = deltas {
                    let probe_ms = self.pending_probe_busy.as_secs_f64() * 1e3;
                    let wall_ms = (now - then).as_nanos() as f64 / 1e6;
                    let others = |d: u64| (d as f64 - probe_ms).max(0.0) / wall_ms;
                    self.last_load = Some((others(dticks).clamp(0.0, 1.0), others(dqueue)));
                    self.last_interval = Some((self.pending_probe_busy, dticks));
                } else {
                    self.last_load = None;
                    self.last_interval = None;
                }
                self.pending_probe_busy = Duration::ZERO;
                self.last = Some((now, stat));
            }
            Some(_) => {}
            None => self.last = Some((now, stat)),
        }
        let (utilisation, queue_depth) = self.last_load.unwrap_or((0.0, 0.0));
        let saturated = self.last_load.is_some_and(|(u, q)| {
            u >= self.policy.max_utilisation && q >= self.policy.min_queue_depth
        });
        if saturated || stat.in_flight >= self.policy.max_in_flight {
            Decision::SkipBusy {
                utilisation,
                queue_depth,
                in_flight: stat.in_flight,
            }
        } else {
            Decision::Probe
        }
    }

    /// Accounts the probe's own I/O: `d` = time the probe's I/Os were in
    /// flight. Counts toward the interval ending at the next `decide`.
    pub fn add_probe_busy(&mut self, d: Duration) {
        self.pending_probe_busy = self.pending_probe_busy.saturating_add(d);
    }

    /// The probe's share of the drive's busy time over the last complete
    /// interval: probe busy / Δio_ticks, clamped to 0..=1 (io_ticks has
    /// millisecond, on older kernels jiffy, granularity). None before two
    /// samples or if Δio_ticks = 0.
    pub fn probe_share(&self) -> Option<f64> {
        let (probe, dticks) = self.last_interval?;
        if dticks == 0 {
            return None;
        }
        Some((probe.as_secs_f64() * 1e3 / dticks as f64).clamp(0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
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
}
