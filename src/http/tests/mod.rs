//! End-to-end tests of the server over real sockets on 127.0.0.1, speaking
//! raw HTTP/1.1 so that what is checked is exactly what goes on the wire.

mod h2;
mod limits;
pub(crate) mod pki;
mod routes;
mod shutdown;
mod tls;

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use super::{DriveRow, Encoding, Exposition, Format, ServerConfig, serve};

/// An `Authorization: Basic` value for `user` and `password`.
pub(crate) fn basic_header(user: &str, password: &str) -> String {
    use base64::Engine as _;
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {token}")
}

/// Request headers with just that `Authorization`.
pub(crate) fn basic_headers(user: &str, password: &str) -> hyper::HeaderMap {
    let mut h = hyper::HeaderMap::new();
    h.insert(
        hyper::header::AUTHORIZATION,
        hyper::header::HeaderValue::from_str(&basic_header(user, password)).unwrap(),
    );
    h
}

/// The text-format body the fake serves: long and repetitive, like a real
/// exposition, so gzip visibly shrinks it.
fn text_body() -> String {
    (0..200)
        .map(|i| format!("ssd_temperature_celsius{{device=\"/dev/nvme{i}\"}} 41\n"))
        .collect()
}

const OPENMETRICS_BODY: &str = "# TYPE ssd_up gauge\nssd_up{device=\"/dev/nvme0\"} 1\n# EOF\n";

/// A fake application with a known body. `metrics` announces itself on
/// `entered`, then waits until `release` opens or `delay` passes, so tests
/// can hold a request in flight.
struct Fake {
    drives: Vec<DriveRow>,
    delay: Duration,
    entered: Notify,
    release: (Mutex<bool>, Condvar),
    panic: bool,
    /// How many times `metrics` was called.
    encodes: AtomicUsize,
    /// What `metrics_cached` offers.
    cached: Option<Vec<u8>>,
    /// How many times `metrics_cached` was called.
    cached_calls: AtomicUsize,
}

impl Fake {
    fn new() -> Self {
        Fake {
            drives: Vec::new(),
            delay: Duration::ZERO,
            entered: Notify::new(),
            release: (Mutex::new(false), Condvar::new()),
            panic: false,
            encodes: AtomicUsize::new(0),
            cached: None,
            cached_calls: AtomicUsize::new(0),
        }
    }

    fn open_gate(&self) {
        *self.release.0.lock().unwrap() = true;
        self.release.1.notify_all();
    }
}

impl Exposition for Fake {
    fn metrics(&self, format: Format, encoding: Encoding) -> io::Result<Vec<u8>> {
        self.encodes.fetch_add(1, Ordering::SeqCst);
        self.entered.notify_one();
        assert!(!self.panic, "fake application panics on purpose");
        let open = self.release.0.lock().unwrap();
        drop(
            self.release
                .1
                .wait_timeout_while(open, self.delay, |open| !*open),
        );
        let body = match format {
            Format::OpenMetrics => OPENMETRICS_BODY.to_owned(),
            Format::Prometheus | Format::Protobuf => text_body(),
        };
        match encoding {
            Encoding::Identity => Ok(body.into_bytes()),
            Encoding::Gzip => {
                use std::io::Write as _;
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                gz.write_all(body.as_bytes())?;
                gz.finish()
            }
        }
    }

    fn metrics_cached(&self, _format: Format, encoding: Encoding) -> Option<Vec<u8>> {
        self.cached_calls.fetch_add(1, Ordering::SeqCst);
        // As the application: a gzip body is CPU work, never a copy.
        self.cached
            .clone()
            .filter(|_| encoding == Encoding::Identity)
    }

    fn drives(&self) -> Vec<DriveRow> {
        self.drives.clone()
    }
}

struct TestServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<io::Result<()>>,
}

impl TestServer {
    async fn start(app: Arc<Fake>) -> Self {
        Self::with_config(app, ServerConfig::default()).await
    }

    async fn with_config(app: Arc<Fake>, config: ServerConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel();
        let shutdown = async move {
            let _ = stopped.await;
        };
        let task = tokio::spawn(serve(listener, app, config, shutdown));
        TestServer {
            addr,
            stop: Some(stop),
            task,
        }
    }

    fn trigger_shutdown(&mut self) {
        let _ = self.stop.take().expect("shutdown triggered twice").send(());
    }
}

/// A parsed HTTP response.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn content_length(&self) -> usize {
        self.header("content-length")
            .expect("no Content-Length")
            .parse()
            .unwrap()
    }

    fn text(&self) -> &str {
        std::str::from_utf8(&self.body).expect("body is not UTF-8")
    }
}

fn request_bytes(method: &str, path: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\n");
    for (name, value) in headers {
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    req.push_str("\r\n");
    req.into_bytes()
}

/// Splits raw bytes into the parsed head and whatever follows it, or `None`
/// if the head is not complete yet.
fn parse_head(raw: &[u8]) -> Option<(Reply, usize)> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&raw[..end]).expect("head is not UTF-8");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    assert!(status_line.starts_with("HTTP/1.1 "), "{status_line:?}");
    let status = status_line[9..12].parse().unwrap();
    let headers = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (n, v) = l.split_once(':').expect("header without colon");
            (n.trim().to_owned(), v.trim().to_owned())
        })
        .collect();
    let reply = Reply {
        status,
        headers,
        body: Vec::new(),
    };
    Some((reply, end))
}

/// One request on a fresh connection with `Connection: close`, read to EOF.
/// Checks the body against Content-Length (and that HEAD has no body).
async fn fetch(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut all = headers.to_vec();
    all.push(("Connection", "close"));
    stream
        .write_all(&request_bytes(method, path, &all))
        .await
        .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw))
        .await
        .expect("response took over 5 s")
        .unwrap();
    let (mut reply, end) = parse_head(&raw).expect("incomplete response head");
    reply.body = raw[end..].to_vec();
    let expected = if method == "HEAD" {
        0
    } else {
        reply.content_length()
    };
    assert_eq!(reply.body.len(), expected, "body length of {method} {path}");
    reply
}

/// A keep-alive client for the connection-lifetime tests.
struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).await.unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    async fn send(&mut self, method: &str, path: &str) {
        let req = request_bytes(method, path, &[]);
        self.stream.write_all(&req).await.unwrap();
    }

    /// Reads one response with a body; `None` if the server closed first.
    async fn read_reply(&mut self) -> Option<Reply> {
        loop {
            if let Some((mut reply, end)) = parse_head(&self.buf) {
                let total = end + reply.content_length();
                if self.buf.len() >= total {
                    reply.body = self.buf[end..total].to_vec();
                    self.buf.drain(..total);
                    return Some(reply);
                }
            }
            if self.fill().await == 0 {
                return None;
            }
        }
    }

    /// Reads more bytes; 0 means the server closed the connection.
    async fn fill(&mut self) -> usize {
        let mut chunk = [0u8; 4096];
        match self.stream.read(&mut chunk).await {
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                n
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => 0,
            Err(e) => panic!("read failed: {e}"),
        }
    }
}
