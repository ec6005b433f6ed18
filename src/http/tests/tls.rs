//! TLS, client certificates, certificate rotation and basic auth, over
//! real sockets with a rustls client.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::pki::{Leaf, Pki, write};
use super::{Fake, Reply, TestServer, basic_header, parse_head, request_bytes};
use crate::http::ServerConfig;
use crate::http::web::live::Live;
use crate::http::web::{ClientAuth, WebConfig};

/// Watcher interval in these tests: short, so rotation shows quickly.
const WATCH: Duration = Duration::from_millis(20);

pub(super) fn client_config(ca_pem: &str, client: Option<&Leaf>) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(ca_pem.as_bytes()) {
        roots.add(c.unwrap()).unwrap();
    }
    let b = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots);
    Arc::new(match client {
        None => b.with_no_client_auth(),
        Some(leaf) => {
            let chain = vec![CertificateDer::from(leaf.der.clone())];
            let key = PrivateKeyDer::from_pem_slice(leaf.key_pem.as_bytes()).unwrap();
            b.with_client_auth_cert(chain, key).unwrap()
        }
    })
}

/// One GET over TLS. `Err` if the handshake or the exchange fails; the
/// served certificate comes back with the reply.
pub(super) async fn get_tls(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
    path: &str,
    headers: &[(&str, &str)],
) -> io::Result<(Reply, Vec<u8>)> {
    let tcp = TcpStream::connect(addr).await?;
    let connector = tokio_rustls::TlsConnector::from(config);
    let name = ServerName::try_from("localhost").unwrap();
    let mut tls = tokio::time::timeout(Duration::from_secs(5), connector.connect(name, tcp))
        .await
        .map_err(|_| io::Error::other("handshake timed out"))??;
    let served = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    let mut all = headers.to_vec();
    all.push(("Connection", "close"));
    tls.write_all(&request_bytes("GET", path, &all)).await?;
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), tls.read_to_end(&mut raw))
        .await
        .map_err(|_| io::Error::other("response timed out"))??;
    let (mut reply, end) = parse_head(&raw).ok_or_else(|| io::Error::other("no response"))?;
    reply.body = raw[end..].to_vec();
    Ok((reply, served))
}

pub(super) struct Setup {
    dir: tempfile::TempDir,
    pub(super) pki: Pki,
    pub(super) server: TestServer,
}

/// A TLS server whose web config is `extra` under `tls_server_config`
/// (cert and key files are written and named already), plus `rest`.
async fn start(extra: &str, rest: &str) -> Setup {
    start_with(extra, rest, Arc::new(Fake::new()), ServerConfig::default()).await
}

/// [`start`] with this application and server config (its web config is
/// replaced).
pub(super) async fn start_with(
    extra: &str,
    rest: &str,
    app: Arc<Fake>,
    config: ServerConfig,
) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("test ca");
    let leaf = pki.leaf(&["localhost", "127.0.0.1"]);
    write(dir.path(), "server.crt", &leaf.cert_pem);
    write(dir.path(), "server.key", &leaf.key_pem);
    write(dir.path(), "ca.crt", &pki.ca_pem);
    let yaml = format!(
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n{extra}{rest}"
    );
    let web = WebConfig::parse(&yaml, dir.path()).unwrap();
    let config = ServerConfig {
        web: Live::start(web, WATCH).unwrap(),
        ..config
    };
    let server = TestServer::with_config(app, config).await;
    Setup { dir, pki, server }
}

#[tokio::test]
async fn https_is_served_and_plaintext_gets_no_http_answer() {
    let s = start("", "").await;
    let (reply, _) = get_tls(
        s.server.addr,
        client_config(&s.pki.ca_pem, None),
        "/healthz",
        &[],
    )
    .await
    .unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.text(), "ok\n");

    let mut plain = TcpStream::connect(s.server.addr).await.unwrap();
    plain
        .write_all(&request_bytes(
            "GET",
            "/healthz",
            &[("Connection", "close")],
        ))
        .await
        .unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), plain.read_to_end(&mut raw))
        .await
        .expect("plaintext connection left open");
    assert!(!raw.starts_with(b"HTTP/"), "plaintext answered: {raw:?}");
}

