//! A scrape as a copy: each drive's series are encoded once per snapshot
//! (the poll loop publishes a new `Arc<DriveSnapshot>` when anything about
//! the drive changes) and per format, on the first scrape that asks for
//! them; a scrape then encodes only what is not one drive's (build info,
//! the device count, the probes, the process) and copies the cached text.
//!
//! OpenMetrics wants each family's series together under one HELP/TYPE, so
//! a drive's text is kept split at its families, and the body is written
//! family by family in the order [`Exposition`] asks for them: the header
//! once, then each drive's series in drive order, exactly what one encode
//! of everything writes (a test compares the two byte for byte).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::pieces::{Pieces, assemble, walk};
use super::process::ProcessStats;
use super::{BuildInfo, Detail, Exposition, Format, Parts, probe_restarts, shown};
use crate::probe::fleet::ProbeView;
use crate::snapshot::DriveSnapshot;

/// Encoded drives, by `device`; entries of vanished drives are dropped on
/// the next scrape.
#[derive(Debug, Default)]
pub struct Cache {
    drives: Mutex<HashMap<String, Entry>>,
    /// The probes' part, per format, of the views and the drives it was
    /// encoded from.
    probes: Mutex<Option<ProbePart>>,
    /// Per format, the drives' pieces the last [`Cache::encode_segments`]
    /// was of and its stable runs.
    segments: Mutex<[Option<DriveRuns>; 3]>,
}

/// The drives' runs of a body and what they were cut from.
#[derive(Debug)]
struct DriveRuns {
    /// The drives' pieces, held so their addresses are not reused.
    pieces: Vec<Arc<Pieces>>,
    /// The families the other parts (globals, probes) wrote: they cut the
    /// drives' families into runs, so the same pieces make other runs when
    /// these differ (probes of no monitored drive coming or going).
    cuts: Vec<usize>,
    runs: Vec<Arc<Vec<u8>>>,
}

/// A run of whole families of the body. `stable` runs are made of the
/// drives' own series only, which change only when a drive's snapshot
/// does: until then every scrape gets the same `Arc` (so a compressor can
/// keep what it made of it). The others hold the globals or the probes,
/// read anew for (nearly) every scrape.
#[derive(Debug, Clone)]
pub struct Segment {
    pub text: Arc<Vec<u8>>,
    pub stable: bool,
}

/// The views a probe part was encoded from, what else it depends on, and
/// its text per format.
type ProbePart = (Arc<Vec<ProbeView>>, ProbeKey, PerFormat);

/// What a probe part depends on besides the views: each shown drive's
/// serial (its probes' `serial` label) and the drives not shown yet (whose
/// probes wait, see [`super::held_back`]). Compared on every scrape without
/// allocating; built only when it changed.
#[derive(Debug, PartialEq)]
struct ProbeKey {
    serials: Vec<(String, String)>,
    pending: Vec<String>,
}

impl ProbeKey {
    fn of(drives: &[Arc<DriveSnapshot>], pending: Vec<String>) -> Self {
        let serials = drives
            .iter()
            .map(|d| (d.device.clone(), d.identity.serial.clone()))
            .collect();
        Self { serials, pending }
    }

    fn is(&self, drives: &[Arc<DriveSnapshot>], pending: &[String]) -> bool {
        self.pending == pending
            && self.serials.len() == drives.len()
            && self
                .serials
                .iter()
                .zip(drives)
                .all(|((device, serial), d)| *device == d.device && *serial == d.identity.serial)
    }
}

/// Pieces per [`Format`], encoded on first use.
type PerFormat = [Option<Arc<Pieces>>; 3];

#[derive(Debug)]
struct Entry {
    /// The snapshot the text is of (held, so its address is not reused).
    snap: Arc<DriveSnapshot>,
    /// The drive's probes' restarts, also in its text.
    probe_restarts: Option<u64>,
    text: PerFormat,
}

