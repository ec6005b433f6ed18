//! `basic_auth_users`: HTTP Basic authentication against bcrypt hashes.
//!
//! bcrypt costs tens of milliseconds at cost 10 and seconds at 18, so a
//! verified password is remembered: the cache holds SHA-256 digests of a
//! per-process random salt, the user, the user's bcrypt hash and the
//! password, never the password itself. Only successes are cached
//! (failures cannot fill it), it is bounded, and it outlives a reload of
//! the web config: an entry stays good while that user's hash is the same,
//! so a scraper whose credentials verified once stays fast.
//!
//! bcrypt runs on tokio's blocking pool behind a bounded queue (`queue`:
//! two at a time, sixteen waiting, ranked by the asking connection's
//! failures in a row), so a flood of wrong passwords costs a bounded amount
//! of CPU, never blocks an async worker, and is answered 429 beyond the
//! queue. A connection's repeated failures (a 429 among them) are answered
//! after a back-off ([`backoff`]) spent outside the queue, and a fresh
//! scraper goes ahead of them. An unknown user is checked against a fixed hash all the same, so
//! the answer takes as long as for a known user with a wrong password.

mod queue;

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use hyper::header::{self, HeaderMap};
use sha2::{Digest, Sha256};

pub use queue::{RUNNING as MAX_CONCURRENT_BCRYPT, WAITING as MAX_WAITING_BCRYPT};

/// Verified credentials remembered; the cache is emptied when full.
const CACHE_ENTRIES: usize = 1024;

/// Longest `Authorization` header considered (a user name and password of
/// a few hundred bytes each, base64-encoded).
const MAX_HEADER_BYTES: usize = 4096;

/// A valid cost-10 bcrypt hash of a random string nobody knows: what an
/// unknown user's password is checked against.
const DUMMY_HASH: &str = "$2b$10$k3A0QyWWQ2VQwWkzJrbzE.3a8oS1HqRrXvgWwLrQ0fMPCzV0Tq1dW";

/// The wait before verifying again for a connection whose last `failures`
/// attempts failed: none for the first, then 250 ms doubling to 4 s (so a
/// scraper with a wrong password still gets its 401 within Prometheus'
/// default 10 s timeout).
pub fn backoff(failures: u32) -> Duration {
    match failures {
        0 => Duration::ZERO,
        n => Duration::from_millis(250 << (n - 1).min(4)),
    }
}

/// What a request's credentials got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Denied,
    /// The bcrypt queue is full: try again later (429).
    Busy,
}

/// What survives a reload of the web config: the salt, the verified
/// digests and the queue (so a reload does not double the bcrypt threads).
#[derive(Debug)]
struct Memory {
    salt: [u8; 16],
    cache: Mutex<HashSet<[u8; 32]>>,
    queue: Arc<queue::Queue>,
}

pub struct BasicAuth {
    users: BTreeMap<String, String>,
    excluded: Vec<String>,
    memory: Arc<Memory>,
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
        let memory = Arc::new(Memory {
            salt: fastrand::u128(..).to_le_bytes(),
            cache: Mutex::new(HashSet::new()),
            queue: Arc::default(),
        });
        Arc::new(BasicAuth {
            users,
            excluded,
            memory,
        })
    }

    /// The same memory (verified digests, bcrypt queue) for a reloaded
    /// web config's users.
    pub fn renewed(&self, users: BTreeMap<String, String>, excluded: Vec<String>) -> Arc<Self> {
        Arc::new(BasicAuth {
            users,
            excluded,
            memory: Arc::clone(&self.memory),
        })
    }

    /// Whether these are the users and excluded paths in force.
    pub fn is(&self, users: &BTreeMap<String, String>, excluded: &[String]) -> bool {
        self.users == *users && self.excluded == excluded
    }

    /// Whether a request for `path` with `headers` may proceed. `failures`
    /// is the asking connection's count of failures in a row, kept here.
    pub async fn check(&self, path: &str, headers: &HeaderMap, failures: &AtomicU32) -> Verdict {
        if self.excluded.iter().any(|p| p == path) {
            return Verdict::Allowed;
        }
        let Some((user, password)) = credentials(headers) else {
            return Verdict::Denied;
        };
        let (known, hash) = match self.users.get(&user) {
            Some(h) => (true, h.clone()),
            None => (false, DUMMY_HASH.to_string()),
        };
        let digest = self.digest(&user, &hash, &password);
        if known && self.lock().contains(&digest) {
            failures.store(0, Ordering::Relaxed);
            return Verdict::Allowed;
        }
        let failed = failures.load(Ordering::Relaxed);
        tokio::time::sleep(backoff(failed)).await;
        let Some(slot) = self.memory.queue.enter(failed).await else {
            // A strike too: a connection hammering a full queue backs off
            // and ranks behind one that has not.
            failures.fetch_add(1, Ordering::Relaxed);
            return Verdict::Busy;
        };
        // The slot goes with the verification: a request that goes away
        // does not free it while bcrypt still runs.
        let ok = tokio::task::spawn_blocking(move || {
            let ok = bcrypt::verify(password, &hash);
            drop(slot);
            ok
        })
        .await
        .is_ok_and(|r| r.unwrap_or(false));
        if !(ok && known) {
            failures.fetch_add(1, Ordering::Relaxed);
            return Verdict::Denied;
        }
        failures.store(0, Ordering::Relaxed);
        let mut cache = self.lock();
        if cache.len() >= CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(digest);
        Verdict::Allowed
    }

    /// [`BasicAuth::check`] for a client with no failures behind it, as a
    /// yes or no (tests).
    #[cfg(test)]
    pub async fn allows(&self, path: &str, headers: &HeaderMap) -> bool {
        self.check(path, headers, &AtomicU32::new(0)).await == Verdict::Allowed
    }

    fn digest(&self, user: &str, hash: &str, password: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.memory.salt);
        for part in [user, hash] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.update(password.as_bytes());
        h.finalize().into()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<[u8; 32]>> {
        self.memory.cache.lock().unwrap_or_else(|e| e.into_inner())
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
