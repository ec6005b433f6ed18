//! The state file on disk: its format (a header line, then the payload),
//! the atomic write and the checked read, and the directory it lives in
//! (created if missing, locked against a second exporter).
//!
//! ```text
//! {"format":"ssd_exporter state","version":1,"bytes":1234,"sha256":"…"}
//! {"saved_at_ms":…,"drives":[…]}
//! ```
//!
//! The header says how long the payload is and what its SHA-256 is, over
//! the payload's exact bytes, so a torn or edited file is caught before a
//! byte of it is parsed as state (`tail -n +2 state.json | jq` shows it).
//! SHA-256 because the crate already has it (`sha2`, for basic auth): a
//! CRC would need a crate of its own and catch no more here. It is a check
//! against damage, not against someone who can write the file: they can
//! write the checksum too.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::record::Payload;

/// The file's name in `state.path`.
pub const FILE_NAME: &str = "state.json";
/// Where a save is written before it is renamed over [`FILE_NAME`].
const TMP_NAME: &str = "state.json.tmp";
/// Where a file that was not loaded, or not wholly believed, is kept, so
/// that the next save does not destroy what an operator (or a newer
/// exporter) may want back. The ones before it are `state.json.bad.1`
/// (the next newest) to `.3`: [`BAD_KEPT`] in all.
pub const BAD_NAME: &str = "state.json.bad";
/// How many kept files there are at most, the newest first.
pub const BAD_KEPT: usize = 4;

/// What the header's `format` says.
const FORMAT: &str = "ssd_exporter state";
/// The layout written. A reader ignores fields it does not know, so a new
/// field with a default needs no new version; one an older reader would
/// misread does.
pub const VERSION: u32 = 1;

/// The largest state file written or read (a drive takes 1-3 KiB; at the
/// drive cap with long histories the oldest drives are left out).
pub const LIMIT: crate::files::Limit = crate::files::Limit {
    bytes: 8 << 20,
    what: "a state file",
};

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    bytes: u64,
    sha256: String,
}

/// Why a state file was not loaded.
#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{0}")]
    Read(#[from] crate::files::ReadError),
    #[error("is not an ssd_exporter state file ({0})")]
    Corrupt(String),
    #[error("is of format version {0}, newer than this exporter's {VERSION}")]
    Future(u32),
}

fn corrupt(why: impl Into<String>) -> LoadError {
    LoadError::Corrupt(why.into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file's bytes for `payload`.
pub fn encode(payload: &Payload) -> Vec<u8> {
    // A payload of plain structs, maps with string keys and finite numbers
    // (the histories refuse others) always serializes.
    let body = serde_json::to_vec(payload).unwrap_or_default();
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        bytes: body.len() as u64,
        sha256: hex(&Sha256::digest(&body)),
    };
    let mut out = serde_json::to_vec(&header).unwrap_or_default();
    out.push(b'\n');
    out.extend_from_slice(&body);
    out
}

/// [`encode`], within [`LIMIT`]: the least recently seen drives (the
/// payload's last) are left out until it fits. Also the number left out.
pub fn encode_capped(mut payload: Payload) -> (Vec<u8>, usize) {
    let mut dropped = 0;
    loop {
        let bytes = encode(&payload);
        let over = bytes.len() as u64 > LIMIT.bytes;
        if !over || payload.drives.is_empty() {
            return (bytes, dropped);
        }
        // Drop about as many drives as the excess holds, at least one.
        let n = payload.drives.len() as u64;
        let per_drive = (bytes.len() as u64 / n).max(1);
        let cut = ((bytes.len() as u64 - LIMIT.bytes) / per_drive + 1).min(n) as usize;
        payload.drives.truncate(payload.drives.len() - cut);
        dropped += cut;
    }
}

/// The payload of a file's bytes, checked: header, version, length and
/// checksum before the payload is parsed.
pub fn decode(bytes: &[u8]) -> Result<Payload, LoadError> {
    let nl = memchr::memchr(b'\n', bytes).ok_or_else(|| corrupt("no header line"))?;
    let header: Header =
        serde_json::from_slice(&bytes[..nl]).map_err(|e| corrupt(format!("header: {e}")))?;
    if header.format != FORMAT {
        return Err(corrupt(format!("format {:?}", header.format)));
    }
    if header.version > VERSION {
        return Err(LoadError::Future(header.version));
    }
    if header.version == 0 {
        return Err(corrupt("version 0"));
    }
    let body = &bytes[nl + 1..];
    if body.len() as u64 != header.bytes {
        return Err(corrupt(format!(
            "{} payload bytes where the header says {}",
            body.len(),
            header.bytes
        )));
    }
    if hex(&Sha256::digest(body)) != header.sha256 {
        return Err(corrupt("checksum mismatch"));
    }
    serde_json::from_slice(body).map_err(|e| corrupt(format!("payload: {e}")))
}

/// Why the state directory cannot be used.
#[derive(Debug, Error)]
pub enum OpenError {
    #[error("cannot create it: {0}")]
    Create(io::Error),
    #[error("cannot open it: {0}")]
    Open(io::Error),
    #[error("another ssd_exporter holds its lock")]
    Locked,
    #[error(
        "the directory {0}: not used for state, as sshd's StrictModes refuses such a directory (chown it to the exporter's user and chmod 700)"
    )]
    Unsafe(String),
    #[error("cannot lock it: {0}")]
    Lock(nix::Error),
}

