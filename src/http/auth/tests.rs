use super::*;
use crate::http::tests::basic_headers;
use hyper::header::HeaderValue;

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
