//! What each path and method answers.

use std::io::Read as _;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use flate2::read::GzDecoder;

use super::{Fake, OPENMETRICS_BODY, TestServer, fetch, text_body};
use crate::http::{DriveRow, ServerConfig};

const PROMETHEUS_ACCEPT: &str = "application/openmetrics-text;version=1.0.0,\
    application/openmetrics-text;version=0.0.1;q=0.75,\
    text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

#[tokio::test]
async fn metrics_default_is_prometheus_text() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let reply = fetch(server.addr, "GET", "/metrics", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert_eq!(reply.header("content-encoding"), None);
    assert_eq!(reply.text(), text_body());
}

#[tokio::test]
async fn metrics_openmetrics_when_asked() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let reply = fetch(
        server.addr,
        "GET",
        "/metrics",
        &[("Accept", PROMETHEUS_ACCEPT)],
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    assert_eq!(reply.text(), OPENMETRICS_BODY);

    let prefers_text =
        "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.6";
    let reply = fetch(server.addr, "GET", "/metrics", &[("Accept", prefers_text)]).await;
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert_eq!(reply.text(), text_body());
}

#[tokio::test]
async fn a_cached_copy_is_served_without_the_encode_thread_but_not_for_gzip() {
    let app = Arc::new(Fake {
        cached: Some(b"copy 1\n".to_vec()),
        ..Fake::new()
    });
    let server = TestServer::start(Arc::clone(&app)).await;
    let reply = fetch(server.addr, "GET", "/metrics", &[]).await;
    assert_eq!(
        (reply.status, reply.body.as_slice()),
        (200, &b"copy 1\n"[..])
    );
    assert_eq!(app.encodes.load(Ordering::SeqCst), 0);
    // gzip is CPU work: the encode thread does it, from `metrics`.
    let reply = fetch(
        server.addr,
        "GET",
        "/metrics",
        &[("Accept-Encoding", "gzip")],
    )
    .await;
    let mut plain = String::new();
    GzDecoder::new(reply.body.as_slice())
        .read_to_string(&mut plain)
        .unwrap();
    assert_eq!(plain, text_body());
    assert_eq!(app.encodes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn metrics_gzip_round_trip() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let headers = [("Accept-Encoding", "deflate, gzip;q=0.8")];
    let reply = fetch(server.addr, "GET", "/metrics", &headers).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-encoding"), Some("gzip"));
    assert!(
        reply
            .header("vary")
            .is_some_and(|v| v.contains("Accept-Encoding"))
    );
    assert!(
        reply.body.len() < text_body().len() / 2,
        "gzip did not shrink the body"
    );
    let mut plain = String::new();
    GzDecoder::new(reply.body.as_slice())
        .read_to_string(&mut plain)
        .unwrap();
    assert_eq!(plain, text_body());

    let refused = [("Accept-Encoding", "gzip;q=0")];
    let reply = fetch(server.addr, "GET", "/metrics", &refused).await;
    assert_eq!(reply.header("content-encoding"), None);
    assert_eq!(reply.text(), text_body());
}

#[tokio::test]
async fn head_has_get_headers_and_no_body() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    for path in ["/metrics", "/", "/healthz"] {
        let get = fetch(server.addr, "GET", path, &[]).await;
        // `fetch` asserts that a HEAD reply carries no body bytes.
        let head = fetch(server.addr, "HEAD", path, &[]).await;
        assert_eq!(head.status, 200, "{path}");
        assert_eq!(
            head.header("content-type"),
            get.header("content-type"),
            "{path}"
        );
        assert_eq!(head.content_length(), get.body.len(), "{path}");
    }
}

#[tokio::test]
async fn other_methods_are_405() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    for (method, path) in [("POST", "/metrics"), ("DELETE", "/"), ("PUT", "/healthz")] {
        let reply = fetch(server.addr, method, path, &[("Content-Length", "0")]).await;
        assert_eq!(reply.status, 405, "{method} {path}");
        assert_eq!(reply.header("allow"), Some("GET, HEAD"), "{method} {path}");
    }
}

#[tokio::test]
async fn unknown_path_is_404_with_directions() {
    let config = ServerConfig {
        telemetry_path: "/custom".to_owned(),
        ..ServerConfig::default()
    };
    let server = TestServer::with_config(Arc::new(Fake::new()), config).await;
    let reply = fetch(server.addr, "GET", "/nope", &[]).await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    let text = reply.text();
    assert!(text.contains("/nope"), "{text}");
    assert!(text.contains("see / "), "{text}");
    assert!(text.contains("/custom"), "{text}");
    // The configured path replaces /metrics rather than adding to it.
    assert_eq!(fetch(server.addr, "GET", "/metrics", &[]).await.status, 404);
    assert_eq!(
        fetch(server.addr, "GET", "/custom", &[]).await.text(),
        text_body()
    );
}

#[tokio::test]
async fn healthz_is_ok() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let reply = fetch(server.addr, "GET", "/healthz", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(reply.text(), "ok\n");
}

#[tokio::test]
async fn landing_page_escapes_drive_strings() {
    let mut fake = Fake::new();
    fake.drives.push(DriveRow {
        device: "/dev/nvme0".to_owned(),
        transport: "nvme".to_owned(),
        model: "<script>alert(1)</script>".to_owned(),
        serial: "S\"1'&".to_owned(),
        firmware: "FW1".to_owned(),
        up: true,
        last_poll_age: Some(Duration::from_secs(3)),
        state: "ok".to_owned(),
        ..DriveRow::default()
    });
    let server = TestServer::start(Arc::new(fake)).await;
    let reply = fetch(server.addr, "GET", "/", &[]).await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let page = reply.text();
    assert!(!page.contains("<script"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    assert!(page.contains("S&quot;1&#39;&amp;"), "{page}");
    assert!(
        page.contains("/dev/nvme0") && page.contains("3.0 s ago"),
        "{page}"
    );
    assert!(page.contains("href=\"/metrics\""), "{page}");
    assert!(!page.contains("no drives found"), "{page}");
}

#[tokio::test]
async fn landing_page_without_drives_says_so() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let reply = fetch(server.addr, "GET", "/", &[]).await;
    assert_eq!(reply.status, 200);
    assert!(reply.text().contains("no drives found"), "{}", reply.text());
}

#[tokio::test]
async fn malformed_request_gets_400_and_server_lives_on() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(b"\x00\xffGARBAGE\r\n\r\n").await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    assert!(
        raw.starts_with(b"HTTP/1.1 400"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    assert_eq!(fetch(server.addr, "GET", "/healthz", &[]).await.status, 200);
}

#[tokio::test]
async fn panicking_application_gives_500() {
    let mut fake = Fake::new();
    fake.panic = true;
    let server = TestServer::start(Arc::new(fake)).await;
    let reply = fetch(server.addr, "GET", "/metrics", &[]).await;
    assert_eq!(reply.status, 500);
    assert_eq!(fetch(server.addr, "GET", "/healthz", &[]).await.status, 200);
}