#[tokio::test]
async fn require_and_verify_client_cert_admits_only_ca_signed_clients() {
    let extra = "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n";
    let s = start(extra, "").await;
    let addr = s.server.addr;
    let without = get_tls(addr, client_config(&s.pki.ca_pem, None), "/healthz", &[]).await;
    assert!(
        without.is_err(),
        "a client without a certificate got {without:?}"
    );

    let stranger = Pki::new("other ca").leaf(&["scraper"]);
    let wrong_ca = get_tls(
        addr,
        client_config(&s.pki.ca_pem, Some(&stranger)),
        "/healthz",
        &[],
    )
    .await;
    assert!(
        wrong_ca.is_err(),
        "a certificate of another CA got {wrong_ca:?}"
    );

    let ours = s.pki.leaf(&["scraper"]);
    let (reply, _) = get_tls(
        addr,
        client_config(&s.pki.ca_pem, Some(&ours)),
        "/healthz",
        &[],
    )
    .await
    .unwrap();
    assert_eq!(reply.status, 200);
}

#[tokio::test]
async fn client_allowed_sans_admit_only_listed_names() {
    let extra = "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n\
                 \x20 client_allowed_sans: [prometheus.example]\n";
    let s = start(extra, "").await;
    let good = s.pki.leaf(&["prometheus.example"]);
    let bad = s.pki.leaf(&["intruder.example"]);
    let ca = &s.pki.ca_pem;
    let (reply, _) = get_tls(
        s.server.addr,
        client_config(ca, Some(&good)),
        "/healthz",
        &[],
    )
    .await
    .unwrap();
    assert_eq!(reply.status, 200);
    let refused = get_tls(
        s.server.addr,
        client_config(ca, Some(&bad)),
        "/healthz",
        &[],
    )
    .await;
    assert!(refused.is_err(), "an unlisted SAN got {refused:?}");
}

#[tokio::test]
async fn request_client_cert_does_not_require_one() {
    let s = start("  client_auth_type: RequestClientCert\n", "").await;
    let (reply, _) = get_tls(
        s.server.addr,
        client_config(&s.pki.ca_pem, None),
        "/healthz",
        &[],
    )
    .await
    .unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(
        WebConfig::parse("", Path::new("/"))
            .unwrap()
            .tls
            .map(|t| t.client_auth),
        None::<ClientAuth>
    );
}

/// Connects until the served certificate is `want` (bounded attempts).
async fn wait_for_cert(s: &Setup, want: &[u8]) -> bool {
    for _ in 0..500 {
        let got = get_tls(
            s.server.addr,
            client_config(&s.pki.ca_pem, None),
            "/healthz",
            &[],
        )
        .await;
        if got.is_ok_and(|(_, served)| served == want) {
            return true;
        }
        tokio::time::sleep(WATCH).await;
    }
    false
}

#[tokio::test]
async fn a_certificate_replaced_on_disk_is_served_without_restart() {
    let s = start("", "").await;
    let next = s.pki.leaf(&["localhost"]);
    // Key first: a cert/key pair that does not match is not taken.
    write(s.dir.path(), "server.key", &next.key_pem);
    write(s.dir.path(), "server.crt", &next.cert_pem);
    assert!(
        wait_for_cert(&s, &next.der).await,
        "new certificate never served"
    );

    // A broken file keeps the working config.
    write(s.dir.path(), "server.crt", "not a certificate\n");
    for _ in 0..10 {
        tokio::time::sleep(WATCH).await;
    }
    let (reply, served) = get_tls(
        s.server.addr,
        client_config(&s.pki.ca_pem, None),
        "/healthz",
        &[],
    )
    .await
    .expect("a broken certificate file broke TLS");
    assert_eq!((reply.status, served), (200, next.der.clone()));
}