/// Refuses a state directory that someone other than this process's user
/// (or root) could fill with a file of their choosing: not owned by the
/// effective user or root, or writable by group or others, as sshd's
/// StrictModes refuses such a home or `.ssh`. `uid` and `mode` are the
/// directory's, `me` the process's effective uid.
pub fn check_owner(uid: u32, mode: u32, me: u32) -> Result<(), OpenError> {
    if uid != me && uid != 0 {
        let why = format!("is owned by uid {uid}, not this process's uid {me} or root");
        return Err(OpenError::Unsafe(why));
    }
    let mode = mode & 0o7777;
    if mode & 0o022 != 0 {
        let why = format!("is writable by group or others (mode {mode:04o})");
        return Err(OpenError::Unsafe(why));
    }
    Ok(())
}

/// The state directory, locked for this process (`flock` on the directory
/// itself: released when the process ends, however it ends).
#[derive(Debug)]
pub struct StateDir {
    path: PathBuf,
    dir: Flock<File>,
    /// Whether saves can succeed (the directory is writable).
    pub writable: bool,
}

impl StateDir {
    /// Creates `path` if missing (mode 0700: the histories are nobody
    /// else's business) and locks it. Blocking.
    pub fn open(path: &Path) -> Result<StateDir, OpenError> {
        if !path.is_dir() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(path)
                .map_err(OpenError::Create)?;
        }
        let dir = File::open(path).map_err(OpenError::Open)?;
        let meta = dir.metadata().map_err(OpenError::Open)?;
        let me = nix::unistd::geteuid().as_raw();
        check_owner(meta.uid(), meta.mode(), me)?;
        let dir = Flock::lock(dir, FlockArg::LockExclusiveNonblock).map_err(|(_, e)| match e {
            nix::Error::EWOULDBLOCK => OpenError::Locked,
            e => OpenError::Lock(e),
        })?;
        let writable = nix::unistd::access(path, nix::unistd::AccessFlags::W_OK).is_ok();
        Ok(StateDir {
            path: path.to_path_buf(),
            dir,
            writable,
        })
    }

    /// The state file's path.
    pub fn file(&self) -> PathBuf {
        self.path.join(FILE_NAME)
    }

    /// The saved payload; `Ok(None)` when there is no file yet. Read
    /// through [`crate::files::read_own`]: regular files only, never
    /// through a symbolic link, capped. Blocking.
    pub fn load(&self) -> Result<Option<Payload>, LoadError> {
        match crate::files::read_own(&self.file(), LIMIT) {
            Err(crate::files::ReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
            Ok(bytes) => decode(&bytes).map(Some),
        }
    }

    /// The `n`th newest kept file's path (0: [`BAD_NAME`]).
    pub fn kept(&self, n: usize) -> PathBuf {
        match n {
            0 => self.path.join(BAD_NAME),
            n => self.path.join(format!("{BAD_NAME}.{n}")),
        }
    }

    /// Keeps the state file as [`BAD_NAME`] before a save can replace it:
    /// a hard link (the file stays in place, so a crash before the next
    /// save loses nothing), the older kept files each moved one place on
    /// and the oldest past [`BAD_KEPT`] removed. The same file kept again
    /// (a restart before a save replaced it) is kept once. Never follows a
    /// symbolic link: a link is renamed or linked as itself.
    pub fn keep_aside(&self) -> io::Result<()> {
        use std::os::unix::fs::MetadataExt as _;
        let inode = |p: &Path| std::fs::symlink_metadata(p).map(|m| (m.dev(), m.ino()));
        if inode(&self.file())? == inode(&self.kept(0)).ok().unwrap_or_default() {
            return Ok(());
        }
        for n in (0..BAD_KEPT).rev() {
            let result = match n + 1 {
                BAD_KEPT => std::fs::remove_file(self.kept(n)),
                _ => std::fs::rename(self.kept(n), self.kept(n + 1)),
            };
            match result {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        std::fs::hard_link(self.file(), self.kept(0))
    }

    /// Replaces the state file with `bytes`, atomically: a temporary file
    /// created `O_EXCL|O_NOFOLLOW` (a stale one from a killed process is
    /// removed first), written and fsynced, renamed over the file, then the
    /// directory fsynced so the rename itself survives a power cut. A crash
    /// at any point leaves the old file or the new one, never a mix.
    /// Blocking.
    pub fn save(&self, bytes: &[u8]) -> io::Result<()> {
        let tmp = self.path.join(TMP_NAME);
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let written = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, self.file())
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written?;
        self.dir.sync_all()
    }
}