impl Cache {
    /// What [`super::encode`] gives for the same arguments, with each
    /// drive's part encoded at most once per snapshot and format, and the
    /// probes' once per `probes` (the fleet publishes them at most once a
    /// second).
    pub fn encode(
        &self,
        drives: Vec<Arc<DriveSnapshot>>,
        probes: Arc<Vec<ProbeView>>,
        build: &BuildInfo,
        format: Format,
    ) -> Vec<u8> {
        let all = drives.clone();
        self.body(drives, Arc::clone(&probes), build, format, true)
            .unwrap_or_else(|| {
                // Once per process: a drive name that defeats the split (a
                // replay folder with `"` in its name) would otherwise log
                // on every scrape.
                static LOGGED: std::sync::Once = std::sync::Once::new();
                LOGGED.call_once(|| {
                    tracing::error!(
                        "splitting the metrics body failed; encoding it whole (every scrape from now on that hits this)"
                    );
                });
                super::encode(all, probes.to_vec(), build, format)
            })
    }

    /// The same body as [`Cache::encode`] when every drive's and the
    /// probes' text is already cached for `format`, so that only the
    /// globals are encoded and the rest copied (cheap enough for the
    /// server's async threads); `None` when something would need encoding.
    pub fn encode_cached(
        &self,
        drives: Vec<Arc<DriveSnapshot>>,
        probes: Arc<Vec<ProbeView>>,
        build: &BuildInfo,
        format: Format,
    ) -> Option<Vec<u8>> {
        self.body(drives, probes, build, format, false)
    }

    /// The body, encoding what is not cached when `fill`, else `None` if
    /// anything is not; `None` also when a split failed.
    fn body(
        &self,
        drives: Vec<Arc<DriveSnapshot>>,
        probes: Arc<Vec<ProbeView>>,
        build: &BuildInfo,
        format: Format,
        fill_missing: bool,
    ) -> Option<Vec<u8>> {
        let parts = self.parts(drives, probes, build, format, fill_missing)?;
        Some(assemble(&parts, format))
    }

    /// [`Cache::encode`]'s body in runs of families (see [`Segment`]): what
    /// a compressor may keep between scrapes. `None` when a split failed
    /// (then [`Cache::encode`] is the body).
    pub fn encode_segments(
        &self,
        drives: Vec<Arc<DriveSnapshot>>,
        probes: Arc<Vec<ProbeView>>,
        build: &BuildInfo,
        format: Format,
    ) -> Option<Vec<Segment>> {
        let parts = self.parts(drives, probes, build, format, true)?;
        let mut memo = lock(&self.segments, true)?;
        let slot = &mut memo[format.index()];
        // The drives' runs are the same text while every drive's pieces
        // are (the same `Arc`s: their snapshots did not change) and the
        // other parts cut them at the same families.
        let cuts: Vec<usize> = parts[..2]
            .iter()
            .flat_map(|p| p.families.iter().map(|f| f.0))
            .collect();
        let same = slot.as_ref().is_some_and(|k| {
            k.cuts == cuts
                && k.pieces.len() + 2 == parts.len()
                && k.pieces
                    .iter()
                    .zip(&parts[2..])
                    .all(|(a, b)| Arc::ptr_eq(a, b))
        });
        let kept = if same {
            slot.as_ref().map(|k| k.runs.as_slice())
        } else {
            None
        };
        let out = segments(&parts, format, kept)?;
        if !same {
            let runs = out
                .iter()
                .filter(|s| s.stable)
                .map(|s| Arc::clone(&s.text))
                .collect();
            *slot = Some(DriveRuns {
                pieces: parts[2..].to_vec(),
                cuts,
                runs,
            });
        }
        Some(out)
    }

