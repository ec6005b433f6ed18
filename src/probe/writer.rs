//! The opt-in write probe: timed 4 KiB writes into one file of its own, on a
//! filesystem that must sit on the drive whose metrics the writes feed.
//!
//! # What it writes, and where
//!
//! Only `<dir>/ssd_exporter-probe.dat` ([`DATA_FILE`]), created with
//! `O_CREAT | O_EXCL` and filled once to `max_bytes`, so every later probe
//! write overwrites allocated blocks (no allocation, so no filesystem metadata
//! for `fdatasync` to journal). Block 0 holds a header with a random token;
//! probe writes go to the other blocks. Beside it,
//! `<dir>/ssd_exporter-probe.id` ([`MARKER_FILE`]) holds the data file's
//! inode number and the same token. On a restart an existing data file is
//! reused only if the marker's inode and token match the file's inode and
//! header: a file the exporter did not create (or a marker copied next to
//! another file) is refused, never overwritten. If the exporter dies between
//! creating the data file and its marker, the next start refuses the
//! orphan and says to delete it.
//!
//! Neither file is ever opened through a symlink (`O_NOFOLLOW`), and an
//! existing one is opened `O_NONBLOCK` and must be a regular file, so a
//! FIFO or device node planted under either name is refused rather than
//! blocking the probe thread in `open`; both write descriptors are checked
//! against the inode that was created or verified. The data file is at most
//! [`MAX_BYTES`] and is only created when it takes at most half of the
//! filesystem's free space.
//!
//! [`WriteProbe::create`] also refuses a `dir` that is a device node, a
//! filesystem not backed by a block device (tmpfs, overlay, NFS, a btrfs
//! subvolume's anonymous device), a device-mapper or md volume (which drive
//! receives the writes cannot be told), and a filesystem on any drive other
//! than the expected one.
//!
//! # The two kinds of write (the `op` label)
//!
//! - `op="write"` ([`WriteMode::Direct`]): one `pwrite` on an
//!   `O_DIRECT | O_DSYNC` descriptor: the data reaches the drive and the
//!   drive acknowledges it as durable (FUA or a cache flush) before the call
//!   returns. This is the drive's durable-write latency.
//! - `op="flush"` ([`WriteMode::Flush`]): a buffered `pwrite` then
//!   `fdatasync`, timed together: what a database's commit pays, including
//!   the page cache and the cache flush.
//!
//! # Wear cost
//!
//! Bytes written per day = 4096 B × rate × 86 400 s. At the default
//! [`DEFAULT_WRITE_RATE`] of 0.2 writes/s that is 70 778 880 B ≈ 71 MB/day
//! (≈ 26 GB/year), plus `max_bytes` (default 64 MiB) once when the file is
//! created. A 960 GB drive rated at 1 drive-write-per-day absorbs 960 GB/day,
//! so the probe uses 71 MB / 960 GB ≈ 0.007 % of its rated endurance; a
//! 480 GB client drive rated at 0.3 DWPD (144 GB/day), ≈ 0.05 %. Small random
//! writes may cost the flash more than 4 KiB each (write amplification), so
//! treat these as host-side figures. At 0.02 writes/s all of them are ten
//! times smaller.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::op::ProbeOp;
use super::reader::{IO_SIZE, ProbeError};

pub const DATA_FILE: &str = "ssd_exporter-probe.dat";
pub const MARKER_FILE: &str = "ssd_exporter-probe.id";
/// Default cap on the data file's size.
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;
/// The largest data file the probe creates: it is written in full once.
pub const MAX_BYTES: u64 = 1 << 30;
/// A marker is three short lines; anything longer is not ours.
const MARKER_MAX_LEN: u64 = 4096;
/// Default write probes per second (see the wear arithmetic above).
pub const DEFAULT_WRITE_RATE: f64 = 0.2;
const MAGIC: &str = "ssd_exporter write probe";

