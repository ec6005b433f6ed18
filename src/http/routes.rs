//! Request → response: authentication, routing, method checks, the
//! handlers and the configured security headers.
//!
//! Concurrent scrapes in the same format share one encode: the first starts
//! it, the others wait for its result, so N scrapers at once cost one
//! encode per format and encoding, not N. A plain-text scrape whose every
//! drive and probe part is already encoded is a copy and is built at once,
//! without the encode thread. Either way the body is one reference-counted
//! buffer that every response of the same format and encoding made within
//! [`SHARE_FOR`] shares while one of them is still being sent: 4,000 HTTP/2
//! streams whose peers never open their flow-control window hold one copy,
//! not 4,000.
//!
//! At most `web.max_requests` requests for metrics or the landing page are
//! in flight (from arrival until their response is handed over in full);
//! beyond that a connection whose response has waited for its peer for
//! [`super::Timeouts::stall`] is closed to make room, or the
//! request is answered 503.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::auth::Verdict;
use super::body::Body;
use super::limits::{InRequest, Tracker};
use super::{Encoding, Exposition, Format, ServerConfig, accepts_gzip, landing, negotiate};

/// A body made this recently is reused while a response still holds it;
/// an older one is made anew, so a peer that holds responses open cannot
/// keep later scrapes on old data.
pub const SHARE_FOR: Duration = Duration::from_secs(1);

/// How long a request at the cap waits for the slot a closed stalled
/// connection gives back.
const ADMIT_WAIT: Duration = Duration::from_secs(1);

/// Default and upper bound of `web.max_requests` (node_exporter's
/// `--web.max-requests` is 40 too).
pub const DEFAULT_MAX_REQUESTS: usize = 40;
pub const MAX_MAX_REQUESTS: usize = 4096;

/// An encoded metrics body (gzipped if asked), an error text, or `None`
/// if the application panicked.
type Encoded = Arc<Option<Result<Bytes, String>>>;

/// The scrapes waiting for the encode in flight, per format and encoding.
type Waiting = HashMap<(Format, Encoding), Vec<tokio::sync::oneshot::Sender<Encoded>>>;

/// The last body made per format and encoding: when, and a handle that is
/// alive while a response holds it.
type Recent = HashMap<(Format, Encoding), (Instant, Weak<Vec<u8>>)>;

/// What every connection shares.
pub(crate) struct Shared {
    pub(crate) app: Arc<dyn Exposition>,
    pub(crate) config: ServerConfig,
    /// Every open connection (the connection cap, timers, eviction).
    pub(crate) tracker: Arc<Tracker>,
    /// `web.max_requests` slots.
    requests: Arc<Semaphore>,
    worker: Worker,
    waiting: std::sync::Mutex<Waiting>,
    recent: std::sync::Mutex<Recent>,
}

