//! Process-wide settings: the open-file limit and systemd socket
//! activation (the listening socket systemd hands over as fd 3).

use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd};

use nix::sys::resource::{Resource, getrlimit, setrlimit};
use nix::sys::socket::{
    AddressFamily, SockaddrLike, SockaddrStorage, getsockname, getsockopt, sockopt,
};
use nix::sys::stat::{SFlag, fstat};
use thiserror::Error;

/// Raises the soft RLIMIT_NOFILE to the hard limit (the soft default of
/// 1024 is low for a server that caps connections in the thousands).
/// Returns the (soft, hard) limits now in force.
pub fn raise_nofile_limit() -> nix::Result<(u64, u64)> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard)?;
    }
    getrlimit(Resource::RLIMIT_NOFILE)
}

/// Makes every thread allocate from one malloc arena (glibc's
/// `M_ARENA_MAX`), unless `MALLOC_ARENA_MAX` is set in the environment
/// (glibc has applied it already). Left alone, glibc gives each thread that
/// allocates an arena of its own, up to eight per CPU: with a poll thread
/// and a probe thread per drive and the server's threads, each kept about
/// 100 KB of RSS for allocations that are small and rare (the demo after
/// 200 scrapes: 11.3 -> 10.2 MiB). Call before starting threads. Returns
/// whether the setting was made; a no-op (false) off glibc.
pub fn one_malloc_arena() -> bool {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return false;
    }
    #[cfg(target_env = "gnu")]
    {
        // SAFETY: mallopt only sets one of the allocator's tunables; it
        // takes no pointers and is called before other threads exist.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) == 1 }
    }
    #[cfg(not(target_env = "gnu"))]
    false
}

/// The width in columns of the terminal standard output writes to; `None`
/// when it is not a terminal (or the terminal says 0).
pub fn stdout_columns() -> Option<usize> {
    const _: () = assert!(size_of::<libc::winsize>() == 8);
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `struct winsize` (8 bytes, asserted
    // above) through the pointer, which is a live, writable winsize we
    // own; on a descriptor that is no terminal it fails with ENOTTY and
    // writes nothing.
    let r = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &raw mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

/// Gives the allocator's free memory back to the kernel (glibc's
/// `malloc_trim(0)`, which also releases free pages inside the heap, not
/// only at its top). After a burst of connections went — thousands of small
/// per-stream and TLS buffers freed among live ones — glibc keeps the pages
/// otherwise. Walks the heap: call rarely. Returns whether memory was
/// released; a no-op (false) off glibc.
pub fn release_free_memory() -> bool {
    #[cfg(target_env = "gnu")]
    {
        // SAFETY: malloc_trim takes no pointers; it locks the allocator's
        // arenas itself and may be called from any thread at any time.
        unsafe { libc::malloc_trim(0) == 1 }
    }
    #[cfg(not(target_env = "gnu"))]
    false
}

/// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
const LISTEN_FDS_START: i32 = 3;

#[derive(Debug, Error)]
pub enum ActivationError {
    #[error(
        "LISTEN_PID is {0:?}, not this process ({1}); start through systemd/socket-activation/ssd_exporter.socket or drop --web.systemd-socket"
    )]
    NotForUs(Option<String>, u32),
    #[error(
        "LISTEN_FDS is {0:?}; systemd passed no socket (see systemd/socket-activation/ssd_exporter.socket)"
    )]
    NoFds(Option<String>),
    #[error(
        "LISTEN_FDS is {0}: ssd_exporter takes exactly one socket; give the .socket unit one ListenStream="
    )]
    TooMany(u32),
    #[error(
        "fd 3 from systemd is not a listening TCP socket ({0}); use ListenStream= with an address or port"
    )]
    NotTcpListener(String),
}

/// Takes the listening socket systemd passed (fd 3), checking
/// `LISTEN_PID`/`LISTEN_FDS` as sd_listen_fds(3) does and that the fd is
/// a listening TCP socket. Call at most once: the fd is owned afterwards.
pub fn systemd_listener() -> Result<std::net::TcpListener, ActivationError> {
    let pid = std::env::var("LISTEN_PID").ok();
    if pid.as_deref().and_then(|p| p.parse::<u32>().ok()) != Some(std::process::id()) {
        return Err(ActivationError::NotForUs(pid, std::process::id()));
    }
    let fds = std::env::var("LISTEN_FDS").ok();
    let n = match fds.as_deref().and_then(|n| n.parse::<u32>().ok()) {
        Some(0) | None => return Err(ActivationError::NoFds(fds)),
        Some(1) => 1,
        Some(n) => return Err(ActivationError::TooMany(n)),
    };
    debug_assert_eq!(n, 1);
    let bad = |what: String| ActivationError::NotTcpListener(what);
    // SAFETY: LISTEN_PID names this process, so by the sd_listen_fds
    // protocol fd 3 is open and was passed to us; it stays open for the
    // borrow, which ends before this function takes ownership below.
    let fd = unsafe { BorrowedFd::borrow_raw(LISTEN_FDS_START) };
    let stat = fstat(fd).map_err(|e| bad(e.to_string()))?;
    if SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT != SFlag::S_IFSOCK {
        return Err(bad("not a socket".into()));
    }
    if !getsockopt(&fd, sockopt::AcceptConn).map_err(|e| bad(e.to_string()))? {
        return Err(bad("not listening".into()));
    }
    let addr: SockaddrStorage = getsockname(LISTEN_FDS_START).map_err(|e| bad(e.to_string()))?;
    if !matches!(
        addr.family(),
        Some(AddressFamily::Inet | AddressFamily::Inet6)
    ) {
        return Err(bad("not an IPv4 or IPv6 socket".into()));
    }
    // SAFETY: fd 3 is an open listening socket passed to this process
    // (checked above); nothing else in the process owns it, and this
    // function is called once, so the OwnedFd is its only owner.
    let owned = unsafe { OwnedFd::from_raw_fd(LISTEN_FDS_START) };
    let listener = std::net::TcpListener::from(owned);
    listener
        .set_nonblocking(true)
        .map_err(|e| bad(e.to_string()))?;
    Ok(listener)
}

#[cfg(test)]
mod tests;
