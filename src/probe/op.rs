//! The names a probe I/O carries into the exposition and the verdict: its
//! operation (the `op` label) and its result (the `result` label). Enums
//! with `ALL` and `as_label()`, so a series cannot be spelt two ways and a
//! new variant is served by every loop over `ALL`.

/// What a probe I/O did: the `op` label of every `ssd_probe_*` series and
/// of `ssd_latency_qos_target_seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeOp {
    /// A 4 KiB `O_DIRECT` read of the block device.
    Read,
    /// The write probe's `O_DIRECT | O_DSYNC` pwrite into its own file.
    Write,
    /// The write probe's buffered pwrite followed by `fdatasync`.
    Flush,
}

impl ProbeOp {
    pub const ALL: [ProbeOp; 3] = [ProbeOp::Read, ProbeOp::Write, ProbeOp::Flush];

    pub fn as_label(self) -> &'static str {
        match self {
            ProbeOp::Read => "read",
            ProbeOp::Write => "write",
            ProbeOp::Flush => "flush",
        }
    }
}

impl std::fmt::Display for ProbeOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_label())
    }
}

/// How a probe I/O ended: the `result` label of `ssd_probe_ios_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IoResult {
    /// Completed within the probe timeout.
    Ok,
    /// Failed (the error is logged once and kept as the probe's last error).
    Error,
    /// Completed, or is still outstanding, after the probe timeout.
    Timeout,
}

impl IoResult {
    pub const ALL: [IoResult; 3] = [IoResult::Ok, IoResult::Error, IoResult::Timeout];

    pub fn as_label(self) -> &'static str {
        match self {
            IoResult::Ok => "ok",
            IoResult::Error => "error",
            IoResult::Timeout => "timeout",
        }
    }
}

/// One count per [`IoResult`], every one of them served from 0 so that the
/// first error or timeout is an increase a rule can see.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoCounts([u64; 3]);

impl IoCounts {
    pub fn new(ok: u64, error: u64, timeout: u64) -> Self {
        Self([ok, error, timeout])
    }

    pub fn get(&self, r: IoResult) -> u64 {
        self.0[r as usize]
    }

    pub fn add(&mut self, r: IoResult) {
        self.0[r as usize] += 1;
    }

    /// `(result, count)` in `ALL` order.
    pub fn iter(&self) -> impl Iterator<Item = (IoResult, u64)> + '_ {
        IoResult::ALL.iter().map(|&r| (r, self.get(r)))
    }
}

#[cfg(test)]
mod tests;
