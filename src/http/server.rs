//! The accept loop, TLS, the connection cap and graceful shutdown.
//!
//! Each connection runs as its own task in a [`JoinSet`]. On shutdown the
//! listener is dropped and every connection is told to finish (idle
//! keep-alive connections close at once, busy ones after their current
//! response); whatever is still running after [`DRAIN_TIMEOUT`] is aborted.
//!
//! The loop keeps accepting through every accept error; on descriptor
//! exhaustion (EMFILE, ENFILE) it closes an idle connection to free one and
//! backs off, doubling from 5 ms to 1 s, as Go's net/http does. It also
//! runs the connections' timers (`limits`: the send timeout, HTTP/2's idle
//! limit) once a second.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulConnection;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::body::Body;
use super::limits::Registered;
use super::routes::{Shared, handle};
use super::timeouts::Timeouts;
use super::watched::Watched;
use super::{Exposition, ServerConfig};

/// How long in-flight connections may take to finish after shutdown.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// Default of `web.listen_address`: every interface, port 10049 (free in
/// the Prometheus default-port allocations).
pub const DEFAULT_LISTEN_ADDRESS: &str = ":10049";

/// Default and upper bound of `web.max_connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
pub const MAX_MAX_CONNECTIONS: usize = 16384;

/// At the cap, how long the accept loop waits for connection tasks that
/// have not run yet before looking again.
const UNPOLLED_WAIT: Duration = Duration::from_millis(1);

/// Concurrent requests on one HTTP/2 connection.
const H2_MAX_STREAMS: u32 = 16;

/// Back-off after an accept error: first, and most.
const BACKOFF_MIN: Duration = Duration::from_millis(5);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Serve until `shutdown` resolves, then stop accepting, finish in-flight
/// requests (give up after 1 s) and return.
///
/// Accept errors are logged and retried with back-off; the only error
/// returned is one that says the listening socket itself is unusable.
pub async fn serve(
    listener: TcpListener,
    app: Arc<dyn Exposition>,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let max = config.max_connections.clamp(1, MAX_MAX_CONNECTIONS);
    let web = Arc::clone(&config.web);
    let timeouts = config.timeouts;
    let shared = Arc::new(Shared::new(app, config));
    let tracker = Arc::clone(&shared.tracker);
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut backoff = BACKOFF_MIN;
    let mut trim = Trim::default();
    let mut sweep = tokio::time::interval(timeouts.tick());
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    let result = 'accept: loop {
        let at_cap = tracker.len() >= max;
        let room = !at_cap || tracker.can_evict(Instant::now(), timeouts.grace);
        tokio::select! {
            biased;
            () = &mut shutdown => break Ok(()),
            Some(done) = connections.join_next(), if !connections.is_empty() => {
                if let Some(e) = done.as_ref().err().filter(|e| !e.is_cancelled()) {
                    tracing::debug!(error = %e, "connection task ended abnormally");
                }
            }
            // Without connections there is nothing to sweep: no wake-up a
            // second while idle (but one more look after a crowd, to trim).
            _ = sweep.tick(), if tracker.len() > 0 || trim.pending() => {
                let closed = tracker.sweep(Instant::now(), &timeouts);
                if closed > 0 {
                    tracing::debug!(closed, "closed connections past their send or idle timeout");
                }
                trim.look(tracker.len());
            }
            () = tracker.changed.notified(), if at_cap => {}
            // At the cap with only connections not yet read once to close:
            // let their tasks run first.
            () = tokio::time::sleep(UNPOLLED_WAIT), if !room && tracker.has_idle() => {}
            accepted = listener.accept(), if room => match accepted {
                Ok((stream, peer)) => {
                    backoff = BACKOFF_MIN;
                    // A response goes out in more than one write over TLS
                    // (records); with Nagle each keep-alive reply after the
                    // first waited for the client's delayed ACK (~40 ms).
                    let _ = stream.set_nodelay(true);
                    let now = Instant::now();
                    if tracker.len() >= max {
                        tracker.evict_one(now, timeouts.grace);
                    }
                    let registered = tracker.register(now);
                    registered.conn.set_fd(stream.as_raw_fd());
                    let conn = connection(
                        stream,
                        peer,
                        Arc::clone(&shared),
                        web.current().tls.clone(),
                        registered,
                        stop_rx.clone(),
                    );
                    connections.spawn(conn);
                }
                Err(e) if listener_unusable(&e) => break Err(e),
                Err(e) => {
                    if exhausted(&e) {
                        let freed = tracker.evict_one(Instant::now(), timeouts.grace);
                        tracing::warn!(error = %e, closed_idle = freed, "accept failed: out of file descriptors (raise LimitNOFILE= or lower web.max_connections)");
                    } else {
                        tracing::debug!(error = %e, "accept failed; retrying");
                    }
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = &mut shutdown => break 'accept Ok(()),
                    }
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            },
        }
    };
    drop(listener);
    let _ = stop_tx.send(true);
    drain(connections).await;
    result
}

/// Serves one connection until it closes.
///
/// Plain HTTP/1 is awaited inline; TLS (with its h2 branch) is boxed, so
/// the future spawned for every connection stays small: inline, the TLS
/// and HTTP/2 states made it 8.5 KB, copied on each spawn.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<Shared>,
    tls: Option<Arc<rustls::ServerConfig>>,
    registered: Registered,
    stop: watch::Receiver<bool>,
) {
    let stream = Watched::new(stream, &registered.conn);
    match tls {
        None => serve_http(TokioIo::new(stream), peer, shared, registered, stop).await,
        Some(tls) => Box::pin(serve_tls(stream, peer, shared, tls, registered, stop)).await,
    }
}