    /// Every part of the body, encoding what is not cached when `fill`,
    /// else `None` if anything is not: the globals, the probes, then each
    /// drive. `None` also when a split failed.
    fn parts(
        &self,
        drives: Vec<Arc<DriveSnapshot>>,
        probes: Arc<Vec<ProbeView>>,
        build: &BuildInfo,
        format: Format,
        fill_missing: bool,
    ) -> Option<Vec<Arc<Pieces>>> {
        let monitored = drives.len();
        // Usually none: no allocation.
        let pending: Vec<String> = drives
            .iter()
            .filter(|d| d.polls == 0 && d.skipped.is_empty())
            .map(|d| d.device.clone())
            .collect();
        let drives = shown(drives);
        let restarts = probe_restarts(&probes);
        let detail = build.detail;
        let probe_part =
            self.probe_part(&drives, pending, probes, (format, detail), fill_missing)?;
        let mut parts = Vec::with_capacity(drives.len() + 2);
        {
            let mut cache = lock(&self.drives, fill_missing)?;
            let restarts = |d: &DriveSnapshot| restarts.get(d.device.as_str()).copied();
            if fill_missing {
                fill(&mut cache, &drives, restarts, (format, detail));
            }
            for d in &drives {
                let entry = cache.get(&d.device);
                let current =
                    entry.filter(|e| Arc::ptr_eq(&e.snap, d) && e.probe_restarts == restarts(d));
                parts.push(current?.text[format.index()].clone()?);
            }
            if fill_missing {
                let shown: std::collections::HashSet<&str> =
                    drives.iter().map(|d| d.device.as_str()).collect();
                cache.retain(|device, _| shown.contains(device.as_str()));
            }
        }
        let globals = Exposition {
            monitored,
            process: ProcessStats::read(),
            ..Exposition::of(Parts::Globals, build.clone())
        };
        parts.insert(0, probe_part);
        parts.insert(0, Arc::new(Pieces::of(globals, format)?));
        Some(parts)
    }

    /// The probes' series in `format`, encoded once per `probes`.
    fn probe_part(
        &self,
        drives: &[Arc<DriveSnapshot>],
        pending: Vec<String>,
        probes: Arc<Vec<ProbeView>>,
        (format, detail): (Format, Detail),
        fill_missing: bool,
    ) -> Option<Arc<Pieces>> {
        let mut cached = lock(&self.probes, fill_missing)?;
        // The views are versioned by their `Arc` (one per publication);
        // no probes at all (`--probe.disable`, replay) is always the same.
        let same = |p: &Arc<Vec<ProbeView>>| {
            Arc::ptr_eq(p, &probes) || (p.is_empty() && probes.is_empty())
        };
        if !cached
            .as_ref()
            .is_some_and(|(p, k, _)| same(p) && k.is(drives, &pending))
        {
            if !fill_missing {
                return None;
            }
            *cached = Some((
                Arc::clone(&probes),
                ProbeKey::of(drives, pending),
                [None, None, None],
            ));
        }
        let (_, ProbeKey { pending, .. }, per_format) =
            cached.as_mut().map(|(p, k, f)| (p, k, f))?;
        let slot = &mut per_format[format.index()];
        if slot.is_none() && fill_missing {
            // Copied only when some must wait (see `held_back`).
            let probes: std::borrow::Cow<'_, [ProbeView]> = if pending.is_empty() {
                std::borrow::Cow::Borrowed(probes.as_slice())
            } else {
                let shown = probes.iter().filter(|p| !pending.contains(&p.drive));
                std::borrow::Cow::Owned(shown.cloned().collect())
            };
            let direct = format
                .is_text()
                .then(|| super::probe_text::write(drives, &probes, detail, format))
                .flatten()
                .and_then(|(text, families)| Pieces::written(text, families));
            if let Some(p) = direct {
                *slot = Some(Arc::new(p));
                return slot.clone();
            }
            let probes = probes.into_owned();
            let e = Exposition {
                drives: drives.to_vec(),
                probes,
                ..Exposition::of(Parts::Probes, BuildInfo::detailed(detail))
            };
            *slot = Pieces::of(e, format).map(Arc::new);
        }
        slot.clone()
    }
}

