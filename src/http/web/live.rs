//! The web config in force: TLS for each new connection, basic auth and
//! headers for each request, kept current with the web config file and the
//! certificate, key and client CA files it names.
//!
//! The exporter-toolkit reads its file again for every connection and
//! request. Here a watcher thread of its own (never an async worker) stats
//! the files every [`WATCH_INTERVAL`] and rebuilds when one changed (size,
//! modification or change time, or inode, so an atomic rename and a
//! Kubernetes Secret's symlink swap are both seen). A change that does not
//! make a working config (a YAML or validation error, a half-written
//! certificate, a key that does not go with it) keeps the previous config
//! and is logged once; the next change is tried again. As in the toolkit,
//! whether the listener speaks TLS at all is decided at start: a file that
//! turns TLS on or off is refused until a restart.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::PathBuf;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use hyper::header::{HeaderName, HeaderValue};

use super::{WebConfig, WebConfigError, invalid, tls};
use crate::http::auth::BasicAuth;

/// How often the watcher looks at the files.
pub const WATCH_INTERVAL: Duration = Duration::from_secs(1);

/// One validated web config with what it builds.
#[derive(Debug)]
pub struct Active {
    pub config: WebConfig,
    /// For connections accepted now; `None`: plain HTTP.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// `None`: no authentication.
    pub auth: Option<Arc<BasicAuth>>,
}

impl Active {
    /// Builds TLS (reading the files `config` names) and basic auth. The
    /// auth memory of `previous` (verified passwords, per user and hash;
    /// the bcrypt queue) is kept, so a certificate rotation or another
    /// user's new password does not make the next scrape pay bcrypt.
    fn build(config: WebConfig, previous: Option<&Active>) -> Result<Self, WebConfigError> {
        let tls = match &config.tls {
            Some(t) => Some(tls::build(t)?),
            None => None,
        };
        let (users, excluded) = (config.users.clone(), config.auth_excluded_paths.clone());
        let same = |p: &&Arc<BasicAuth>| p.is(&users, &excluded);
        let auth = match previous.and_then(|p| p.auth.as_ref()) {
            _ if !config.auth_enabled() => None,
            Some(kept) if same(&kept) => Some(Arc::clone(kept)),
            Some(earlier) => Some(earlier.renewed(users, excluded)),
            None => Some(BasicAuth::new(users, excluded)),
        };
        Ok(Active { config, tls, auth })
    }

    /// Added to every response (`http_server_config.headers`).
    pub fn headers(&self) -> &[(HeaderName, HeaderValue)] {
        &self.config.headers
    }
}

/// What identifies one version of a file: a rewrite, a rename over it or a
/// symlink retargeted changes at least one of these.
type Stamp = Option<(u64, u64, u64, i64, i64, i64, i64)>;

fn stamp(path: &PathBuf) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((
        m.dev(),
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ))
}

/// The files whose change means a rebuild: the web config file and the
/// PEM files it names.
fn watched(config: &WebConfig) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = config.file.iter().cloned().collect();
    if let Some(t) = &config.tls {
        paths.extend(tls::files(t));
    }
    paths
}

/// The watcher's memory: the files it stats and how they looked when last
/// read.
#[derive(Debug)]
pub struct Watch {
    seen: BTreeMap<PathBuf, Stamp>,
}

impl Watch {
    fn of(paths: Vec<PathBuf>, known: &BTreeMap<PathBuf, Stamp>) -> Self {
        let seen = paths
            .into_iter()
            .map(|p| {
                let s = known.get(&p).copied().unwrap_or_else(|| stamp(&p));
                (p, s)
            })
            .collect();
        Watch { seen }
    }

    fn now(&self) -> BTreeMap<PathBuf, Stamp> {
        self.seen.keys().map(|p| (p.clone(), stamp(p))).collect()
    }
}

/// What one look at the files did.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing changed.
    Unchanged,
    /// A new config is in force.
    Reloaded,
    /// The files changed but do not make a working config; the previous
    /// one stays. The text is the one-line reason that was logged.
    Kept(String),
}

/// The web config new connections and requests get.
pub struct Live {
    current: RwLock<Arc<Active>>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("current", &self.current())
            .finish()
    }
}

impl Live {
    /// `config` in force for good: nothing is watched.
    pub fn fixed(config: WebConfig) -> Result<Arc<Self>, WebConfigError> {
        Ok(Arc::new(Live {
            current: RwLock::new(Arc::new(Active::build(config, None)?)),
        }))
    }

    /// Plain HTTP, no authentication, no headers.
    pub fn plain() -> Arc<Self> {
        Arc::new(Live {
            current: RwLock::new(Arc::new(Active {
                config: WebConfig::default(),
                tls: None,
                auth: None,
            })),
        })
    }

    /// Builds `config` and starts the watcher thread, which ends when the
    /// returned value is dropped. `interval` is [`WATCH_INTERVAL`] outside
    /// tests.
    pub fn start(config: WebConfig, interval: Duration) -> Result<Arc<Self>, WebConfigError> {
        let this = Self::fixed(config)?;
        let mut watch = this.watch();
        if watch.seen.is_empty() {
            return Ok(this);
        }
        let weak: Weak<Self> = Arc::downgrade(&this);
        std::thread::Builder::new()
            .name("web-config".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(interval);
                    let Some(this) = weak.upgrade() else { return };
                    this.step(&mut watch);
                }
            })
            .map_err(|e| invalid("", format!("start the web config watcher: {e}")))?;
        Ok(this)
    }

    /// The config for a connection accepted, or a request answered, now.
    pub fn current(&self) -> Arc<Active> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The files as they are now, for [`Live::step`].
    pub fn watch(&self) -> Watch {
        Watch::of(watched(&self.current().config), &BTreeMap::new())
    }

    /// Looks at the files once: when one changed, reads the web config file
    /// again (or, without one, the PEM files) and puts the result in force
    /// if it builds.
    pub fn step(&self, watch: &mut Watch) -> Step {
        let now = watch.now();
        if now == watch.seen {
            return Step::Unchanged;
        }
        let current = self.current();
        let candidate = match &current.config.file {
            Some(path) => WebConfig::read(path),
            None => Ok(current.config.clone()),
        };
        // Stamps taken before the read: a change racing with it is seen on
        // the next look.
        let outcome = match candidate {
            Ok(c) => {
                // Watch what the new file names from now on, even if it does
                // not build yet: fixing a named file is the next change.
                *watch = Watch::of(watched(&c), &now);
                self.put(&current, c)
            }
            Err(e) => {
                watch.seen = now;
                Err(e)
            }
        };
        let file = current
            .config
            .file
            .as_ref()
            .map_or_else(String::new, |p| p.display().to_string());
        match outcome {
            Ok(()) => {
                tracing::info!(
                    file,
                    "web config files changed; {}",
                    self.current().config.summary()
                );
                Step::Reloaded
            }
            Err(e) => {
                tracing::warn!(file, error = %e, "web config files changed but do not make a working config; keeping the previous one");
                Step::Kept(e.to_string())
            }
        }
    }

    fn put(&self, current: &Arc<Active>, next: WebConfig) -> Result<(), WebConfigError> {
        if current.config.tls.is_some() != next.tls.is_some() {
            let now = if current.config.tls.is_some() {
                "on"
            } else {
                "off"
            };
            return Err(invalid(
                "tls_server_config",
                format!("TLS was {now} at start; turning it on or off needs a restart"),
            ));
        }
        let built = Active::build(next, Some(current))?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(built);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
