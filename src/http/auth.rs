//! `basic_auth_users`: HTTP Basic authentication against bcrypt hashes.
//!
//! bcrypt costs tens of milliseconds at cost 10 and seconds at 18, so a
//! verified (user, password) pair is remembered: the cache holds SHA-256
//! digests of a per-process random salt, the user and the password, never
//! the password itself. Only successes are cached (failures cannot fill
//! it), and it is bounded. bcrypt runs on tokio's blocking pool, at most
//! [`MAX_CONCURRENT_BCRYPT`] at a time, so a flood of wrong passwords costs
//! a bounded amount of CPU and never blocks an async worker; a scraper whose
//! credentials are cached is not queued behind it.
//!
//! An unknown user is checked against a fixed hash all the same, so the
//! answer takes as long as for a known user with a wrong password.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use hyper::header::{self, HeaderMap};
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

/// bcrypt verifications running at once.
pub const MAX_CONCURRENT_BCRYPT: usize = 2;

/// Verified credentials remembered; the cache is emptied when full.
const CACHE_ENTRIES: usize = 1024;

/// Longest `Authorization` header considered (a user name and password of
/// a few hundred bytes each, base64-encoded).
const MAX_HEADER_BYTES: usize = 4096;

/// A valid cost-10 bcrypt hash of a random string nobody knows: what an
/// unknown user's password is checked against.
const DUMMY_HASH: &str = "$2b$10$k3A0QyWWQ2VQwWkzJrbzE.3a8oS1HqRrXvgWwLrQ0fMPCzV0Tq1dW";

pub struct BasicAuth {
    users: BTreeMap<String, String>,
    excluded: Vec<String>,
    salt: [u8; 16],
    cache: Mutex<HashSet<[u8; 32]>>,
    bcrypt: Semaphore,
}

impl std::fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicAuth")
            .field("users", &self.users.keys().collect::<Vec<_>>())
            .field("excluded", &self.excluded)
            .finish_non_exhaustive()
    }
}

impl BasicAuth {
    /// `users` maps user names to bcrypt hashes (checked by the web config).
    pub fn new(users: BTreeMap<String, String>, excluded: Vec<String>) -> Arc<Self> {
        Arc::new(BasicAuth {
            users,
            excluded,
            salt: fastrand::u128(..).to_le_bytes(),
            cache: Mutex::new(HashSet::new()),
            bcrypt: Semaphore::new(MAX_CONCURRENT_BCRYPT),
        })
    }

    /// Whether a request for `path` with `headers` may proceed.
    pub async fn allows(&self, path: &str, headers: &HeaderMap) -> bool {
        if self.excluded.iter().any(|p| p == path) {
            return true;
        }
        let Some((user, password)) = credentials(headers) else {
            return false;
        };
        let digest = self.digest(&user, &password);
        if self.lock().contains(&digest) {
            return true;
        }
        let (known, hash) = match self.users.get(&user) {
            Some(h) => (true, h.clone()),
            None => (false, DUMMY_HASH.to_string()),
        };
        let Ok(_permit) = self.bcrypt.acquire().await else {
            return false;
        };
        let ok = tokio::task::spawn_blocking(move || bcrypt::verify(password, &hash))
            .await
            .is_ok_and(|r| r.unwrap_or(false));
        if ok && known {
            let mut cache = self.lock();
            if cache.len() >= CACHE_ENTRIES {
                cache.clear();
            }
            cache.insert(digest);
        }
        ok && known
    }

    fn digest(&self, user: &str, password: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.salt);
        h.update((user.len() as u64).to_le_bytes());
        h.update(user.as_bytes());
        h.update(password.as_bytes());
        h.finalize().into()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<[u8; 32]>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many verified credentials are cached (for tests).
    #[cfg(test)]
    pub(crate) fn cached(&self) -> usize {
        self.lock().len()
    }
}

/// `Authorization: Basic base64(user:password)` → (user, password).
fn credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.as_bytes();
    if value.len() > MAX_HEADER_BYTES {
        return None;
    }
    let value = std::str::from_utf8(value).ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

#[cfg(test)]
mod tests;