/// Which write the probe issues; [`WriteMode::op`] is its `op` label value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// `O_DIRECT | O_DSYNC` pwrite: `op="write"`.
    #[default]
    Direct,
    /// Buffered pwrite + `fdatasync`: `op="flush"`.
    Flush,
}

impl WriteMode {
    pub fn op(self) -> ProbeOp {
        match self {
            WriteMode::Direct => ProbeOp::Write,
            WriteMode::Flush => ProbeOp::Flush,
        }
    }
}

/// The write probe's open file.
pub struct WriteProbe {
    direct: File,
    buffered: File,
    path: PathBuf,
    io_size: u32,
    /// Data blocks after the header block.
    slots: u64,
    buf: Vec<u8>,
    align: usize,
}

fn refuse(dir: &Path, reason: impl Into<String>) -> ProbeError {
    ProbeError::WriteRefused {
        dir: dir.into(),
        reason: reason.into(),
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ProbeError + '_ {
    move |source| ProbeError::WriteIo {
        path: path.into(),
        source,
    }
}

/// The drive (kernel name) holding block device `major:minor`, from
/// `<sysfs>/dev/block/M:m`: a partition's drive is its parent folder.
pub fn disk_of_dev(sysfs: &Path, major: u64, minor: u64) -> Result<String, String> {
    let link = sysfs.join("dev/block").join(format!("{major}:{minor}"));
    let real = std::fs::canonicalize(&link).map_err(|_| {
        format!(
            "its filesystem is not on a block device (no {}; tmpfs, overlay, NFS or a btrfs subvolume?); use a directory on a filesystem on the drive itself",
            link.display()
        )
    })?;
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let me = name(&real).unwrap_or_default();
    if real.join("dm").is_dir() {
        return Err(format!(
            "its filesystem is on device-mapper volume {me} (LVM, LUKS, …), so which drive receives the writes cannot be told; use a directory on a plain partition of the drive"
        ));
    }
    if real.join("md").is_dir() {
        return Err(format!(
            "its filesystem is on md RAID {me}, so which drive receives the writes cannot be told; use a directory on a plain partition of the drive"
        ));
    }
    if real.join("partition").is_file() {
        return real
            .parent()
            .and_then(name)
            .ok_or_else(|| format!("cannot find the drive of partition {me}"));
    }
    Ok(me)
}

/// The drive holding `dir`'s filesystem.
pub fn disk_of(dir: &Path, sysfs: &Path) -> Result<String, ProbeError> {
    let meta = std::fs::metadata(dir).map_err(io_err(dir))?;
    let dev = meta.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    disk_of_dev(sysfs, major, minor).map_err(|r| refuse(dir, r))
}

impl WriteProbe {
    /// Creates or reuses the probe file in `dir` after the checks described
    /// in the module docs. `expected_disk` is the kernel name of the drive
    /// the results are reported for (`nvme0n1`, `sda`).
    pub fn create(
        dir: &Path,
        expected_disk: &str,
        sysfs: &Path,
        max_bytes: u64,
    ) -> Result<WriteProbe, ProbeError> {
        if max_bytes > MAX_BYTES {
            return Err(refuse(
                dir,
                format!("max_bytes {max_bytes} is above the {MAX_BYTES}-byte (1 GiB) limit"),
            ));
        }
        let meta = std::fs::metadata(dir).map_err(io_err(dir))?;
        let ft = meta.file_type();
        use std::os::unix::fs::FileTypeExt;
        if ft.is_block_device() || ft.is_char_device() {
            return Err(refuse(
                dir,
                "it is a device node; the write probe only writes into a file of its own in a directory",
            ));
        }
        if !ft.is_dir() {
            return Err(refuse(dir, "not a directory"));
        }
        let disk = disk_of(dir, sysfs)?;
        if disk != expected_disk {
            return Err(refuse(
                dir,
                format!(
                    "its filesystem is on {disk}, not on {expected_disk}; choose a directory on a filesystem on {expected_disk}"
                ),
            ));
        }
        let lbs = std::fs::read_to_string(
            sysfs
                .join("block")
                .join(&disk)
                .join("queue/logical_block_size"),
        )
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .filter(|b| b.is_power_of_two())
        .unwrap_or(IO_SIZE);
        let io_size = lbs.max(IO_SIZE);
        let path = dir.join(DATA_FILE);
        let marker = dir.join(MARKER_FILE);
        let (len, ino) = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                create_files(dir, &path, &marker, io_size, max_bytes)?
            }
            Err(e) => return Err(io_err(&path)(e)),
            Ok(_) => verify_existing(dir, &path, &marker, io_size, meta.dev())?,
        };
        let slots = (len.min(max_bytes) / u64::from(io_size)).saturating_sub(1);
        if slots == 0 {
            return Err(refuse(
                dir,
                format!(
                    "max_bytes {max_bytes} leaves no room for a {io_size}-byte probe block after the header"
                ),
            ));
        }
        // Both descriptors must be the file just created or verified: the
        // path could have been swapped for another file in between.
        let open = |flags| -> Result<File, ProbeError> {
            let file = open_regular(&path, true, flags).map_err(io_err(&path))?;
            let m = file.metadata().map_err(io_err(&path))?;
            if m.ino() != ino || m.dev() != meta.dev() {
                return Err(refuse(
                    dir,
                    format!("{} changed while it was being opened", path.display()),
                ));
            }
            Ok(file)
        };
        let direct = open(libc::O_DIRECT | libc::O_DSYNC)?;
        let buffered = open(0)?;
        let size = io_size as usize;
        let buf = vec![0u8; 2 * size];
        let align = buf.as_ptr().align_offset(size);
        Ok(WriteProbe {
            direct,
            buffered,
            path,
            io_size,
            slots,
            buf,
            align,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An aligned offset in the data blocks (never block 0, the header).
    pub fn random_offset(&self, u: u64) -> u64 {
        (1 + u % self.slots) * u64::from(self.io_size)
    }

    /// One probe write of `io_size` fresh random bytes at `offset`, timed.
    pub fn write(&mut self, mode: WriteMode, offset: u64) -> io::Result<Duration> {
        assert!(
            offset >= u64::from(self.io_size),
            "the header block is never overwritten"
        );
        let buf = &mut self.buf[self.align..self.align + self.io_size as usize];
        fastrand::fill(buf);
        let started = Instant::now();
        let n = match mode {
            WriteMode::Direct => self.direct.write_at(buf, offset)?,
            WriteMode::Flush => {
                let n = self.buffered.write_at(buf, offset)?;
                self.buffered.sync_data()?;
                n
            }
        };
        let elapsed = started.elapsed();
        if n != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("short write: {n} of {} bytes", buf.len()),
            ));
        }
        Ok(elapsed)
    }
}

