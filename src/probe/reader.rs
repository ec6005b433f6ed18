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
        if is_permission(&source) {
            ProbeError::Permission { path: path.into() }
        } else {
            ProbeError::Open {
                path: path.into(),
                source,
            }
        }
    }

    pub fn is_permission(&self) -> bool {
        matches!(self, ProbeError::Permission { .. })
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
mod tests {
    use super::*;
    use nix::fcntl::{FcntlArg, OFlag, fcntl};

    fn target(block_size: u32, size_bytes: u64, range: Option<(u64, u64)>) -> ProbeTarget {
        ProbeTarget {
            device: "fake".into(),
            path: "/nonexistent".into(),
            block_size,
            size_bytes,
            range,
        }
    }

    /// A reader over a temp file, without touching the disk for offsets.
    fn reader(t: &ProbeTarget, file: File) -> Reader {
        let io = t.io_size();
        let (s, e) = t.range.unwrap_or((0, t.size_bytes));
        let (first, slots) = slots(s, e.min(t.size_bytes), u64::from(io)).unwrap();
        Reader {
            file,
            path: t.path.clone(),
            io_size: io,
            first,
            slots,
            buf: vec![0; 2 * io as usize],
            align: 0,
        }
    }

    #[test]
    fn random_offsets_are_aligned_and_inside_the_range() {
        let f = tempfile::tempfile().unwrap();
        for (bs, size, range) in [
            (512, 64 << 20, None),
            (4096, 1 << 30, Some((1000, 1 << 20))),
            (512, 10 * 4096 + 100, None),
            (16384, 1 << 30, Some((5, (1 << 20) + 3))),
        ] {
            let t = target(bs, size, range);
            let r = reader(&t, f.try_clone().unwrap());
            let io = u64::from(t.io_size());
            let (s, e) = range.unwrap_or((0, size));
            let mut seen = std::collections::BTreeSet::new();
            for u in (0..10_000u64).chain([u64::MAX, u64::MAX - 1]) {
                let u = u.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let off = r.random_offset(u);
                assert_eq!(off % io, 0, "{off} not aligned to {io}");
                assert_eq!(off % u64::from(bs), 0);
                assert!(off >= s && off + io <= e, "{off} outside {s}..{e}");
                seen.insert(off);
            }
            assert!(seen.len() as u64 <= r.slots && seen.len() > 1);
        }
    }

    #[test]
    fn a_range_without_a_whole_block_is_refused() {
        assert_eq!(slots(0, 4095, 4096), None);
        assert_eq!(slots(1, 8191, 4096), None);
        assert_eq!(slots(1, 8192, 4096), Some((4096, 1)));
        assert_eq!(slots(0, 4096, 4096), Some((0, 1)));
        assert_eq!(slots(4095, 12288, 4096), Some((4096, 2)));
        let err = Reader::open(&target(512, 1 << 20, Some((100, 200))))
            .err()
            .unwrap();
        assert!(matches!(err, ProbeError::Range { .. }), "{err}");
    }

    fn fake_sysfs(dir: &Path, name: &str, lbs: &str, size: &str) {
        let q = dir.join("block").join(name).join("queue");
        std::fs::create_dir_all(&q).unwrap();
        std::fs::write(q.join("logical_block_size"), lbs).unwrap();
        std::fs::write(dir.join("block").join(name).join("size"), size).unwrap();
    }

    #[test]
    fn geometry_comes_from_sysfs() {
        let sys = tempfile::tempdir().unwrap();
        fake_sysfs(sys.path(), "nvme0n1", "4096\n", "7501476528\n");
        fake_sysfs(sys.path(), "sda", "512\n", "1875385008\n");
        let t = ProbeTarget::from_sysfs(sys.path(), Path::new("/dev"), "nvme0n1").unwrap();
        assert_eq!(t.path, Path::new("/dev/nvme0n1"));
        assert_eq!((t.block_size, t.size_bytes), (4096, 7501476528 * 512));
        assert_eq!(t.io_size(), 4096);
        let t = ProbeTarget::from_sysfs(sys.path(), Path::new("/dev"), "sda").unwrap();
        assert_eq!((t.block_size, t.io_size()), (512, 4096));
    }

    #[test]
    fn bad_sysfs_values_name_the_file() {
        let sys = tempfile::tempdir().unwrap();
        fake_sysfs(sys.path(), "sdb", "abc\n", "10\n");
        fake_sysfs(sys.path(), "sdc", "1000\n", "10\n");
        for dev in ["sdb", "sdc", "sdz"] {
            let e = ProbeTarget::from_sysfs(sys.path(), Path::new("/dev"), dev).unwrap_err();
            let text = e.to_string();
            assert!(text.contains("logical_block_size"), "{text}");
            assert!(text.contains(dev), "{text}");
        }
    }

    #[test]
    fn permission_errors_read_as_such() {
        let e = ProbeError::open(
            Path::new("/dev/sda"),
            io::Error::from_raw_os_error(libc::EPERM),
        );
        assert!(e.is_permission());
        assert_eq!(
            e.to_string(),
            "open /dev/sda: permission denied (the probe needs read access to the block device; run as root or grant the disk group)"
        );
        let e = ProbeError::open(
            Path::new("/dev/sda"),
            io::Error::from_raw_os_error(libc::ENOENT),
        );
        assert!(!e.is_permission());
    }

    #[test]
    fn the_device_is_opened_read_only_with_o_direct() {
        // A regular file on the test machine's disk stands in for a device.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dev");
        std::fs::write(&path, vec![7u8; 64 * 1024]).unwrap();
        let mut t = target(512, 64 * 1024, None);
        t.path = path;
        let mut r = Reader::open(&t).unwrap();
        let flags = OFlag::from_bits_retain(fcntl(&r.file, FcntlArg::F_GETFL).unwrap());
        assert_eq!(flags & OFlag::O_ACCMODE, OFlag::O_RDONLY);
        assert!(flags.contains(OFlag::O_DIRECT));
        assert_eq!(r.buf[r.align..].as_ptr() as usize % 4096, 0);
        let off = r.random_offset(12345);
        r.read_once(off).unwrap();
        assert_eq!(r.buf[r.align], 7);
    }
}