/// The lock, waited for when `wait`; otherwise `None` while another
/// scrape holds it (it may be encoding for milliseconds, and an async
/// thread must not wait for that).
fn lock<T>(m: &Mutex<T>, wait: bool) -> Option<std::sync::MutexGuard<'_, T>> {
    if wait {
        return Some(m.lock().unwrap_or_else(|e| e.into_inner()));
    }
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// Encodes in `format`, in one go, every drive whose snapshot or probe
/// restarts changed since its text was cached, or that has none yet; one
/// encode writes each family's HELP/TYPE once, however many drives.
fn fill(
    cache: &mut HashMap<String, Entry>,
    drives: &[Arc<DriveSnapshot>],
    probe_restarts: impl Fn(&DriveSnapshot) -> Option<u64>,
    (format, detail): (Format, Detail),
) {
    let mut stale = Vec::new();
    for d in drives {
        let restarts = probe_restarts(d);
        let fresh = || Entry {
            snap: Arc::clone(d),
            probe_restarts: restarts,
            text: [None, None, None],
        };
        let entry = cache.entry(d.device.clone()).or_insert_with(fresh);
        if !Arc::ptr_eq(&entry.snap, d) || entry.probe_restarts != restarts {
            *entry = fresh();
        }
        if entry.text[format.index()].is_none() {
            stale.push(Arc::clone(d));
        }
    }
    if stale.is_empty() {
        return;
    }
    let e = Exposition {
        probe_restarts: stale
            .iter()
            .filter_map(|d| Some((d.device.clone(), probe_restarts(d)?)))
            .collect(),
        drives: stale.clone(),
        ..Exposition::of(Parts::Drives, BuildInfo::detailed(detail))
    };
    let Some(pieces) = Pieces::of_drives(e, &stale, format) else {
        return;
    };
    for (d, p) in stale.iter().zip(pieces) {
        if let Some(entry) = cache.get_mut(&d.device) {
            entry.text[format.index()] = Some(Arc::new(p));
        }
    }
}

/// The body as [`Segment`]s: [`assemble`]'s text cut where a family's
/// series come from the drives (parts 2 on) and the next one's do not, or
/// the other way round. With `kept` (the stable runs made last time of the
/// same drives' pieces), those are handed out again, the same `Arc`s, and
/// only the other runs are built; `None` if `kept` does not fit (a bug).
fn segments(
    parts: &[Arc<Pieces>],
    format: Format,
    kept: Option<&[Arc<Vec<u8>>]>,
) -> Option<Vec<Segment>> {
    let mut out: Vec<Segment> = Vec::with_capacity(6);
    let reuse = kept.is_some();
    let mut kept = kept.map(|k| k.iter());
    let mut run = Vec::new();
    // Whether the open run has any text (a kept one's is not copied).
    let mut open = false;
    let mut stable = false;
    let mut short = false;
    let mut close = |out: &mut Vec<Segment>, run: &mut Vec<u8>, stable: bool| {
        let text = match kept.as_mut() {
            Some(k) if stable => k.next().map(Arc::clone),
            _ => Some(Arc::new(std::mem::take(run))),
        };
        match text {
            Some(text) => out.push(Segment { text, stable }),
            None => short = true,
        }
    };
    walk(parts, format, |part, text| {
        let from_drives = part >= 2;
        if from_drives != stable && open {
            close(&mut out, &mut run, stable);
            open = false;
        }
        stable = from_drives;
        open |= !text.is_empty();
        if !(reuse && from_drives) {
            run.extend_from_slice(text);
        }
    });
    if format == Format::OpenMetrics {
        if stable && open {
            close(&mut out, &mut run, stable);
        }
        stable = false;
        open = true;
        run.extend_from_slice(b"# EOF\n");
    }
    if open {
        close(&mut out, &mut run, stable);
    }
    // Every kept run handed out, no more, no fewer (else the body would
    // lose or repeat text: a bug).
    let left = kept.as_mut().is_some_and(|k| k.next().is_some());
    (!short && !left).then_some(out)
}

#[cfg(test)]
mod tests;
