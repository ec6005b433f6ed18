//! The latency probe: 4 KiB reads at queue depth 1 with O_DIRECT, at
//! Poisson-distributed instants, skipped while the drive is busy or asleep,
//! recorded into a fleet-aggregatable histogram and a sliding window of
//! exact quantiles.
//!
//! - [`schedule`]: Poisson arrival times.
//! - [`op`]: the `op` and `result` labels as enums.
//! - [`histogram`]: the log-spaced buckets of `ssd_probe_latency_seconds`.
//! - [`native`]: the same latencies as a native (exponential) histogram.
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
pub mod native;
pub mod op;
pub mod qos;
pub mod reader;
pub mod runner;
pub mod schedule;
pub mod simulated;
pub mod window;
pub mod writer;

/// A fake block device for tests: `<sysfs>/block/<name>/` with a 512-byte
/// logical block, a size of 1 MiB and an idle `stat`, and a 1 MiB regular
/// file `<dev_dir>/<name>` standing in for the device node.
#[cfg(test)]
pub(crate) fn fake_block_device(
    sysfs: &std::path::Path,
    dev_dir: &std::path::Path,
    name: &str,
) -> reader::ProbeTarget {
    let block = sysfs.join("block").join(name);
    std::fs::create_dir_all(block.join("queue")).unwrap();
    std::fs::write(block.join("queue/logical_block_size"), "512\n").unwrap();
    std::fs::write(block.join("size"), "2048\n").unwrap();
    std::fs::write(block.join("stat"), "1 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n").unwrap();
    std::fs::create_dir_all(dev_dir).unwrap();
    std::fs::write(dev_dir.join(name), vec![1u8; 1 << 20]).unwrap();
    reader::ProbeTarget::from_sysfs(sysfs, dev_dir, name).unwrap()
}
