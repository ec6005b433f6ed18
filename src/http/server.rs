//! The accept loop and graceful shutdown.
//!
//! Each connection runs as its own task in a [`JoinSet`] under hyper-util's
//! [`GracefulShutdown`] watcher. On shutdown the listener is dropped, every
//! connection is told to finish (idle keep-alive connections close at once,
//! busy ones after their current response), and whatever is still running
//! after [`DRAIN_TIMEOUT`] is aborted.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use super::routes::{Shared, handle};
use super::{Exposition, ServerConfig};

/// How long in-flight connections may take to finish after shutdown.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// A client must send its request headers within this time (slowloris guard).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Pause after a transient accept error (e.g. out of file descriptors) so the
/// loop does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serve until `shutdown` resolves, then stop accepting, finish in-flight
/// requests (give up after 1 s) and return.
///
/// Transient accept errors (aborted connections, descriptor or memory
/// exhaustion) are logged and retried; any other accept error stops the
/// server, drains connections as on shutdown and is returned.
pub async fn serve(
    listener: TcpListener,
    app: Arc<dyn Exposition>,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let shared = Arc::new(Shared::new(app, config));
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    let result = loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break Ok(()),
            Some(done) = connections.join_next(), if !connections.is_empty() => {
                if let Err(e) = done {
                    tracing::debug!(error = %e, "connection task ended abnormally");
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let conn = connection(stream, peer, Arc::clone(&shared), &graceful);
                    connections.spawn(conn);
                }
                Err(e) if is_transient(&e) => {
                    tracing::debug!(error = %e, "accept failed; retrying");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
                Err(e) => break Err(e),
            },
        }
    };
    drop(listener);
    drain(graceful, connections).await;
    result
}

/// Builds the future that serves one connection until it closes.
fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    graceful: &GracefulShutdown,
) -> impl Future<Output = ()> + Send + 'static {
    let service = service_fn(move |req| handle(Arc::clone(&shared), req));
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service);
    let watched = graceful.watch(conn);
    async move {
        if let Err(e) = watched.await {
            tracing::debug!(%peer, error = %e, "connection error");
        }
    }
}

/// Signals every connection to finish and waits up to [`DRAIN_TIMEOUT`];
/// aborts the rest.
async fn drain(graceful: GracefulShutdown, mut connections: JoinSet<()>) {
    if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::debug!("connections still busy after the drain timeout; aborting them");
    }
    connections.shutdown().await;
}

fn is_transient(e: &io::Error) -> bool {
    use io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted
            | ConnectionReset
            | ConnectionRefused
            | Interrupted
            | WouldBlock
            | TimedOut
    ) || matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}
