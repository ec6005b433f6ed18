//! Reading a file the operator names — `--config.file`, the web config
//! file, the certificate, key and client CA it names, `path.drivedb` — the
//! one way: opened `O_NONBLOCK` (a FIFO put in its place is refused, not
//! waited on for a writer that never comes), refused unless `fstat` says it
//! is a regular file (`/dev/zero` would never end), refused above a size
//! cap before a byte is read, and read through that cap (a file growing
//! while it is read stops there). Blocking like any file read: callers run
//! it before the async runtime starts or on a thread of their own.
//!
//! The error says what is wrong and names the limit; the caller names the
//! file (each caller already prefixes its errors with the path).

use std::fs::File;
use std::io::{self, Read as _};
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::Path;

use thiserror::Error;

/// Why a file was not read.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("is a {0}, not a regular file; name a regular file")]
    NotRegular(&'static str),
    #[error("is larger than {}, the most {what} may hold", size(*.limit))]
    TooLarge { limit: u64, what: &'static str },
    #[error("is not UTF-8 text")]
    NotText,
}

/// How much a kind of file may hold, and what to call it in the error.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub bytes: u64,
    /// "a certificate or key file", "a config file", …
    pub what: &'static str,
}

/// Opens `path` for reading without blocking and checks it is a regular
/// file of at most `limit` bytes; reads nothing.
pub fn open(path: &Path, limit: Limit) -> Result<File, ReadError> {
    open_flags(path, limit, 0)
}

fn open_flags(path: &Path, limit: Limit, flags: i32) -> Result<File, ReadError> {
    // O_NOCTTY: a terminal named by mistake must not become ours.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) if flags & libc::O_NOFOLLOW != 0 => {
                ReadError::NotRegular("symbolic link")
            }
            _ => ReadError::Io(e),
        })?;
    let meta = file.metadata()?;
    let kind = meta.file_type();
    let not = match () {
        _ if kind.is_file() => None,
        _ if kind.is_fifo() => Some("FIFO"),
        _ if kind.is_char_device() => Some("character device"),
        _ if kind.is_block_device() => Some("block device"),
        _ if kind.is_socket() => Some("socket"),
        _ if kind.is_dir() => Some("directory"),
        _ => Some("special file"),
    };
    if let Some(not) = not {
        return Err(ReadError::NotRegular(not));
    }
    if meta.len() > limit.bytes {
        return Err(too_large(limit));
    }
    Ok(file)
}

/// The whole of `path`, at most `limit` bytes (see the module doc).
pub fn read(path: &Path, limit: Limit) -> Result<Vec<u8>, ReadError> {
    read_from(open(path, limit)?, limit)
}

fn read_from(file: File, limit: Limit) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    file.take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// [`read`] of a file the exporter itself writes (the state file), whose
/// last component must not be a symbolic link (`O_NOFOLLOW`): a link put in
/// its place is refused, never followed to a file of someone else's.
pub fn read_own(path: &Path, limit: Limit) -> Result<Vec<u8>, ReadError> {
    read_from(open_flags(path, limit, libc::O_NOFOLLOW)?, limit)
}

/// [`read`], as UTF-8 text.
pub fn read_text(path: &Path, limit: Limit) -> Result<String, ReadError> {
    String::from_utf8(read(path, limit)?).map_err(|_| ReadError::NotText)
}

fn too_large(limit: Limit) -> ReadError {
    ReadError::TooLarge {
        limit: limit.bytes,
        what: limit.what,
    }
}

/// `1 MiB`, `16 MiB`, `512 KiB`, or bytes.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests;
