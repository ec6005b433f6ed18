//! The parser against the exporter-toolkit's documented format (the shapes
//! of docs/web-configuration.md and its testdata), and what rustls cannot
//! honour.

use std::path::Path;

use super::*;
use crate::http::tests::pki::{Pki, write};

fn parse(yaml: &str) -> Result<WebConfig, String> {
    WebConfig::parse(yaml, Path::new("/etc/ssd_exporter")).map_err(|e| e.to_string())
}

fn err(yaml: &str) -> String {
    let e = parse(yaml).expect_err(yaml);
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn empty_file_and_empty_tls_section_mean_plain_http() {
    for yaml in ["", "tls_server_config:\n", "tls_server_config: {}\n"] {
        let c = parse(yaml).unwrap();
        assert!(c.tls.is_none() && !c.auth_enabled(), "{yaml:?}");
    }
    assert_eq!(parse("").unwrap().summary(), "tls off; authentication off");
}

#[test]
fn the_documented_tls_and_basic_auth_example() {
    let hash = bcrypt::hash("alice-pw", 4).unwrap();
    let yaml = format!(
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n\
         basic_auth_users:\n  alice: {hash}\n  bob: {hash}\n"
    );
    let c = parse(&yaml).unwrap();
    let tls = c.tls.as_ref().unwrap();
    // Relative to the web config file's folder, as the toolkit does.
    assert_eq!(
        tls.cert,
        Source::File("/etc/ssd_exporter/server.crt".into())
    );
    assert_eq!(tls.client_auth, ClientAuth::NoClientCert);
    assert_eq!(tls.versions.len(), 2, "TLS12..TLS13 by default");
    assert!(tls.prefer_server_order);
    assert_eq!(c.users.len(), 2);
    assert_eq!(c.summary(), "tls on; authentication basic (2 users)");
}

#[test]
fn every_client_auth_type_is_known() {
    for auth in ClientAuth::ALL {
        let ca = if auth == ClientAuth::NoClientCert {
            ""
        } else {
            "  client_ca_file: ca.crt\n"
        };
        let yaml = format!(
            "tls_server_config:\n  cert_file: a\n  key_file: b\n{ca}  client_auth_type: {}\n",
            auth.as_str()
        );
        assert_eq!(
            parse(&yaml).unwrap().tls.unwrap().client_auth,
            auth,
            "{yaml}"
        );
    }
    let e = err("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n");
    assert!(
        e.starts_with("tls_server_config.client_auth_type")
            && e.contains("RequireAndVerifyClientCert"),
        "{e}"
    );
}

#[test]
fn client_ca_and_client_auth_type_must_agree() {
    let e = err("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca\n");
    assert!(e.contains("NoClientCert"), "{e}");
    let e = err(
        "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
    );
    assert!(
        e.starts_with("tls_server_config.client_ca_file: missing"),
        "{e}"
    );
}

#[test]
fn allowed_sans_need_a_required_client_certificate() {
    let base = "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca\n";
    let ok = format!(
        "{base}  client_auth_type: RequireAndVerifyClientCert\n  client_allowed_sans: [a.example]\n"
    );
    assert_eq!(parse(&ok).unwrap().tls.unwrap().allowed_sans, ["a.example"]);
    let bad = format!(
        "{base}  client_auth_type: VerifyClientCertIfGiven\n  client_allowed_sans: [a.example]\n"
    );
    assert!(err(&bad).starts_with("tls_server_config.client_allowed_sans"));
    // RequireAnyClientCert takes any self-signed certificate, whatever SANs
    // it claims: the combination checks nothing and is refused, and no
    // error suggests it.
    let any = format!(
        "{base}  client_auth_type: RequireAnyClientCert
  client_allowed_sans: [a.example]
"
    );
    let e = err(&any);
    assert!(
        e.starts_with(
            "tls_server_config.client_allowed_sans: checks nothing under RequireAnyClientCert"
        ),
        "{e}"
    );
    for text in [&bad, &any] {
        let e = err(text);
        assert!(
            e.contains("use client_auth_type RequireAndVerifyClientCert")
                && !e.contains("use client_auth_type RequireAnyClientCert"),
            "{e}"
        );
    }
}

#[test]
fn missing_cert_or_key_and_file_plus_inline_are_errors() {
    let e = err("tls_server_config:\n  cert_file: ''\n  key_file: b\n");
    assert!(e.starts_with("tls_server_config.cert_file: missing"), "{e}");
    let e = err("tls_server_config:\n  cert_file: a\n");
    assert!(e.starts_with("tls_server_config.key_file: missing"), "{e}");
    let e = err("tls_server_config:\n  cert_file: a\n  cert: x\n  key_file: b\n");
    assert!(e.contains("inline cert"), "{e}");
}

#[test]
fn tls_versions_rustls_lacks_are_rejected_by_name() {
    for v in ["TLS10", "TLS11"] {
        let e = err(&format!(
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: {v}\n"
        ));
        assert!(
            e.starts_with("tls_server_config.min_version") && e.contains("TLS 1.2 and 1.3 only"),
            "{e}"
        );
    }
    let e = err("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS111\n");
    assert!(e.contains("use TLS12 or TLS13"), "{e}");
    let e = err(
        "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n",
    );
    assert!(e.contains("above max_version"), "{e}");
    let c =
        parse("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n").unwrap();
    assert_eq!(c.tls.unwrap().versions, [&rustls::version::TLS13]);
}

#[test]
fn cipher_suites_keep_the_listed_order_and_reject_what_ring_lacks() {
    let yaml = concat!(
        "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites:\n",
        "  - TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384\n",
        "  - TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305\n",
        "  prefer_server_cipher_suites: false\n",
    );
    let tls = parse(yaml).unwrap().tls.unwrap();
    let names: Vec<String> = tls
        .cipher_suites
        .unwrap()
        .iter()
        .map(|s| format!("{:?}", s.suite()))
        .collect();
    // The three TLS 1.3 suites first (none listed), then the list's order.
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(
        names[3].contains("AES_256_GCM") && names[4].contains("CHACHA20"),
        "{names:?}"
    );
    assert!(!tls.prefer_server_order);
    for (suite, says) in [
        ("TLS_RSA_WITH_AES_128_CBC_SHA", "not supported"),
        ("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "not supported"),
        ("TLS_INVENTED_CIPHER", "not a cipher suite"),
    ] {
        let e = err(&format!(
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [{suite}]\n"
        ));
        assert!(
            e.starts_with("tls_server_config.cipher_suites") && e.contains(says),
            "{e}"
        );
    }
    let e = err(
        "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
    );
    assert!(e.contains("no TLS 1.2 suite"), "{e}");
}

#[test]
fn curves_map_to_ring_groups_and_the_rest_is_rejected() {
    let yaml = "tls_server_config:\n  cert_file: a\n  key_file: b\n  curve_preferences: [CurveP384, X25519]\n";
    let groups = parse(yaml).unwrap().tls.unwrap().kx_groups.unwrap();
    let names: Vec<String> = groups.iter().map(|g| format!("{:?}", g.name())).collect();
    assert_eq!(names, ["secp384r1", "X25519"]);
    for (curve, says) in [("CurveP521", "not supported"), ("CurveP999", "not a curve")] {
        let e = err(&format!(
            "tls_server_config:\n  cert_file: a\n  key_file: b\n  curve_preferences: [{curve}]\n"
        ));
        assert!(
            e.starts_with("tls_server_config.curve_preferences") && e.contains(says),
            "{e}"
        );
    }
}

#[test]
fn headers_are_the_toolkit_set_with_its_values() {
    let yaml = "http_server_config:\n  headers:\n    X-Frame-Options: deny\n\
                \x20   Strict-Transport-Security: max-age=31536000; includeSubDomains\n\
                \x20   X-Content-Type-Options: nosniff\n    X-XSS-Protection: '1'\n\
                \x20   Content-Security-Policy: \"default-src 'self'\"\n";
    assert_eq!(parse(yaml).unwrap().headers.len(), 5);
    let e = err("http_server_config:\n  headers:\n    X-Frame-Options: allow\n");
    assert!(e.contains("deny or sameorigin"), "{e}");
    let e = err("http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n");
    assert!(e.contains("nosniff"), "{e}");
    let e = err("http_server_config:\n  headers:\n    Server: me\n");
    assert!(e.contains("cannot be configured"), "{e}");
    assert!(
        parse("http_server_config:\n  headers:\n    X-Frame-Options: ''\n")
            .unwrap()
            .headers
            .is_empty()
    );
    let tls = "tls_server_config:\n  cert_file: a\n  key_file: b\n";
    assert!(
        parse(tls).unwrap().tls.unwrap().http2,
        "on by default, as in the toolkit"
    );
    let off = format!("{tls}http_server_config:\n  http2: false\n");
    assert!(!parse(&off).unwrap().tls.unwrap().http2);
}

#[test]
fn unknown_keys_and_bad_hashes_are_named() {
    let e = err("tls_server_config:\n  cert_fil: a\n");
    assert!(e.contains("cert_fil") && e.contains("cert_file"), "{e}");
    let e = err("basic_auth_user:\n  a: b\n");
    assert!(e.contains("basic_auth_users"), "{e}");
    let e = err("basic_auth_users:\n  alice: plaintext\n");
    assert!(
        e.starts_with("basic_auth_users.alice: is not a bcrypt hash"),
        "{e}"
    );
    assert!(err("rate_limit:\n  interval: 1s\n").starts_with("rate_limit"));
}

#[test]
fn load_builds_tls_once_so_a_bad_key_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("test ca");
    let leaf = pki.leaf(&["localhost"]);
    let other = pki.leaf(&["localhost"]);
    write(dir.path(), "server.crt", &leaf.cert_pem);
    write(dir.path(), "server.key", &leaf.key_pem);
    write(dir.path(), "other.key", &other.key_pem);
    write(dir.path(), "ca.crt", &pki.ca_pem);
    let good = write(
        dir.path(),
        "web.yml",
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n\
         \x20 client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n",
    );
    assert!(WebConfig::load(&good).is_ok());
    let mismatched = write(
        dir.path(),
        "mismatch.yml",
        "tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n",
    );
    let e = WebConfig::load(&mismatched).unwrap_err().to_string();
    assert!(
        e.starts_with("tls_server_config.key_file: does not go with cert_file"),
        "{e}"
    );
    let missing = write(
        dir.path(),
        "missing.yml",
        "tls_server_config:\n  cert_file: nope.crt\n  key_file: server.key\n",
    );
    let e = WebConfig::load(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with("tls_server_config.cert_file:") && e.contains("nope.crt"),
        "{e}"
    );
    let inline = format!(
        "tls_server_config:\n  cert: |\n{}  key: |\n{}",
        indent(&leaf.cert_pem),
        indent(&leaf.key_pem)
    );
    let inline = write(dir.path(), "inline.yml", &inline);
    assert!(WebConfig::load(&inline).is_ok());
}

fn indent(pem: &str) -> String {
    pem.lines().map(|l| format!("    {l}\n")).collect()
}
