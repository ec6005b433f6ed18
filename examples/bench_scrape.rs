//! Scrape benchmark: serves N replayed copies of a fixture drive with the
//! release binary and measures `/metrics` latency and the exporter's RSS.
//!
//!     cargo build --release --bin ssd_exporter --example bench_scrape
//!     target/release/examples/bench_scrape [drives=64] [scrapes=500]
//!
//! Prints one JSON object. Latency is wall time from connect to the last
//! byte of the body, over loopback, single client, sequential.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let drives: usize = args.next().map_or(64, |a| a.parse().expect("drives"));
    let scrapes: usize = args.next().map_or(500, |a| a.parse().expect("scrapes"));
    // Prometheus itself asks for gzip; "gzip" as third argument does too.
    let gzip = args.next().is_some_and(|a| a == "gzip");
    let root = env!("CARGO_MANIFEST_DIR");
    let fixture = format!("{root}/tests/fixtures/nvme/kingston-dc2000b/nvme0");
    let tmp = std::env::temp_dir().join(format!("bench-scrape-{}", std::process::id()));
    let mut cmd = Command::new(format!("{root}/target/release/ssd_exporter"));
    cmd.args([
        "--web.listen-address=127.0.0.1:0",
        "--poll.interval=1h",
        "--log.level=info",
    ]);
    for i in 0..drives {
        let dir = tmp.join(format!("nvme{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "id-ctrl.bin",
            "smart-log.bin",
            "ocp-smart-log.bin",
            "error-log.bin",
            "self-test-log.bin",
        ] {
            std::fs::copy(format!("{fixture}/{f}"), dir.join(f)).unwrap();
        }
        cmd.arg(format!("--replay={}", dir.display()));
    }
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .expect("run target/release/ssd_exporter");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().expect("exporter exited").unwrap();
        if line.contains("listening") {
            break line
                .split("address=")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    // Wait until every drive has been polled once.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let body = get(&addr, false);
        let polled = body
            .lines()
            .filter(|l| l.starts_with("ssd_polls_total{") && !l.ends_with(" 0"))
            .count();
        if polled == drives {
            break;
        }
        assert!(Instant::now() < deadline, "drives never polled");
        std::thread::sleep(Duration::from_millis(100));
    }
    for _ in 0..20 {
        get(&addr, false);
    }
    let body = get(&addr, false);
    let series = body.lines().filter(|l| l.starts_with("ssd_")).count();
    let mut times: Vec<f64> = (0..scrapes)
        .map(|_| {
            let t = Instant::now();
            get(&addr, gzip);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let kib = |key: &str| -> u64 {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&tmp);
    let q = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    println!(
        "{{\"gzip\": {gzip}, \"drives\": {drives}, \"series\": {series}, \"body_bytes\": {}, \"scrapes\": {scrapes}, \"median_ms\": {:.3}, \"p90_ms\": {:.3}, \"p99_ms\": {:.3}, \"rss_mib\": {:.1}, \"peak_rss_mib\": {:.1}}}",
        body.len(),
        q(0.5),
        q(0.9),
        q(0.99),
        kib("VmRSS:") as f64 / 1024.0,
        kib("VmHWM:") as f64 / 1024.0
    );
}

fn get(addr: &str, gzip: bool) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    let enc = if gzip {
        "Accept-Encoding: gzip\r\n"
    } else {
        ""
    };
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n{enc}\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8_lossy(&out).into_owned()
}