impl Shared {
    pub(crate) fn new(app: Arc<dyn Exposition>, config: ServerConfig) -> Self {
        let max = config.max_requests.clamp(1, MAX_MAX_REQUESTS);
        Self {
            app,
            config,
            tracker: Arc::default(),
            requests: Arc::new(Semaphore::new(max)),
            worker: Worker::spawn(),
            waiting: std::sync::Mutex::new(HashMap::new()),
            recent: std::sync::Mutex::new(HashMap::new()),
        }
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.recent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The body for `key` a response made within [`SHARE_FOR`] still holds.
    fn shared_body(&self, key: (Format, Encoding)) -> Option<Bytes> {
        let recent = self.recent();
        let (made, body) = recent.get(&key)?;
        let body = body.upgrade().filter(|_| made.elapsed() < SHARE_FOR)?;
        Some(Bytes::from_owner(Owned(body)))
    }

    /// `body` as the one buffer later responses for `key` may share.
    fn remember(&self, key: (Format, Encoding), body: Vec<u8>) -> Bytes {
        let body = Arc::new(body);
        self.recent()
            .insert(key, (Instant::now(), Arc::downgrade(&body)));
        Bytes::from_owner(Owned(body))
    }

    /// A slot under `web.max_requests` (see the module doc); `None`: 503.
    async fn admit(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = Arc::clone(&self.requests).try_acquire_owned() {
            return Some(permit);
        }
        let stall = self.config.timeouts.stall;
        if !self.tracker.evict_stalled(Instant::now(), stall) {
            return None;
        }
        let wait = Arc::clone(&self.requests).acquire_owned();
        tokio::time::timeout(ADMIT_WAIT, wait).await.ok()?.ok()
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Scrapes waiting for the encode in flight for `format` (tests).
    #[cfg(test)]
    pub(crate) fn waiters(&self, format: Format, encoding: Encoding) -> usize {
        self.waiting().get(&(format, encoding)).map_or(0, Vec::len)
    }
}

/// A shared body's buffer, owned by every `Bytes` made from it.
struct Owned(Arc<Vec<u8>>);

impl AsRef<[u8]> for Owned {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// One thread that runs every call into the application (encode, gzip,
/// landing page), in arrival order.
///
/// Not the async workers: an `Exposition` is CPU work that grows with the
/// drives and series and may take a `std::sync` lock a poller briefly
/// holds, so it must not stall `/healthz` or accepting. Not tokio's
/// blocking pool either: each of its many threads gets its own glibc malloc
/// arena, which kept the large short-lived encode and gzip buffers and grew
/// RSS from 14 to 23 MiB over 1000 scrapes of 64 drives (BENCHMARKS.md);
/// one thread means one arena. The thread ends when the server is dropped.
struct Worker {
    tx: std::sync::mpsc::Sender<Job>,
}

impl Worker {
    fn spawn() -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("http-encode".into())
            .spawn(move || rx.into_iter().for_each(|job| job()))
            .expect("spawn the http encode thread");
        Self { tx }
    }
}

enum Route {
    Metrics,
    Landing,
    Health,
}

/// Answers one request. Never fails: every problem becomes a status code.
/// The request body is ignored; hyper discards it. `busy` marks the
/// connection in a request; it steps out of it while bcrypt is awaited.
pub(crate) async fn handle<B>(
    shared: Arc<Shared>,
    req: Request<B>,
    busy: &InRequest,
) -> Result<Response<Body>, Infallible> {
    // One config for the whole request, even if the file changes meanwhile.
    let web = shared.config.web.current();
    let verdict = match &web.auth {
        None => Verdict::Allowed,
        Some(auth) => {
            let _waiting = busy.waiting();
            let failures = &busy.conn().auth_failures;
            auth.check(req.uri().path(), req.headers(), failures).await
        }
    };
    let mut resp = match verdict {
        Verdict::Allowed => route(&shared, req).await,
        Verdict::Denied => {
            let mut resp = text(StatusCode::UNAUTHORIZED, "401 unauthorized\n");
            set(&mut resp, header::WWW_AUTHENTICATE, "Basic");
            resp
        }
        Verdict::Busy => {
            let mut resp = text(
                StatusCode::TOO_MANY_REQUESTS,
                "429 too many password checks waiting; try again\n",
            );
            set(&mut resp, header::RETRY_AFTER, "1");
            resp
        }
    };
    for (name, value) in web.headers() {
        resp.headers_mut().insert(name.clone(), value.clone());
    }
    Ok(resp)
}

async fn route<B>(shared: &Arc<Shared>, req: Request<B>) -> Response<Body> {
    let path = req.uri().path();
    let route = if path == shared.config.telemetry_path {
        Route::Metrics
    } else if path == "/" {
        Route::Landing
    } else if path == "/healthz" {
        Route::Health
    } else {
        return not_found(path, &shared.config.telemetry_path);
    };
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut resp = text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        set(&mut resp, header::ALLOW, "GET, HEAD");
        return resp;
    }
    if let Route::Health = route {
        return text(StatusCode::OK, "ok\n");
    }
    let Some(permit) = shared.admit().await else {
        let body = format!(
            "503 {} requests in flight, the most web.max_requests allows; try again\n",
            shared.config.max_requests.clamp(1, MAX_MAX_REQUESTS)
        );
        let mut resp = text(StatusCode::SERVICE_UNAVAILABLE, body);
        set(&mut resp, header::RETRY_AFTER, "1");
        return resp;
    };
    // HEAD gets the full GET response; hyper sends its headers (including
    // Content-Length) and drops the body.
    let resp = match route {
        Route::Metrics => metrics(shared, req.headers()).await,
        _ => landing_page(shared).await,
    };
    resp.map(|body| body.holding(Some(permit)))
}

/// The body for `key` (format, encoding): joins the encode in flight, or
/// starts one. The encode runs in a task of its own, so a scraper that
/// hangs up does not cancel it for the others waiting.
async fn shared_encode(shared: &Arc<Shared>, key: (Format, Encoding)) -> Encoded {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let first = {
        let mut waiting = shared.waiting();
        let list = waiting.entry(key).or_default();
        list.push(tx);
        list.len() == 1
    };
    if first {
        let shared = Arc::clone(shared);
        tokio::spawn(async move {
            let encoded = call_app(&shared, move |app| {
                app.metrics(key.0, key.1).map_err(|e| e.to_string())
            })
            .await;
            let encoded = encoded.map(|r| r.map(|body| shared.remember(key, body)));
            let encoded: Encoded = Arc::new(encoded);
            let waiters = shared.waiting().remove(&key).unwrap_or_default();
            for w in waiters {
                let _ = w.send(Arc::clone(&encoded));
            }
        });
    }
    rx.await.unwrap_or_else(|_| Arc::new(None))
}

async fn metrics(shared: &Arc<Shared>, headers: &HeaderMap) -> Response<Body> {
    let format = negotiate(joined(headers, &header::ACCEPT).as_deref());
    let encoding = if accepts_gzip(joined(headers, &header::ACCEPT_ENCODING).as_deref()) {
        Encoding::Gzip
    } else {
        Encoding::Identity
    };
    let key = (format, encoding);
    let encoded = match shared.shared_body(key) {
        Some(body) => Arc::new(Some(Ok(body))),
        None => match cached(shared, key) {
            Some(body) => Arc::new(Some(Ok(body))),
            None => shared_encode(shared, key).await,
        },
    };
    let body = match encoded.as_ref() {
        Some(Ok(body)) => body.clone(),
        Some(Err(e)) => {
            tracing::warn!(error = %e, "gzip of the metrics body failed");
            return text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "compressing metrics failed\n",
            );
        }
        None => {
            return text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "encoding metrics failed\n",
            );
        }
    };
    let mut resp = Response::new(Body::new(body));
    set(&mut resp, header::CONTENT_TYPE, format.content_type());
    // The body depends on both negotiated headers; caches must key on them.
    set(&mut resp, header::VARY, "Accept, Accept-Encoding");
    if encoding == Encoding::Gzip {
        set(&mut resp, header::CONTENT_ENCODING, "gzip");
    }
    resp
}

