//! The connection cap and shared encodes.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hyper::Request;

use super::{Client, Fake, TestServer, fetch};
use crate::http::limits::InRequest;
use crate::http::routes::{Shared, handle};
use crate::http::{Encoding, Format, ServerConfig};

#[tokio::test]
async fn concurrent_scrapes_share_one_encode_per_format() {
    let mut fake = Fake::new();
    // Held until the gate opens.
    fake.delay = Duration::from_secs(30);
    let fake = Arc::new(fake);
    let config = ServerConfig {
        max_requests: 64,
        ..ServerConfig::default()
    };
    let shared = Arc::new(Shared::new(fake.clone(), config));
    let mut tasks = Vec::new();
    for i in 0..64 {
        let accept = if i % 2 == 0 {
            "text/plain"
        } else {
            "application/openmetrics-text; version=1.0.0"
        };
        let req = Request::get("/metrics")
            .header("accept", accept)
            .body(())
            .unwrap();
        let shared = Arc::clone(&shared);
        tasks.push(tokio::spawn(async move {
            handle(shared, req, &InRequest::detached()).await
        }));
    }
    // Every scrape is waiting on one of the two encodes in flight (bounded wait).
    for _ in 0..5000 {
        let waiting = shared.waiters(Format::Prometheus, Encoding::Identity)
            + shared.waiters(Format::OpenMetrics, Encoding::Identity);
        if waiting == 64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    fake.open_gate();
    for t in tasks {
        assert_eq!(t.await.unwrap().unwrap().status(), 200);
    }
    assert_eq!(
        fake.encodes.load(Ordering::SeqCst),
        2,
        "one encode per format"
    );
}

#[tokio::test]
async fn at_the_cap_a_silent_connection_makes_room_for_a_scraper() {
    let config = ServerConfig {
        max_connections: 4,
        ..ServerConfig::default()
    };
    let server = TestServer::with_config(Arc::new(Fake::new()), config).await;
    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(Client::connect(server.addr).await);
    }
    for _ in 0..4 {
        let reply = fetch(server.addr, "GET", "/healthz", &[]).await;
        assert_eq!(reply.status, 200);
    }
    // The oldest silent ones were closed for room; at most 4 remain open.
    let mut closed = 0;
    for c in &mut silent {
        if tokio::time::timeout(Duration::from_millis(200), c.fill()).await == Ok(0) {
            closed += 1;
        }
    }
    assert!(closed >= 4, "only {closed} of 8 silent connections closed");
}

/// Virtual time: hyper's timer is tokio's, so the 3-minute keep-alive limit
/// is exercised without waiting for it.
#[tokio::test(start_paused = true)]
async fn keep_alive_outlasts_a_scrape_interval_then_idle_connections_close() {
    let server = TestServer::start(Arc::new(Fake::new())).await;
    let mut client = Client::connect(server.addr).await;
    client.send("GET", "/healthz").await;
    assert_eq!(client.read_reply().await.expect("first reply").status, 200);
    // Two minutes idle: longer than any usual scrape interval.
    tokio::time::sleep(Duration::from_secs(120)).await;
    client.send("GET", "/healthz").await;
    let second = client.read_reply().await;
    assert_eq!(
        second.map(|r| r.status),
        Some(200),
        "closed within 2 min idle"
    );
    // Five minutes idle: past the limit, the server has closed it.
    tokio::time::sleep(Duration::from_secs(300)).await;
    // Bounded: with time paused an unbounded wait would run the clock on.
    let closed = tokio::time::timeout(Duration::from_secs(1), client.fill()).await;
    assert_eq!(closed, Ok(0), "idle connection still open past the limit");
}
