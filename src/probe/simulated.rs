//! Probes of the demo's simulated drives: a thread per drive that, at the
//! probe's Poisson rate, records a latency drawn from the drive's model
//! into the same histogram and sliding window a real probe fills. No
//! device is touched.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::op::IoResult;
use super::runner::{ProbeConfig, ProbeHandle, ProbeStats};
use super::schedule::Poisson;

/// A latency in seconds for a probe issued `t` seconds after the demo
/// started, drawn with the given generator.
pub type LatencyModel = Box<dyn FnMut(f64, &mut fastrand::Rng) -> f64 + Send>;

/// How often the thread wakes to record the reads due since it last did.
const TICK: Duration = Duration::from_millis(200);

/// Starts a simulated probe of `block` at `rate` reads per second;
/// `demo_started` is the instant the simulation's clock counts from.
pub fn spawn(
    block: &str,
    config: &ProbeConfig,
    rate: f64,
    demo_started: Instant,
    mut model: LatencyModel,
) -> std::io::Result<ProbeHandle> {
    let started = Instant::now();
    let stats = Arc::new(Mutex::new(ProbeStats::new(
        block,
        config.window,
        None,
        started,
    )));
    let stop = Arc::new(AtomicBool::new(false));
    let (shared, flag) = (stats.clone(), stop.clone());
    let schedule = Poisson::new(rate);
    let mut rng = fastrand::Rng::new();
    let thread = std::thread::Builder::new()
        .name(format!("demo probe {block}"))
        .spawn(move || {
            let mut next = started + schedule.next_gap();
            while !flag.load(Ordering::SeqCst) {
                std::thread::park_timeout(TICK);
                let now = Instant::now();
                let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
                let mut busy = 0.0;
                while next <= now {
                    let t = next.saturating_duration_since(demo_started).as_secs_f64();
                    let v = model(t, &mut rng);
                    busy += v;
                    s.read.histogram.record(v);
                    s.read.window.record(next - started, v);
                    s.read.ios.add(IoResult::Ok);
                    next += schedule.next_gap();
                }
                s.busy_ratio = Some(busy / TICK.as_secs_f64());
            }
        })?;
    Ok(ProbeHandle::simulated(stats, stop, thread))
}
