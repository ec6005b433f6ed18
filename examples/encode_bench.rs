//! Encode benchmark for instruction counts: N replayed drives polled once,
//! then the `/metrics` body built `scrapes` times in-process, as the HTTP
//! server's encode thread builds it (no sockets, no gzip).
//!
//!     cargo build --release --example encode_bench
//!     valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!         target/release/examples/encode_bench 64 0    # setup only
//!     valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!         target/release/examples/encode_bench 64 100  # setup + 100 scrapes
//!
//! Instructions per scrape = (Ir of the second run − Ir of the first) / 100.
//! Further arguments are fixture folders the drives cycle through (default
//! the Kingston DC2000B NVMe dump, as `bench_scrape` serves); `openmetrics`
//! among them switches the format; `changed` publishes a new snapshot of
//! every drive before each scrape (as if each drive were polled between
//! two scrapes), and `no-scrape` then leaves out the scrapes, to subtract
//! the cost of those updates.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use ssd_exporter::app::State;
use ssd_exporter::health::history::History;
use ssd_exporter::http::{Encoding, Exposition, Format};
use ssd_exporter::poll::factory;
use ssd_exporter::snapshot::DriveSnapshot;

fn main() {
    let mut args = std::env::args().skip(1);
    let drives: usize = args.next().map_or(64, |a| a.parse().expect("drives"));
    let scrapes: usize = args.next().map_or(100, |a| a.parse().expect("scrapes"));
    let mut format = Format::Prometheus;
    let mut dirs: Vec<PathBuf> = Vec::new();
    let (mut changed, mut scrape) = (false, true);
    for a in args {
        if a == "openmetrics" {
            format = Format::OpenMetrics;
        } else if a == "changed" {
            changed = true;
        } else if a == "no-scrape" {
            scrape = false;
        } else {
            dirs.push(a.into());
        }
    }
    if dirs.is_empty() {
        let root = env!("CARGO_MANIFEST_DIR");
        dirs.push(format!("{root}/tests/fixtures/nvme/kingston-dc2000b/nvme0").into());
    }
    let namer = Arc::new(factory::namer(&[]));
    let state = State::default();
    let now = SystemTime::now();
    for i in 0..drives {
        let dir = &dirs[i % dirs.len()];
        let (name, transport, mut poller) = factory::replay(dir, &namer).expect("fixture folder");
        let started = Instant::now();
        let outcome = poller.poll();
        let device = format!("{name}-{i}");
        let identity = factory::placeholder(transport, "", "", "");
        let mut snap = DriveSnapshot::new(&device, &dir.display().to_string(), identity);
        snap.apply(outcome, started.elapsed(), now);
        snap.history = History::new(None);
        snap.judge(Vec::new(), now);
        state.store.insert(snap);
    }
    let devices: Vec<String> = state
        .store
        .list()
        .iter()
        .map(|d| d.device.clone())
        .collect();
    let mut bytes = 0;
    for _ in 0..scrapes {
        if changed {
            for d in &devices {
                state.store.update(d, |s| s.polls += 1);
            }
        }
        if scrape {
            bytes = state
                .metrics(format, Encoding::Identity)
                .expect("a body")
                .len();
        }
    }
    println!("{{\"drives\": {drives}, \"scrapes\": {scrapes}, \"bytes\": {bytes}}}");
}
