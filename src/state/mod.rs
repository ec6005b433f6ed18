//! State that survives restarts and crashes: per drive, by identity, what
//! the verdict and the forecast need of the past (counter baselines and
//! change points, wear samples, the temperature range, first seen) and
//! the last self-test the exporter started, in one checksummed file under
//! `state.path`.
//!
//! - [`record`]: the payload (and how to add to it without a new version);
//! - [`file`](mod@file): the file's format, its atomic write and checked read, and
//!   the locked directory;
//! - [`memory`]: the table the drives' snapshots are adopted from and
//!   kept in, and the bounded payload it gives.
//!
//! Nothing here runs on its own: `app` loads the file at start, calls
//! [`Memory::adopt`] and [`Memory::keep`] around each verdict, and writes
//! [`Memory::payload`] at most once per poll interval and at shutdown.
//! `check` and `--demo` never touch it (one-shot; simulated drives).

pub mod file;
pub mod memory;
pub mod record;

use std::sync::atomic::AtomicU64;

pub use file::{LoadError, OpenError, StateDir};
pub use memory::Memory;
pub use record::{Payload, Record, SelfTestKind, SelfTestRun};

/// Default of `state.path`: systemd's `StateDirectory=ssd_exporter`.
pub const DEFAULT_PATH: &str = "/var/lib/ssd_exporter";

/// What the state file's users count (`ssd_exporter_state_saves_total`,
/// `ssd_exporter_state_errors_total{op}`).
#[derive(Debug, Default)]
pub struct Counters {
    pub saves: AtomicU64,
    pub load_errors: AtomicU64,
    pub save_errors: AtomicU64,
}

#[cfg(test)]
mod tests;