/// Opens an existing probe file for reading or writing, with `flags`,
/// without following a symlink and without blocking (a FIFO planted in its
/// place would otherwise block `open` until someone opened the other end),
/// then checks it is a regular file. `O_NONBLOCK` changes nothing for a
/// regular file's I/O.
fn open_regular(path: &Path, write: bool, flags: i32) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(flags | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Refuses a data file of `len` bytes that would take more than half of
/// the `available` bytes: a probe must never be what fills a filesystem.
fn check_free_space(dir: &Path, len: u64, available: u64) -> Result<(), ProbeError> {
    if len > available / 2 {
        return Err(refuse(
            dir,
            format!(
                "its filesystem has {available} bytes free, and the {len}-byte probe file may take at most half; lower probe.write.max_bytes or free space"
            ),
        ));
    }
    Ok(())
}

fn new_token() -> String {
    format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..))
}

fn header(token: &str) -> String {
    format!("{MAGIC}\ntoken={token}\n")
}

/// `(inode, token)` from a marker file, if it is one of ours (a regular
/// file, not a symlink, FIFO or device, of a marker's size).
fn read_marker(marker: &Path) -> Option<(u64, String)> {
    let file = open_regular(marker, false, 0).ok()?;
    let mut text = String::new();
    file.take(MARKER_MAX_LEN).read_to_string(&mut text).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let ino = lines.next()?.strip_prefix("inode=")?.parse().ok()?;
    let token = lines.next()?.strip_prefix("token=")?.to_string();
    Some((ino, token))
}