/// A copy of what is already encoded, built here on the async thread
/// (handing it to the encode thread and back would cost more than the
/// copy); `None` when something needs encoding or compressing.
fn cached(shared: &Shared, key: (Format, Encoding)) -> Option<Bytes> {
    let app = std::panic::AssertUnwindSafe(&shared.app);
    let body = std::panic::catch_unwind(|| app.metrics_cached(key.0, key.1)).ok()??;
    Some(shared.remember(key, body))
}

async fn landing_page(shared: &Shared) -> Response<Body> {
    let config = shared.config.clone();
    match call_app(shared, move |app| landing::render(&config, &app.drives())).await {
        Some(page) => {
            let mut resp = Response::new(Body::new(page));
            set(&mut resp, header::CONTENT_TYPE, "text/html; charset=utf-8");
            resp
        }
        None => text(StatusCode::INTERNAL_SERVER_ERROR, "listing drives failed\n"),
    }
}

/// Runs `f` against the application on the [`Worker`] thread. `None`
/// means `f` panicked (logged) or the worker is gone.
async fn call_app<T, F>(shared: &Shared, f: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce(&dyn Exposition) -> T + Send + 'static,
{
    let app = Arc::clone(&shared.app);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(app.as_ref())));
        let _ = tx.send(result);
    });
    shared.worker.tx.send(job).ok()?;
    match rx.await {
        Ok(Ok(value)) => Some(value),
        Ok(Err(_)) => {
            tracing::error!("the application panicked while serving a request");
            None
        }
        Err(_) => None,
    }
}

fn not_found(path: &str, telemetry_path: &str) -> Response<Body> {
    let body = format!(
        "404 not found: {path}\nsee / for the landing page and {telemetry_path} for metrics\n"
    );
    text(StatusCode::NOT_FOUND, body)
}

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut resp = Response::new(Body::new(body.into()));
    *resp.status_mut() = status;
    set(&mut resp, header::CONTENT_TYPE, "text/plain; charset=utf-8");
    resp
}

fn set(resp: &mut Response<Body>, name: HeaderName, value: &'static str) {
    resp.headers_mut()
        .insert(name, HeaderValue::from_static(value));
}

/// All values of a header joined with `,` (how HTTP defines repeated
/// list-valued headers); `None` if absent or not visible ASCII.
fn joined(headers: &HeaderMap, name: &HeaderName) -> Option<String> {
    let mut values = headers.get_all(name).iter().peekable();
    values.peek()?;
    let parts: Option<Vec<&str>> = values.map(|v| v.to_str().ok()).collect();
    Some(parts?.join(","))
}
