//! The poll workers (`app::pool`): how many wait, run a poll, or are
//! written off in a poll stuck past its deadline.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, family};

/// The `state` label of `ssd_exporter_poll_workers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerState {
    Idle,
    Busy,
    /// In a poll past its deadline: written off, no longer counted as one
    /// of the pool's.
    Stuck,
}

impl WorkerState {
    pub const ALL: [WorkerState; 3] = [Self::Idle, Self::Busy, Self::Stuck];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Busy => "busy",
            Self::Stuck => "stuck",
        }
    }
}

/// The pool's workers by state, written by the pool, read by every scrape.
#[derive(Debug, Default)]
pub struct PollWorkers {
    pub idle: AtomicU64,
    pub busy: AtomicU64,
    pub stuck: AtomicU64,
}

impl PollWorkers {
    pub fn get(&self, state: WorkerState) -> u64 {
        let n = match state {
            WorkerState::Idle => &self.idle,
            WorkerState::Busy => &self.busy,
            WorkerState::Stuck => &self.stuck,
        };
        n.load(Ordering::Relaxed)
    }
}

impl Exposition {
    pub(super) fn poll_workers(&self, enc: &mut Enc) -> fmt::Result {
        let workers = self.build.workers.as_deref();
        let rows = workers
            .into_iter()
            .flat_map(|w| WorkerState::ALL.map(|s| ([("state", s.as_label())], w.get(s) as f64)));
        family(
            enc,
            "ssd_exporter_poll_workers",
            "Threads that poll the drives, by state: idle, busy in a poll, or stuck in a poll past its deadline (written off and replaced; at most one per drive).",
            MetricType::Gauge,
            rows,
        )
    }
}