/// The TLS handshake (bounded by [`Timeouts::handshake`]), then HTTP/2
/// when ALPN chose it, else HTTP/1.
async fn serve_tls(
    stream: Watched<TcpStream>,
    peer: SocketAddr,
    shared: Arc<Shared>,
    tls: Arc<rustls::ServerConfig>,
    registered: Registered,
    mut stop: watch::Receiver<bool>,
) {
    let acceptor = tokio_rustls::TlsAcceptor::from(tls);
    let limit = shared.config.timeouts.handshake;
    let handshake = tokio::time::timeout(limit, acceptor.accept(stream));
    let stream = tokio::select! {
        done = handshake => match done {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                tracing::debug!(%peer, error = %e, "TLS handshake failed");
                return;
            }
            Err(_) => {
                tracing::debug!(%peer, "TLS handshake timed out");
                return;
            }
        },
        () = registered.conn.evict.notified() => return,
        () = stopped(&mut stop) => return,
    };
    if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
        Box::pin(serve_h2(
            TokioIo::new(stream),
            peer,
            shared,
            registered,
            stop,
        ))
        .await;
    } else {
        serve_http(TokioIo::new(stream), peer, shared, registered, stop).await;
    }
}

/// The service every connection runs: [`handle`], with the connection
/// marked in a request while it runs and its response as being sent until
/// hyper drops the body.
fn service(
    shared: Arc<Shared>,
    registered: &Arc<Registered>,
) -> impl hyper::service::Service<
    hyper::Request<hyper::body::Incoming>,
    Response = hyper::Response<Body>,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<hyper::Response<Body>, std::convert::Infallible>>
             + Send
             + 'static,
> + Clone
+ Send
+ 'static {
    let reg = Arc::clone(registered);
    service_fn(move |req| {
        let busy = reg.request();
        let shared = Arc::clone(&shared);
        let reg = Arc::clone(&reg);
        async move {
            let resp = handle(shared, req, &busy).await;
            drop(busy);
            resp.map(|r| {
                r.map(|body| {
                    let sending = reg.sending(body.holds_slot());
                    body.sending(sending)
                })
            })
        }
    })
}

async fn serve_http<I>(
    io: TokioIo<I>,
    peer: SocketAddr,
    shared: Arc<Shared>,
    registered: Registered,
    stop: watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let registered = Arc::new(registered);
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(shared.config.timeouts.idle)
        .serve_connection(io, service(shared, &registered));
    drive(conn, peer, &registered, stop).await;
}

/// HTTP/2, negotiated by ALPN over TLS (`http_server_config.http2`).
async fn serve_h2<I>(
    io: TokioIo<I>,
    peer: SocketAddr,
    shared: Arc<Shared>,
    registered: Registered,
    stop: watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let registered = Arc::new(registered);
    registered
        .conn
        .h2
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let t: Timeouts = shared.config.timeouts;
    // A peer that stops answering PINGs is gone: its connection, and what
    // its streams hold, are dropped.
    let conn = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
        .timer(TokioTimer::new())
        .max_concurrent_streams(H2_MAX_STREAMS)
        .keep_alive_interval(t.ping_interval)
        .keep_alive_timeout(t.ping_timeout)
        .serve_connection(io, service(shared, &registered));
    drive(conn, peer, &registered, stop).await;
}

/// Runs a connection until it ends, is evicted (closed at once: it is not
/// in a request) or shutdown asks it to finish.
async fn drive<C>(
    conn: C,
    peer: SocketAddr,
    registered: &Registered,
    mut stop: watch::Receiver<bool>,
) where
    C: GracefulConnection,
    C::Error: std::fmt::Display,
{
    tokio::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => r,
        () = registered.conn.evict.notified() => return,
        () = stopped(&mut stop) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, error = %e, "connection error");
    }
}

/// Gives memory back after a crowd of connections went: their TLS and
/// HTTP/2 buffers, freed among live allocations, would otherwise stay in
/// the process (250 HTTP/2 connections with 4,000 streams: 19 MiB kept).
#[derive(Debug, Default)]
struct Trim {
    /// The most connections open since the last trim.
    peak: usize,
}

impl Trim {
    /// At least this many connections make a crowd.
    const CROWD: usize = 64;

    /// A crowd was seen and not trimmed after yet.
    fn pending(&self) -> bool {
        self.peak >= Self::CROWD
    }

    fn look(&mut self, open: usize) {
        self.peak = self.peak.max(open);
        if self.peak >= Self::CROWD && open <= self.peak / 4 {
            self.peak = open;
            // It walks the heap: not on an async thread.
            tokio::task::spawn_blocking(crate::sys::process::release_free_memory);
        }
    }
}

/// Resolves once shutdown has been signalled.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|&s| s).await;
}

/// Waits up to [`DRAIN_TIMEOUT`] for every connection to finish (they have
/// been told to), then aborts the rest.
async fn drain(mut connections: JoinSet<()>) {
    let all_done = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(DRAIN_TIMEOUT, all_done).await.is_err() {
        tracing::debug!("connections still busy after the drain timeout; aborting them");
    }
    connections.shutdown().await;
}

/// Out of descriptors: closing an idle connection frees one.
fn exhausted(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// The listening socket itself is gone or is not one: retrying cannot help.
fn listener_unusable(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EBADF | libc::ENOTSOCK | libc::EINVAL | libc::EOPNOTSUPP)
    )
}
