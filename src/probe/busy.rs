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
mod tests;
