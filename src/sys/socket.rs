//! Sockets: what the kernel holds for one that the process has not read.

use std::os::fd::RawFd;

/// Bytes received on the socket `fd` and not read yet (`FIONREAD`); 0 if
/// there are none or `fd` is not an open socket.
pub fn unread_bytes(fd: RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one c_int through the pointer, which points
    // at `n`, alive for the call. A closed or unrelated descriptor makes
    // ioctl fail (EBADF, ENOTTY) without writing; nothing else is touched.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    if r == 0 { n.max(0) as usize } else { 0 }
}
