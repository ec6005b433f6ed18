//! The process's own resource use, named as Prometheus' client_golang
//! names it (`process_*`), read from /proc/self (and `getrlimit`) at scrape time. Only
//! /proc/self: the unit's ProcSubset=pid hides /proc/stat, so the start
//! time comes from CLOCK_BOOTTIME instead of `btime`.

use std::fmt;
use std::io::Read;
use std::sync::OnceLock;

use nix::sys::resource::{RLIM_INFINITY, Resource, getrlimit};
use nix::time::{ClockId, clock_gettime};
use nix::unistd::{SysconfVar, sysconf};
use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, NO_LABELS, counter, family};

/// What one read of /proc/self gives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ProcessStats {
    pub cpu_seconds: f64,
    pub resident_bytes: f64,
    pub virtual_bytes: f64,
    pub threads: f64,
    pub open_fds: Option<f64>,
    pub max_fds: Option<f64>,
    pub start_time_seconds: Option<f64>,
}

/// Fields of /proc/self/stat after the command name (field 3 is index 0).
#[derive(Debug, PartialEq)]
struct Stat {
    utime_ticks: u64,
    stime_ticks: u64,
    threads: u64,
    start_ticks: u64,
    vsize_bytes: u64,
    rss_pages: u64,
}

/// Parses /proc/self/stat (proc(5)); the command name may hold spaces and
/// parentheses, so fields are counted after the last `)`.
fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    // Fields in order, each skipped to once: no vector of all 50.
    let mut f = rest.split_whitespace();
    let mut at = 0;
    let mut n = |i: usize| {
        let v = f.nth(i - at)?.parse::<u64>().ok();
        at = i + 1;
        v
    };
    Some(Stat {
        utime_ticks: n(11)?,
        stime_ticks: n(12)?,
        threads: n(17)?,
        start_ticks: n(19)?,
        vsize_bytes: n(20)?,
        rss_pages: n(21)?,
    })
}

/// The soft limit on open files, as /proc/self/limits shows it ("Max open
/// files"), by one `getrlimit` instead of opening and parsing that file.
fn max_fds() -> Option<f64> {
    let (soft, _) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    Some(if soft == RLIM_INFINITY {
        f64::INFINITY
    } else {
        soft as f64
    })
}

/// /proc/self/stat in one `read` (the line is a few hundred bytes): no
/// `statx` and no second read for the end of file, as `read_to_string`
/// makes; each is a real system call where the clock is not in the vDSO.
fn read_stat() -> Option<Stat> {
    let mut buf = [0u8; 2048];
    let n = std::fs::File::open("/proc/self/stat")
        .and_then(|mut f| f.read(&mut buf))
        .ok()?;
    if n == buf.len() {
        return parse_stat(&std::fs::read_to_string("/proc/self/stat").ok()?);
    }
    parse_stat(std::str::from_utf8(&buf[..n]).ok()?)
}

/// When the process started, in seconds since the epoch: the same for the
/// whole run, so worked out once (its two clock reads are system calls in
/// a guest without a TSC).
fn start_time_seconds(start_ticks: u64, ticks: f64) -> Option<f64> {
    static START: OnceLock<Option<f64>> = OnceLock::new();
    *START.get_or_init(|| {
        let since = |id| {
            clock_gettime(id)
                .ok()
                .map(|t| t.tv_sec() as f64 + t.tv_nsec() as f64 / 1e9)
        };
        let (now, up) = (
            since(ClockId::CLOCK_REALTIME)?,
            since(ClockId::CLOCK_BOOTTIME)?,
        );
        Some(now - up + start_ticks as f64 / ticks)
    })
}

impl ProcessStats {
    /// Reads /proc/self; `None` if its stat file cannot be read or parsed.
    pub(super) fn read() -> Option<Self> {
        let stat = read_stat()?;
        let ticks = sysconf(SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .filter(|&t| t > 0)? as f64;
        let page = sysconf(SysconfVar::PAGE_SIZE)
            .ok()
            .flatten()
            .filter(|&p| p > 0)? as f64;
        let open_fds = std::fs::read_dir("/proc/self/fd")
            .ok()
            // The directory handle itself is one of the entries.
            .map(|d| d.count().saturating_sub(1) as f64);
        let max_fds = max_fds();
        let start_time_seconds = start_time_seconds(stat.start_ticks, ticks);
        Some(ProcessStats {
            cpu_seconds: (stat.utime_ticks + stat.stime_ticks) as f64 / ticks,
            resident_bytes: stat.rss_pages as f64 * page,
            virtual_bytes: stat.vsize_bytes as f64,
            threads: stat.threads as f64,
            open_fds,
            max_fds,
            start_time_seconds,
        })
    }
}

impl Exposition {
    pub(super) fn process(&self, enc: &mut Enc) -> fmt::Result {
        let Some(p) = self.process else {
            return Ok(());
        };
        let one = |v: f64| [(NO_LABELS, v)];
        counter(
            enc,
            "process_cpu_seconds",
            "Total user and system CPU time spent in seconds.",
            one(p.cpu_seconds),
        )?;
        let gauges = [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                Some(p.resident_bytes),
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
                Some(p.virtual_bytes),
            ),
            (
                "process_threads",
                "Number of OS threads in the process.",
                Some(p.threads),
            ),
            (
                "process_open_fds",
                "Number of open file descriptors.",
                p.open_fds,
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors.",
                p.max_fds,
            ),
            (
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                p.start_time_seconds,
            ),
        ];
        for (name, help, value) in gauges {
            if let Some(v) = value {
                family(enc, name, help, MetricType::Gauge, one(v))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
