//! A connection's socket, watched: each read that brings bytes and each
//! write that takes some is noted on the connection's [`Conn`], which is
//! how the connection cap tells a client making progress from one that
//! went quiet, and one waiting on its client from one the server owes.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::limits::Conn;

/// A connection's socket that notes on its [`Conn`] each read that brings
/// bytes, so a client making progress (through its TLS handshake, with its
/// request) is not the one closed for room.
pub(crate) struct Watched<T> {
    io: T,
    conn: Arc<Conn>,
}

impl<T> Watched<T> {
    pub(crate) fn new(io: T, conn: &Arc<Conn>) -> Self {
        Watched {
            io,
            conn: Arc::clone(conn),
        }
    }

    /// A write that took bytes hands the next move to the client.
    fn note(&self, wrote: &Poll<std::io::Result<usize>>) {
        if matches!(wrote, Poll::Ready(Ok(n)) if *n > 0) {
            self.conn.note_wrote();
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.conn.note_polled();
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.conn.note_read(Instant::now());
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let wrote = Pin::new(&mut self.io).poll_write(cx, buf);
        self.note(&wrote);
        wrote
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let wrote = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.note(&wrote);
        wrote
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
