//! The read probe's I/O: which device, which offsets, and one timed 4 KiB
//! `O_DIRECT` read. The device is only ever opened read-only.
//!
//! Geometry comes from sysfs (`queue/logical_block_size`, `size` in 512-byte
//! sectors) rather than `BLKSSZGET`/`BLKGETSIZE64`, so this module needs no
//! ioctl and no `unsafe`; `O_DIRECT` needs the buffer, the offset and the
//! length aligned to the logical block size, and every one of them here is a
//! multiple of [`Reader::io_size`], itself a multiple of 4096 and of the
//! logical block size.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The probe's I/O size unless the logical block is larger.
pub const IO_SIZE: u32 = 4096;

/// Why a probe cannot start. One type for the read and the write probe.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(
        "open {}: permission denied (the probe needs read access to the block device; run as root or grant the disk group)",
        path.display()
    )]
    Permission { path: PathBuf },
    /// Refused although the process is root: not the file's mode but a
    /// device cgroup (a container) or a security module.
    #[error(
        "open {}: {source} although running as root: a device cgroup (the container runtime) or a security module (SELinux, AppArmor) refuses this device; grant it to the container (deploy/README.md, \"Device access\")",
        path.display()
    )]
    Refused { path: PathBuf, source: io::Error },
    #[error("open {}: {source} (check that the device exists and is a block device)", path.display())]
    Open { path: PathBuf, source: io::Error },
    #[error("read {}: {reason} (is /sys mounted, and is {device} a block device?)", path.display())]
    Sysfs {
        device: String,
        path: PathBuf,
        reason: String,
    },
    #[error(
        "{}: probe range {start}..{end} holds no aligned {io_size}-byte block (device size {size} bytes); widen the range",
        path.display()
    )]
    Range {
        path: PathBuf,
        start: u64,
        end: u64,
        size: u64,
        io_size: u32,
    },
    #[error("write probe in {}: {reason}", dir.display())]
    WriteRefused { dir: PathBuf, reason: String },
    #[error("write probe file {}: {source}", path.display())]
    WriteIo { path: PathBuf, source: io::Error },
    #[error("{device}: {reason}; fix the probe settings")]
    Config { device: String, reason: String },
    #[error("{device}: cannot start the probe thread: {source}")]
    Spawn { device: String, source: io::Error },
}

impl ProbeError {
    /// Maps an `open` failure, singling out the permission errors that the
    /// exporter counts as a skip rather than a failure.
    pub fn open(path: &Path, source: io::Error) -> Self {
        Self::open_as(path, source, nix::unistd::geteuid().is_root())
    }

    /// [`Self::open`] for a process that is root or not.
    pub fn open_as(path: &Path, source: io::Error, root: bool) -> Self {
        if is_permission(&source) && root {
            ProbeError::Refused {
                path: path.into(),
                source,
            }
        } else if is_permission(&source) {
            ProbeError::Permission { path: path.into() }
        } else {
            ProbeError::Open {
                path: path.into(),
                source,
            }
        }
    }

    pub fn is_permission(&self) -> bool {
        matches!(
            self,
            ProbeError::Permission { .. } | ProbeError::Refused { .. }
        )
    }
}

/// EPERM or EACCES: the probe lacks the right to the device, not a device fault.
pub fn is_permission(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EPERM | libc::EACCES))
}

/// One device to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTarget {
    /// Kernel name: `nvme0n1`, `sda`, `loop3`.
    pub device: String,
    /// The block device node, `/dev/<device>`.
    pub path: PathBuf,
    pub block_size: u32,
    pub size_bytes: u64,
    /// Byte range `[start, end)` the probe reads from; `None` is the whole device.
    pub range: Option<(u64, u64)>,
}

