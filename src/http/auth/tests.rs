use super::*;
use crate::http::tests::basic_headers;
use hyper::header::HeaderValue;
use std::sync::atomic::{AtomicU32, Ordering};

fn auth() -> Arc<BasicAuth> {
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    BasicAuth::new(
        BTreeMap::from([("prometheus".to_string(), hash)]),
        vec!["/healthz".into()],
    )
}

#[test]
fn the_dummy_hash_is_a_valid_bcrypt_hash() {
    assert_eq!(bcrypt::verify("", DUMMY_HASH).ok(), Some(false));
}

#[tokio::test]
async fn right_password_passes_and_is_cached() {
    let a = auth();
    assert!(
        a.allows("/metrics", &basic_headers("prometheus", "s3cret"))
            .await
    );
    assert_eq!(a.cached(), 1);
    assert!(
        a.allows("/metrics", &basic_headers("prometheus", "s3cret"))
            .await
    );
    assert_eq!(a.cached(), 1);
}

#[tokio::test]
async fn wrong_password_unknown_user_and_no_header_fail_and_are_not_cached() {
    let a = auth();
    assert!(
        !a.allows("/metrics", &basic_headers("prometheus", "wrong"))
            .await
    );
    assert!(
        !a.allows("/metrics", &basic_headers("nobody", "s3cret"))
            .await
    );
    assert!(!a.allows("/metrics", &HeaderMap::new()).await);
    let mut bearer = HeaderMap::new();
    bearer.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer x"));
    assert!(!a.allows("/metrics", &bearer).await);
    assert_eq!(a.cached(), 0);
}

#[tokio::test]
async fn excluded_paths_need_no_credentials() {
    assert!(auth().allows("/healthz", &HeaderMap::new()).await);
}

#[test]
fn a_password_may_contain_colons() {
    assert_eq!(
        credentials(&basic_headers("u", "a:b")),
        Some(("u".into(), "a:b".into()))
    );
}

#[test]
fn back_off_doubles_from_250_ms_to_4_s_after_the_first_failure() {
    let got: Vec<u128> = (0..7).map(|n| backoff(n).as_millis()).collect();
    assert_eq!(got, [0, 250, 500, 1000, 2000, 4000, 4000]);
}

/// The connection's failures in a row: counted by each wrong answer, spent
/// as a back-off before the next verification (virtual time), and cleared
/// by a right one.
#[tokio::test(start_paused = true)]
async fn repeated_failures_from_one_connection_wait_longer_and_a_success_clears_them() {
    let a = auth();
    let failures = AtomicU32::new(0);
    let wrong = basic_headers("prometheus", "wrong");
    for n in 1..=3 {
        let started = tokio::time::Instant::now();
        assert_eq!(
            a.check("/metrics", &wrong, &failures).await,
            Verdict::Denied
        );
        assert_eq!(failures.load(Ordering::Relaxed), n);
        assert!(started.elapsed() >= backoff(n - 1));
    }
    let right = basic_headers("prometheus", "s3cret");
    let started = tokio::time::Instant::now();
    assert_eq!(
        a.check("/metrics", &right, &failures).await,
        Verdict::Allowed
    );
    assert!(started.elapsed() >= backoff(3), "the back-off was skipped");
    assert_eq!(failures.load(Ordering::Relaxed), 0);
}

/// Keyed by user and hash: a reload that changes another user's password
/// keeps this user's verification; a change of this user's hash does not.
/// (A found verification returns at once; one that needs bcrypt first
/// waits out the connection's back-off, here 4 s of virtual time.)
#[tokio::test(start_paused = true)]
async fn a_verified_password_outlives_a_reload_while_its_hash_stays() {
    let (h1, h2) = (
        bcrypt::hash("one", 4).unwrap(),
        bcrypt::hash("two", 4).unwrap(),
    );
    let users = |a: &str, b: &str| {
        BTreeMap::from([
            ("a".to_string(), a.to_string()),
            ("b".to_string(), b.to_string()),
        ])
    };
    let first = BasicAuth::new(users(&h1, &h2), Vec::new());
    assert!(first.allows("/metrics", &basic_headers("a", "one")).await);
    let reloaded = first.renewed(users(&h1, &bcrypt::hash("three", 4).unwrap()), Vec::new());
    let failures = AtomicU32::new(5);
    let started = tokio::time::Instant::now();
    let got = reloaded
        .check("/metrics", &basic_headers("a", "one"), &failures)
        .await;
    assert_eq!(got, Verdict::Allowed);
    assert_eq!(
        started.elapsed(),
        Duration::ZERO,
        "verified again instead of found"
    );
    let changed = first.renewed(users(&bcrypt::hash("new", 4).unwrap(), &h2), Vec::new());
    assert!(!changed.allows("/metrics", &basic_headers("a", "one")).await);
}
