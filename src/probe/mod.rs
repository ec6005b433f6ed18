//! The latency probe: 4 KiB reads at queue depth 1 with O_DIRECT, at
//! Poisson-distributed instants, skipped while the drive is busy or asleep,
//! recorded into a fleet-aggregatable histogram and a sliding window of
//! exact quantiles.
//!
//! - [`schedule`]: Poisson arrival times.
//! - [`histogram`]: the log-spaced buckets of `ssd_probe_latency_seconds`.
//! - [`window`]: sliding-window quantiles (`ssd_probe_latency_quantile_seconds`).
//! - [`busy`]: `/sys/block/<dev>/stat` and the back-off decision.
//! - [`qos`]: datasheet QoS targets per model.
//! - [`reader`], [`writer`]: the probe I/O itself (read-only device access;
//!   the opt-in write probe only touches a file it created).
//! - [`runner`]: one probe thread per drive, its deadline watchdog and stats.
//! - [`fleet`]: the running probes, started and stopped with discovery.
//! - [`simulated`]: the demo's probes, recording latencies drawn from a
//!   model instead of measured.

pub mod busy;
pub mod fleet;
pub mod histogram;
pub mod qos;
pub mod reader;
pub mod runner;
pub mod schedule;
pub mod simulated;
pub mod window;
pub mod writer;
