//! HTTP/2 peers that never read: each stream of a client whose
//! flow-control window is zero holds its response in the server until the
//! stream or connection goes. What that may cost, and how it ends.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Fake;
use super::tls::{Setup, client_config, get_tls, start_with};
use crate::http::{ServerConfig, Timeouts};

type Tls = tokio_rustls::client::TlsStream<TcpStream>;

/// A TLS connection that negotiated h2.
async fn connect_h2(s: &Setup) -> Tls {
    let mut config = (*client_config(&s.pki.ca_pem, None)).clone();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let tcp = TcpStream::connect(s.server.addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    tls
}

/// A client whose stream windows are zero: `streams` GETs of /metrics on
/// one connection; their statuses, and the connection's task (it ends when
/// the server closes the connection).
async fn hold(s: &Setup, streams: usize) -> (Vec<u16>, tokio::task::JoinHandle<()>) {
    let tls = connect_h2(s).await;
    let (client, conn) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, bytes::Bytes>(tls)
        .await
        .unwrap();
    let task = tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut pending = Vec::new();
    for _ in 0..streams {
        let mut client = client.clone().ready().await.unwrap();
        let req = hyper::Request::get("https://localhost/metrics")
            .body(())
            .unwrap();
        pending.push(client.send_request(req, true).unwrap().0);
    }
    let mut statuses = Vec::new();
    for p in pending {
        let resp = tokio::time::timeout(Duration::from_secs(5), p)
            .await
            .expect("no response headers within 5 s")
            .unwrap();
        statuses.push(resp.status().as_u16());
        // The body stays with the server: the window is zero. Keep the
        // stream open by holding its receiving half.
        std::mem::forget(resp);
    }
    std::mem::forget(client);
    (statuses, task)
}

fn app() -> Arc<Fake> {
    let mut fake = Fake::new();
    fake.cached = Some("ssd_up 1\n".repeat(4000).into_bytes());
    Arc::new(fake)
}

async fn server(app: Arc<Fake>, config: ServerConfig) -> Setup {
    start_with("", "", app, config).await
}

/// 2 connections × 16 streams against a cap of 8: 8 answered 200, the
/// rest 503, and the 8 held bodies are one buffer (before the change each
/// stream held its own copy: 250 × 16 of them took RSS from 11 to 234 MB).
#[tokio::test]
async fn zero_window_streams_share_one_body_and_the_request_cap_answers_503() {
    let fake = app();
    let config = ServerConfig {
        max_requests: 8,
        ..ServerConfig::default()
    };
    let s = server(fake.clone(), config).await;
    let (mut a, _ta) = hold(&s, 16).await;
    let (b, _tb) = hold(&s, 16).await;
    a.extend(b);
    let ok = a.iter().filter(|&&c| c == 200).count();
    let busy = a.iter().filter(|&&c| c == 503).count();
    assert_eq!((ok, busy), (8, 24), "{a:?}");
    assert_eq!(
        fake.cached_calls.load(Ordering::SeqCst),
        1,
        "the held responses were built separately"
    );
}

/// A peer holding every slot does not keep a scraper out for long: at the
/// cap, a connection whose response has waited `stall` gives way.
#[tokio::test]
async fn at_the_request_cap_a_stalled_peer_gives_way_to_a_scraper() {
    let config = ServerConfig {
        max_requests: 4,
        timeouts: Timeouts {
            stall: Duration::from_millis(200),
            ..Timeouts::default()
        },
        ..ServerConfig::default()
    };
    let s = server(app(), config).await;
    let (held, holder) = hold(&s, 4).await;
    assert_eq!(held, [200; 4]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ca = client_config(&s.pki.ca_pem, None);
    let (reply, _) = get_tls(s.server.addr, ca, "/metrics", &[]).await.unwrap();
    assert_eq!(reply.status, 200);
    tokio::time::timeout(Duration::from_secs(5), holder)
        .await
        .expect("the stalled connection was not closed")
        .unwrap();
}

/// The send timeout: a response the peer never takes is abandoned with its
/// connection, and its slot comes back.
#[tokio::test]
async fn a_response_never_taken_is_dropped_with_its_connection_after_the_send_timeout() {
    let config = ServerConfig {
        max_requests: 1,
        timeouts: Timeouts {
            send: Duration::from_millis(300),
            stall: Duration::from_secs(3600),
            ..Timeouts::default()
        },
        ..ServerConfig::default()
    };
    let s = server(app(), config).await;
    let (held, holder) = hold(&s, 2).await;
    assert_eq!(held, [200, 503]);
    tokio::time::timeout(Duration::from_secs(5), holder)
        .await
        .expect("the connection outlived its send timeout")
        .unwrap();
    let ca = client_config(&s.pki.ca_pem, None);
    let (reply, _) = get_tls(s.server.addr, ca, "/metrics", &[]).await.unwrap();
    assert_eq!(reply.status, 200, "the slot was not given back");
}

/// HTTP/2 had no idle limit: a connection that opens no stream is closed
/// after `idle`, as an HTTP/1 one waiting for headers is.
#[tokio::test]
async fn an_http2_connection_with_no_stream_closes_after_the_idle_limit() {
    let config = ServerConfig {
        timeouts: Timeouts {
            idle: Duration::from_millis(300),
            ..Timeouts::default()
        },
        ..ServerConfig::default()
    };
    let s = server(app(), config).await;
    let (_, task) = hold(&s, 0).await;
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the idle HTTP/2 connection stayed open")
        .unwrap();
}

/// A peer that never answers the server's PING (here: one that never reads
/// at all after its preface) is closed after the ping interval and timeout.
#[tokio::test]
async fn a_peer_that_does_not_answer_pings_is_closed() {
    let config = ServerConfig {
        timeouts: Timeouts {
            ping_interval: Duration::from_millis(200),
            ping_timeout: Duration::from_millis(200),
            ..Timeouts::default()
        },
        ..ServerConfig::default()
    };
    let s = server(app(), config).await;
    let mut tls = connect_h2(&s).await;
    // Preface and an empty SETTINGS frame, then silence.
    tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut sink = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), tls.read_to_end(&mut sink)).await;
    assert!(read.is_ok(), "the connection is still open");
}
