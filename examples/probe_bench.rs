//! Helper for `scripts/bench-probe.sh`: runs the library's probe, or a bare
//! loop of the same reads, on one block device and prints one JSON object.
//!
//! ```text
//! probe_bench probe <dev> <rate/s> <seconds>   # the real runner thread
//! probe_bench paced <dev> <rate/s> <seconds>   # sleep a Poisson gap, time one pread
//! probe_bench pread <dev> <count>              # back-to-back O_DIRECT reads
//! probe_bench stat <dev> <count>               # reads of /sys/block/<dev>/stat
//! ```

use std::path::Path;
use std::time::{Duration, Instant};

use nix::time::{ClockId, clock_gettime};
use serde_json::json;
use ssd_exporter::probe::op::IoResult;
use ssd_exporter::probe::reader::{ProbeTarget, Reader};
use ssd_exporter::probe::runner::{self, ProbeConfig};

fn thread_cpu() -> Duration {
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(Duration::ZERO, Duration::from)
}

/// On-CPU nanoseconds of this process's thread named `name`
/// (first field of `/proc/self/task/<tid>/schedstat`).
fn named_thread_cpu_ns(name: &str) -> Option<u64> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() == name {
            let s = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            return s.split_whitespace().next()?.parse().ok();
        }
    }
    None
}

fn target(dev: &str) -> ProbeTarget {
    ProbeTarget::from_sysfs(Path::new("/sys"), Path::new("/dev"), dev).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    })
}

fn probe(dev: &str, rate: f64, seconds: f64) -> serde_json::Value {
    let config = ProbeConfig {
        rate,
        window: Duration::from_secs(24 * 3600),
        ..ProbeConfig::default()
    };
    let handle = runner::spawn(target(dev), config, None).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    std::thread::sleep(Duration::from_secs_f64(seconds));
    let cpu_ns = named_thread_cpu_ns(&format!("probe {dev}"));
    let out = {
        let s = handle.stats.lock().unwrap();
        let ok = s.read.count(IoResult::Ok);
        json!({
            "device": dev,
            "rate": rate,
            "seconds": seconds,
            "ios": s
                .read
                .ios
                .iter()
                .map(|(r, n)| (r.as_label(), n))
                .collect::<std::collections::BTreeMap<_, _>>(),
            "skipped": s
                .skipped
                .iter()
                .map(|(r, n)| (r.as_label(), *n))
                .collect::<std::collections::BTreeMap<_, _>>(),
            "samples": s.read.window.count(),
            "p50_s": s.read.window.quantile(0.5),
            "p90_s": s.read.window.quantile(0.9),
            "p99_s": s.read.window.quantile(0.99),
            "thread_cpu_ns": cpu_ns,
            "thread_cpu_ns_per_io": cpu_ns.map(|c| c as f64 / ok.max(1) as f64),
            "last_error": s.last_error,
        })
    };
    handle.stop_and_join(Duration::from_secs(5));
    out
}

fn pread(dev: &str, count: u64) -> serde_json::Value {
    let mut reader = Reader::open(&target(dev)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let offsets: Vec<u64> = (0..count)
        .map(|_| reader.random_offset(fastrand::u64(..)))
        .collect();
    let (cpu0, wall0) = (thread_cpu(), Instant::now());
    let mut syscall = Duration::ZERO;
    for off in offsets {
        syscall += reader.read_once(off).expect("pread");
    }
    let (cpu, wall) = (thread_cpu() - cpu0, wall0.elapsed());
    json!({
        "device": dev,
        "calls": count,
        "cpu_ns_per_call": cpu.as_nanos() as f64 / count as f64,
        "wall_ns_per_call": wall.as_nanos() as f64 / count as f64,
        "timed_syscall_ns_per_call": syscall.as_nanos() as f64 / count as f64,
    })
}

/// The same O_DIRECT reads at the same Poisson rate as the probe, with
/// nothing else: sleep, pread, repeat. What any rate-limited QD1 reader
/// pays per I/O (the wake-up and the cold syscall), to subtract from the
/// probe's cost; and, from an exact sorted array rather than the probe's
/// window, the latency such a reader sees.
fn paced(dev: &str, rate: f64, seconds: f64) -> serde_json::Value {
    let mut reader = Reader::open(&target(dev)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let poisson = ssd_exporter::probe::schedule::Poisson::new(rate);
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    let cpu0 = thread_cpu();
    let mut calls = 0u64;
    let mut lat = Vec::with_capacity((rate * seconds) as usize + 16);
    while Instant::now() < end {
        std::thread::sleep(poisson.next_gap());
        lat.push(
            reader
                .read_once(reader.random_offset(fastrand::u64(..)))
                .expect("pread"),
        );
        calls += 1;
    }
    let cpu = thread_cpu() - cpu0;
    lat.sort_unstable();
    // Nearest rank, as the probe's window reports it.
    let q = |p: f64| {
        let rank = ((p * lat.len() as f64).ceil() as usize).clamp(1, lat.len().max(1));
        lat.get(rank - 1).map_or(0.0, Duration::as_secs_f64)
    };
    json!({
        "device": dev,
        "calls": calls,
        "cpu_ns_per_call": cpu.as_nanos() as f64 / calls.max(1) as f64,
        "p50_s": q(0.5),
        "p90_s": q(0.9),
        "p99_s": q(0.99),
    })
}

/// CPU per read of `/sys/block/<dev>/stat` (pread at offset 0 on an open
/// descriptor, as the probe does before every I/O for its busy check).
fn stat(dev: &str, count: u64) -> serde_json::Value {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(format!("/sys/block/{dev}/stat")).expect("open stat");
    let mut buf = [0u8; 512];
    let cpu0 = thread_cpu();
    for _ in 0..count {
        f.read_at(&mut buf, 0).expect("read stat");
    }
    let cpu = thread_cpu() - cpu0;
    json!({ "device": dev, "reads": count, "cpu_ns_per_read": cpu.as_nanos() as f64 / count as f64 })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| -> &str { args.get(i).map(String::as_str).unwrap_or("") };
    let out = match arg(0) {
        "probe" => probe(
            arg(1),
            arg(2).parse().expect("rate"),
            arg(3).parse().expect("seconds"),
        ),
        "pread" => pread(arg(1), arg(2).parse().expect("count")),
        "stat" => stat(arg(1), arg(2).parse().expect("count")),
        "paced" => paced(
            arg(1),
            arg(2).parse().expect("rate"),
            arg(3).parse().expect("seconds"),
        ),
        _ => {
            eprintln!(
                "usage: probe_bench probe <dev> <rate> <seconds> | pread <dev> <count> | paced <dev> <rate> <seconds> | stat <dev> <count>"
            );
            std::process::exit(2)
        }
    };
    println!("{out}");
}