/// Creates the data file (`O_EXCL`), fills it, then writes the marker.
/// Returns the file's length and inode.
fn create_files(
    dir: &Path,
    path: &Path,
    marker: &Path,
    io_size: u32,
    max_bytes: u64,
) -> Result<(u64, u64), ProbeError> {
    if std::fs::symlink_metadata(marker).is_ok() {
        if read_marker(marker).is_none() {
            return Err(refuse(
                dir,
                format!(
                    "{} exists and was not written by ssd_exporter; remove it or choose another directory",
                    marker.display()
                ),
            ));
        }
        // Our own marker for a data file that is gone: stale.
        std::fs::remove_file(marker).map_err(io_err(marker))?;
    }
    let len = (max_bytes / u64::from(io_size)) * u64::from(io_size);
    if len < 2 * u64::from(io_size) {
        return Err(refuse(
            dir,
            format!("max_bytes {max_bytes} is below two {io_size}-byte blocks"),
        ));
    }
    let fs = nix::sys::statvfs::statvfs(dir).map_err(|e| io_err(dir)(e.into()))?;
    // fsblkcnt_t and c_ulong are 32-bit on some targets.
    #[allow(clippy::useless_conversion)]
    let available = u64::from(fs.blocks_available()).saturating_mul(u64::from(fs.fragment_size()));
    check_free_space(dir, len, available)?;
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(io_err(path))?;
    let token = new_token();
    let mut block = vec![0u8; 1 << 20];
    let head = header(&token);
    let mut written = 0u64;
    while written < len {
        let n = (len - written).min(block.len() as u64) as usize;
        fastrand::fill(&mut block[..n]);
        if written == 0 {
            block[..io_size as usize].fill(0);
            block[..head.len()].copy_from_slice(head.as_bytes());
        }
        file.write_all(&block[..n]).map_err(io_err(path))?;
        written += n as u64;
    }
    file.sync_all().map_err(io_err(path))?;
    let ino = file.metadata().map_err(io_err(path))?.ino();
    let mut m = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(marker)
        .map_err(io_err(marker))?;
    m.write_all(format!("{MAGIC}\ninode={ino}\ntoken={token}\n").as_bytes())
        .and_then(|_| m.sync_all())
        .map_err(io_err(marker))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))?;
    Ok((len, ino))
}

/// Accepts an existing data file only if the marker names its inode and its
/// header carries the marker's token; returns its length and inode.
fn verify_existing(
    dir: &Path,
    path: &Path,
    marker: &Path,
    io_size: u32,
    dir_dev: u64,
) -> Result<(u64, u64), ProbeError> {
    let foreign = || {
        refuse(
            dir,
            format!(
                "{} exists and was not created by ssd_exporter (no matching {MARKER_FILE}); remove it or choose another directory",
                path.display()
            ),
        )
    };
    let (ino, token) = read_marker(marker).ok_or_else(foreign)?;
    let mut file = open_regular(path, false, 0).map_err(|_| foreign())?;
    let meta = file.metadata().map_err(io_err(path))?;
    if meta.ino() != ino || meta.dev() != dir_dev {
        return Err(foreign());
    }
    let head = header(&token);
    let mut got = vec![0u8; head.len()];
    file.read_exact(&mut got).map_err(|_| foreign())?;
    if got != head.as_bytes() || meta.len() < 2 * u64::from(io_size) {
        return Err(foreign());
    }
    Ok((meta.len(), ino))
}

#[cfg(test)]
mod tests;