impl ProbeTarget {
    /// Reads `name`'s geometry from `<sysfs>/block/<name>/`; the node is
    /// `<dev_dir>/<name>`. Pass `/sys` and `/dev` outside tests.
    pub fn from_sysfs(sysfs: &Path, dev_dir: &Path, name: &str) -> Result<ProbeTarget, ProbeError> {
        let base = sysfs.join("block").join(name);
        let block_size = read_number(name, &base.join("queue/logical_block_size"))?;
        let sectors = read_number(name, &base.join("size"))?;
        let block_size = u32::try_from(block_size)
            .ok()
            .filter(|b| b.is_power_of_two() && *b >= 512)
            .ok_or_else(|| ProbeError::Sysfs {
                device: name.into(),
                path: base.join("queue/logical_block_size"),
                reason: format!("logical block size {block_size} is not a power of two ≥ 512"),
            })?;
        Ok(ProbeTarget {
            device: name.into(),
            path: dev_dir.join(name),
            block_size,
            size_bytes: sectors.saturating_mul(512),
            range: None,
        })
    }

    /// The I/O size: 4 KiB, or the logical block size if larger.
    pub fn io_size(&self) -> u32 {
        self.block_size.max(IO_SIZE)
    }
}

fn read_number(device: &str, path: &Path) -> Result<u64, ProbeError> {
    let err = |reason: String| ProbeError::Sysfs {
        device: device.into(),
        path: path.into(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    text.trim()
        .parse()
        .map_err(|_| err(format!("not a number: {:?}", text.trim())))
}

/// Aligned offsets: the first slot and the number of `io`-sized slots that
/// fit in `[start, end)`.
fn slots(start: u64, end: u64, io: u64) -> Option<(u64, u64)> {
    let first = start.div_ceil(io).checked_mul(io)?;
    let last_end = (end / io) * io;
    (last_end > first).then(|| (first, (last_end - first) / io))
}

/// An open, read-only, `O_DIRECT` handle on one device.
pub struct Reader {
    file: File,
    path: PathBuf,
    io_size: u32,
    first: u64,
    slots: u64,
    /// Over-allocated so that `buf[align..align + io_size]` is aligned.
    buf: Vec<u8>,
    align: usize,
}

impl Reader {
    /// Opens `target.path` with `O_RDONLY | O_DIRECT` (never writable).
    pub fn open(target: &ProbeTarget) -> Result<Reader, ProbeError> {
        let io_size = target.io_size();
        let (start, end) = target.range.unwrap_or((0, target.size_bytes));
        let end = end.min(target.size_bytes);
        let (first, slots) =
            slots(start, end, u64::from(io_size)).ok_or_else(|| ProbeError::Range {
                path: target.path.clone(),
                start,
                end,
                size: target.size_bytes,
                io_size,
            })?;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
            .open(&target.path)
            .map_err(|e| ProbeError::open(&target.path, e))?;
        let size = io_size as usize;
        let buf = vec![0u8; 2 * size];
        let align = buf.as_ptr().align_offset(size);
        debug_assert!(
            align < size,
            "a Vec<u8> can always be aligned within 2× its size"
        );
        Ok(Reader {
            file,
            path: target.path.clone(),
            io_size,
            first,
            slots,
            buf,
            align,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn io_size(&self) -> u32 {
        self.io_size
    }

    /// Maps a uniform random `u` onto an aligned offset inside the range, so
    /// a whole I/O fits before the range's end.
    pub fn random_offset(&self, u: u64) -> u64 {
        self.first + (u % self.slots) * u64::from(self.io_size)
    }

    /// One read of `io_size` bytes at `offset`; the returned duration covers
    /// the `pread` syscall only. A short read is an error (the range is
    /// checked against the size at open, so it means the device shrank).
    pub fn read_once(&mut self, offset: u64) -> io::Result<Duration> {
        let buf = &mut self.buf[self.align..self.align + self.io_size as usize];
        let started = Instant::now();
        let n = self.file.read_at(buf, offset)?;
        let elapsed = started.elapsed();
        if n != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("short read: {n} of {} bytes at offset {offset}", buf.len()),
            ));
        }
        Ok(elapsed)
    }
}

#[cfg(test)]
mod tests;
