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
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use super::process::ProcessStats;
use super::{BuildInfo, Detail, Exposition, Parts, TextFormat, probe_restarts, shown};
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
    segments: Mutex<[Option<DriveRuns>; 2]>,
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
    runs: Vec<Arc<String>>,
}

/// A run of whole families of the body. `stable` runs are made of the
/// drives' own series only, which change only when a drive's snapshot
/// does: until then every scrape gets the same `Arc` (so a compressor can
/// keep what it made of it). The others hold the globals or the probes,
/// read anew for (nearly) every scrape.
#[derive(Debug, Clone)]
pub struct Segment {
    pub text: Arc<String>,
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

/// Pieces per format (`OpenMetrics`, `Prometheus`), encoded on first use.
type PerFormat = [Option<Arc<Pieces>>; 2];

#[derive(Debug)]
struct Entry {
    /// The snapshot the text is of (held, so its address is not reused).
    snap: Arc<DriveSnapshot>,
    /// The drive's probes' restarts, also in its text.
    probe_restarts: Option<u64>,
    text: PerFormat,
}

/// One encode's text, split at its families.
#[derive(Debug)]
struct Pieces {
    /// Shared by the drives encoded together.
    text: Arc<String>,
    /// Per family written, in order: its index in [`order`], the byte
    /// range of its HELP/TYPE/UNIT lines and that of its series.
    families: Vec<(usize, Range<usize>, Range<usize>)>,
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
        format: TextFormat,
    ) -> String {
        let all = drives.clone();
        self.body(drives, Arc::clone(&probes), build, format, true)
            .unwrap_or_else(|| {
                // Once per process: a drive name that defeats the split (a
                // replay folder with `"` in its name) would otherwise log
                // on every scrape.
                static LOGGED: std::sync::Once = std::sync::Once::new();
                LOGGED.call_once(|| {
                    tracing::error!(
                        "splitting the metrics text failed; encoding it whole (every scrape from now on that hits this)"
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
        format: TextFormat,
    ) -> Option<String> {
        self.body(drives, probes, build, format, false)
    }

    /// The body, encoding what is not cached when `fill`, else `None` if
    /// anything is not; `None` also when a split failed.
    fn body(
        &self,
        drives: Vec<Arc<DriveSnapshot>>,
        probes: Arc<Vec<ProbeView>>,
        build: &BuildInfo,
        format: TextFormat,
        fill_missing: bool,
    ) -> Option<String> {
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
        format: TextFormat,
    ) -> Option<Vec<Segment>> {
        let parts = self.parts(drives, probes, build, format, true)?;
        let mut memo = lock(&self.segments, true)?;
        let slot = &mut memo[format as usize];
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
        format: TextFormat,
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
                parts.push(current?.text[format as usize].clone()?);
            }
            if fill_missing {
                let shown: std::collections::HashSet<&str> =
                    drives.iter().map(|d| d.device.as_str()).collect();
                cache.retain(|device, _| shown.contains(device.as_str()));
            }
        }
        let globals = Exposition {
            parts: Parts::Globals,
            drives: Vec::new(),
            probes: Vec::new(),
            probe_restarts: HashMap::new(),
            build: build.clone(),
            monitored,
            process: ProcessStats::read(),
            families: Arc::default(),
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
        (format, detail): (TextFormat, Detail),
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
                [None, None],
            ));
        }
        let (_, ProbeKey { pending, .. }, per_format) =
            cached.as_mut().map(|(p, k, f)| (p, k, f))?;
        let slot = &mut per_format[format as usize];
        if slot.is_none() && fill_missing {
            // Copied only when some must wait (see `held_back`).
            let probes: std::borrow::Cow<'_, [ProbeView]> = if pending.is_empty() {
                std::borrow::Cow::Borrowed(probes.as_slice())
            } else {
                let shown = probes.iter().filter(|p| !pending.contains(&p.drive));
                std::borrow::Cow::Owned(shown.cloned().collect())
            };
            let direct = super::probe_text::write(drives, &probes, detail, format)
                .and_then(|(text, families)| Pieces::written(text, families));
            if let Some(p) = direct {
                *slot = Some(Arc::new(p));
                return slot.clone();
            }
            let probes = probes.into_owned();
            let e = Exposition {
                parts: Parts::Probes,
                drives: drives.to_vec(),
                probes,
                probe_restarts: HashMap::new(),
                build: BuildInfo {
                    detail,
                    ..BuildInfo::default()
                },
                monitored: 0,
                process: None,
                families: Arc::default(),
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
    (format, detail): (TextFormat, Detail),
) {
    let mut stale = Vec::new();
    for d in drives {
        let restarts = probe_restarts(d);
        let fresh = || Entry {
            snap: Arc::clone(d),
            probe_restarts: restarts,
            text: [None, None],
        };
        let entry = cache.entry(d.device.clone()).or_insert_with(fresh);
        if !Arc::ptr_eq(&entry.snap, d) || entry.probe_restarts != restarts {
            *entry = fresh();
        }
        if entry.text[format as usize].is_none() {
            stale.push(Arc::clone(d));
        }
    }
    if stale.is_empty() {
        return;
    }
    let e = Exposition {
        parts: Parts::Drives,
        probe_restarts: stale
            .iter()
            .filter_map(|d| Some((d.device.clone(), probe_restarts(d)?)))
            .collect(),
        drives: stale.clone(),
        probes: Vec::new(),
        build: BuildInfo {
            detail,
            ..BuildInfo::default()
        },
        monitored: 0,
        process: None,
        families: Arc::default(),
    };
    let Some(pieces) = Pieces::of(e, format).and_then(|p| p.per_drive(&stale)) else {
        return;
    };
    for (d, p) in stale.iter().zip(pieces) {
        if let Some(entry) = cache.get_mut(&d.device) {
            entry.text[format as usize] = Some(Arc::new(p));
        }
    }
}

/// `name`'s index in [`order`], looked for from `cursor` on, which then
/// moves past it: any encode asks for its families in the order's order,
/// so a text's families are placed by walking the order once. `None` if
/// `name` is not further on (a bug).
fn place(cursor: &mut usize, name: &str) -> Option<usize> {
    let order = order();
    let i = *cursor + order[*cursor..].iter().position(|&n| n == name)?;
    *cursor = i + 1;
    Some(i)
}

/// Every family's name, in the order an encode asks for them.
fn order() -> &'static [&'static str] {
    static ORDER: OnceLock<Vec<&'static str>> = OnceLock::new();
    ORDER.get_or_init(|| {
        // Nothing to encode, but every family is asked for (the process
        // ones only when there are stats to show).
        let stats = ProcessStats {
            cpu_seconds: 0.0,
            resident_bytes: 0.0,
            virtual_bytes: 0.0,
            threads: 0.0,
            open_fds: Some(0.0),
            max_fds: Some(0.0),
            start_time_seconds: Some(0.0),
        };
        let e = Exposition {
            parts: Parts::All,
            drives: Vec::new(),
            probes: Vec::new(),
            probe_restarts: HashMap::new(),
            build: BuildInfo::default(),
            monitored: 0,
            process: Some(stats),
            families: Arc::default(),
        };
        let (_, families) = e.encode_text(TextFormat::Prometheus);
        families.into_iter().map(|(name, _)| name).collect()
    })
}

impl Pieces {
    /// Text written with its families at hand ([`super::probe_text`]);
    /// `None` if they are not in the order's order (a bug).
    fn written(text: String, families: super::probe_text::Families) -> Option<Self> {
        let mut cursor = 0;
        let families = families
            .into_iter()
            .map(|(name, head, body)| Some((place(&mut cursor, name)?, head, body)))
            .collect::<Option<_>>()?;
        Some(Self {
            text: Arc::new(text),
            families,
        })
    }

    /// Encodes `e` and splits its text at each `# HELP` line; `None` if
    /// the blocks do not match the families it wrote (a bug).
    fn of(e: Exposition, format: TextFormat) -> Option<Self> {
        let (mut text, families) = e.encode_text(format);
        text.shrink_to_fit();
        let mut cursor = 0;
        let mut written = families
            .into_iter()
            .filter(|f| f.1)
            .map(|(name, _)| place(&mut cursor, name));
        let mut out = Vec::new();
        // (family, header start, series start) of the family being read.
        let mut open: Option<(usize, usize, usize)> = None;
        // Comment lines only (HELP, TYPE, UNIT, EOF): a series line never
        // starts with `#`, and a `#` inside a label value is not at the
        // start of a line.
        let starts = std::iter::once(0)
            .chain(memchr::memmem::find_iter(text.as_bytes(), b"\n#").map(|i| i + 1));
        for at in starts.filter(|&at| text[at..].starts_with('#')) {
            let line = &text[at..];
            let end = at + memchr::memchr(b'\n', line.as_bytes()).map_or(line.len(), |n| n + 1);
            if line.starts_with("# HELP ") || line.starts_with("# EOF") {
                if let Some((i, head, body)) = open.take() {
                    out.push((i, head..body, body..at));
                }
                if line.starts_with("# HELP ") {
                    open = Some((written.next()??, at, end));
                }
            } else if let Some(o) = open.as_mut() {
                // TYPE and UNIT belong to the header.
                o.2 = end;
            }
        }
        if let Some((i, head, body)) = open {
            out.push((i, head..body, body..text.len()));
        }
        if written.next().is_some() {
            return None;
        }
        Some(Self {
            text: Arc::new(text),
            families: out,
        })
    }

    /// Splits the text of `drives`, encoded together, into each drive's
    /// pieces: within a family, each drive's series are one run of lines,
    /// in drive order, each line's first label its `device`. `None` if a
    /// line is not of the next drives (a bug).
    fn per_drive(self, drives: &[Arc<DriveSnapshot>]) -> Option<Vec<Pieces>> {
        let text = self.text.as_str();
        let mut out: Vec<Pieces> = drives
            .iter()
            .map(|_| Pieces {
                text: Arc::clone(&self.text),
                families: Vec::with_capacity(self.families.len()),
            })
            .collect();
        // One pass per family over the `{device="` of its lines; a run
        // ends where a line names another drive.
        let bytes = text.as_bytes();
        let label = memchr::memmem::Finder::new(b"{device=\"");
        for (i, head, body) in &self.families {
            let mut next = 0;
            let mut run: Option<(usize, usize)> = None;
            for hit in label.find_iter(&bytes[body.clone()]) {
                let at = body.start + hit;
                let value = at + label.needle().len();
                if run.is_some_and(|(j, _)| names(bytes, value, &drives[j].device)) {
                    continue;
                }
                // This line starts after the newline before its label.
                let from = run.map_or(body.start, |(_, start)| start);
                let line = memchr::memrchr(b'\n', &bytes[from..at]).map_or(from, |n| from + n + 1);
                if let Some((j, start)) = run {
                    out[j].families.push((*i, head.clone(), start..line));
                }
                while !names(bytes, value, &drives.get(next)?.device) {
                    next += 1;
                }
                run = Some((next, line));
                next += 1;
            }
            match run {
                Some((j, start)) => out[j].families.push((*i, head.clone(), start..body.end)),
                None => return None,
            }
        }
        Some(out)
    }
}

/// Whether the label value at `at` is `name` (then its closing quote).
fn names(bytes: &[u8], at: usize, name: &str) -> bool {
    let end = at + name.len();
    bytes.get(at..end) == Some(name.as_bytes()) && bytes.get(end) == Some(&b'"')
}

/// The body as [`Segment`]s: [`assemble`]'s text cut where a family's
/// series come from the drives (parts 2 on) and the next one's do not, or
/// the other way round. With `kept` (the stable runs made last time of the
/// same drives' pieces), those are handed out again, the same `Arc`s, and
/// only the other runs are built; `None` if `kept` does not fit (a bug).
fn segments(
    parts: &[Arc<Pieces>],
    format: TextFormat,
    kept: Option<&[Arc<String>]>,
) -> Option<Vec<Segment>> {
    let mut out: Vec<Segment> = Vec::with_capacity(6);
    let reuse = kept.is_some();
    let mut kept = kept.map(|k| k.iter());
    let mut run = String::new();
    // Whether the open run has any text (a kept one's is not copied).
    let mut open = false;
    let mut stable = false;
    let mut short = false;
    let mut close = |out: &mut Vec<Segment>, run: &mut String, stable: bool| {
        let text = match kept.as_mut() {
            Some(k) if stable => k.next().map(Arc::clone),
            _ => Some(Arc::new(std::mem::take(run))),
        };
        match text {
            Some(text) => out.push(Segment { text, stable }),
            None => short = true,
        }
    };
    walk(parts, |part, text| {
        let from_drives = part >= 2;
        if from_drives != stable && open {
            close(&mut out, &mut run, stable);
            open = false;
        }
        stable = from_drives;
        open |= !text.is_empty();
        if !(reuse && from_drives) {
            run.push_str(text);
        }
    });
    if format == TextFormat::OpenMetrics {
        if stable && open {
            close(&mut out, &mut run, stable);
        }
        stable = false;
        open = true;
        run.push_str("# EOF\n");
    }
    if open {
        close(&mut out, &mut run, stable);
    }
    // Every kept run handed out, no more, no fewer (else the body would
    // lose or repeat text: a bug).
    let left = kept.as_mut().is_some_and(|k| k.next().is_some());
    (!short && !left).then_some(out)
}

/// The body: family by family, its header once, then every part's series.
fn assemble(parts: &[Arc<Pieces>], format: TextFormat) -> String {
    let len: usize = parts
        .iter()
        .flat_map(|p| &p.families)
        .map(|(_, head, body)| head.len() + body.len())
        .sum();
    let mut out = String::with_capacity(len + 8);
    walk(parts, |_, text| out.push_str(text));
    if format == TextFormat::OpenMetrics {
        out.push_str("# EOF\n");
    }
    out
}

/// Hands the body's text to `f` in order, each piece with the index of the
/// part it is of: family by family, its header once (from the first part
/// that has the family), then every part's series.
fn walk<'a>(parts: &'a [Arc<Pieces>], mut f: impl FnMut(usize, &'a str)) {
    let mut next = vec![0usize; parts.len()];
    for family in 0..order().len() {
        let mut header = false;
        for (k, (p, n)) in parts.iter().zip(next.iter_mut()).enumerate() {
            let Some((i, head, body)) = p.families.get(*n) else {
                continue;
            };
            if *i != family {
                continue;
            }
            if !header {
                f(k, &p.text[head.clone()]);
                header = true;
            }
            f(k, &p.text[body.clone()]);
            *n += 1;
        }
    }
}

#[cfg(test)]
mod tests;