#[tokio::test]
async fn basic_auth_answers_401_without_and_200_with_the_password() {
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    let rest = format!(
        "basic_auth_users:\n  prometheus: {hash}\n\
         http_server_config:\n  headers:\n    X-Content-Type-Options: nosniff\n"
    );
    let s = start("", &rest).await;
    let config = client_config(&s.pki.ca_pem, None);
    let (reply, _) = get_tls(s.server.addr, config.clone(), "/metrics", &[])
        .await
        .unwrap();
    assert_eq!(reply.status, 401);
    assert_eq!(reply.header("www-authenticate"), Some("Basic"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));

    let basic = |pw: &str| basic_header("prometheus", pw);
    let wrong = basic("guess");
    let (reply, _) = get_tls(
        s.server.addr,
        config.clone(),
        "/metrics",
        &[("Authorization", &wrong)],
    )
    .await
    .unwrap();
    assert_eq!(reply.status, 401);
    let right = basic("s3cret");
    for _ in 0..2 {
        let (reply, _) = get_tls(
            s.server.addr,
            config.clone(),
            "/metrics",
            &[("Authorization", &right)],
        )
        .await
        .unwrap();
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    }
}

/// The protocol the server picks when a client offers h2 and http/1.1.
async fn negotiated(s: &Setup) -> Option<Vec<u8>> {
    let mut config = (*client_config(&s.pki.ca_pem, None)).clone();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let tcp = TcpStream::connect(s.server.addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .unwrap();
    tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec)
}

#[tokio::test]
async fn http2_is_offered_by_alpn_unless_turned_off() {
    let on = start("", "").await;
    assert_eq!(negotiated(&on).await.as_deref(), Some(&b"h2"[..]));
    let off = start("", "http_server_config:\n  http2: false\n").await;
    assert_eq!(negotiated(&off).await.as_deref(), Some(&b"http/1.1"[..]));
}

#[tokio::test]
async fn require_any_client_cert_wants_a_certificate_but_not_from_our_ca() {
    let s = start("  client_auth_type: RequireAnyClientCert\n", "").await;
    let ca = &s.pki.ca_pem;
    let without = get_tls(s.server.addr, client_config(ca, None), "/healthz", &[]).await;
    assert!(without.is_err(), "no certificate got {without:?}");
    let stranger = Pki::new("other ca").leaf(&["scraper"]);
    let (reply, _) = get_tls(
        s.server.addr,
        client_config(ca, Some(&stranger)),
        "/healthz",
        &[],
    )
    .await
    .unwrap();
    assert_eq!(reply.status, 200);
}

#[tokio::test]
async fn verify_client_cert_if_given_admits_none_but_checks_one() {
    let extra = "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n";
    let s = start(extra, "").await;
    let ca = &s.pki.ca_pem;
    let (reply, _) = get_tls(s.server.addr, client_config(ca, None), "/healthz", &[])
        .await
        .unwrap();
    assert_eq!(reply.status, 200);
    let stranger = Pki::new("other ca").leaf(&["scraper"]);
    let refused = get_tls(
        s.server.addr,
        client_config(ca, Some(&stranger)),
        "/healthz",
        &[],
    )
    .await;
    assert!(
        refused.is_err(),
        "a certificate of another CA got {refused:?}"
    );
}

/// A client that opens TCP and never starts the handshake is dropped after
/// the handshake timeout (virtual time).
#[tokio::test(start_paused = true)]
async fn a_stalled_handshake_is_dropped() {
    let s = start("", "").await;
    let mut silent = super::Client::connect(s.server.addr).await;
    tokio::time::sleep(Duration::from_secs(11)).await;
    // Bounded: with time paused an unbounded wait would run the clock on
    // to whatever timeout there is.
    let closed = tokio::time::timeout(Duration::from_secs(1), silent.fill()).await;
    assert_eq!(closed, Ok(0), "stalled handshake still open after 11 s");
}
