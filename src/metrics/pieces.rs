//! An encode's body cut at its families, and bodies put together from
//! such pieces family by family, in every format.
//!
//! A text body is cut at each `# HELP` line; a protobuf one is made of
//! prometheus-client's `MetricFamily` messages, each cut into its head and
//! series ([`super::proto`]). Either way a family's pieces from several
//! parts (the globals, the probes, each drive) join into what one encode
//! of everything writes: the header once (and, in protobuf, the length of
//! the whole family before it), then every part's series in part order.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::process::ProcessStats;
use super::{BuildInfo, Exposition, Format, Parts, proto};
use crate::snapshot::DriveSnapshot;

/// One encode's body, split at its families.
#[derive(Debug)]
pub(super) struct Pieces {
    /// Shared by the drives encoded together (text).
    pub(super) text: Arc<Vec<u8>>,
    /// Per family written, in order: its index in [`order`], the byte
    /// range of its header (HELP/TYPE/UNIT lines; a message's fields but
    /// its series) and that of its series.
    pub(super) families: Vec<Cut>,
}

/// A family's index in [`order`], its header's and its series' byte ranges.
pub(super) type Cut = (usize, Range<usize>, Range<usize>);

/// The families an encode wrote, in order, placed in [`order`]; `None` if
/// they are not in its order (a bug).
fn placed(noted: Vec<(&'static str, bool)>) -> Option<Vec<usize>> {
    let mut cursor = 0;
    noted
        .into_iter()
        .filter(|f| f.1)
        .map(|(name, _)| place(&mut cursor, name))
        .collect()
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
pub(super) fn order() -> &'static [&'static str] {
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
            process: Some(stats),
            ..Exposition::of(Parts::All, BuildInfo::default())
        };
        let (_, families) = e.encode_text(Format::Prometheus);
        families.into_iter().map(|(name, _)| name).collect()
    })
}

impl Pieces {
    /// Text written with its families at hand ([`super::probe_text`]);
    /// `None` if they are not in the order's order (a bug).
    pub(super) fn written(text: String, families: super::probe_text::Families) -> Option<Self> {
        let mut cursor = 0;
        let families = families
            .into_iter()
            .map(|(name, head, body)| Some((place(&mut cursor, name)?, head, body)))
            .collect::<Option<_>>()?;
        Some(Self {
            text: Arc::new(text.into_bytes()),
            families,
        })
    }

    /// Encodes `e` in `format` and cuts it at its families; `None` if the
    /// cut does not match the families it wrote (a bug).
    pub(super) fn of(e: Exposition, format: Format) -> Option<Self> {
        if format == Format::Protobuf {
            let (families, noted) = e.encode_protobuf();
            let mut out = Self::of_proto(&families?, &placed(noted)?, |_, _| Some(0))?;
            return Some(out.pop().unwrap_or(Pieces {
                text: Arc::default(),
                families: Vec::new(),
            }));
        }
        let (text, families) = e.encode_text(format);
        Self::split_text(text.into_bytes(), placed(families)?)
    }

    /// Each of `drives`' pieces, `e` encoding them together in `format`;
    /// `None` if a series is not of the next drives (a bug).
    pub(super) fn of_drives(
        e: Exposition,
        drives: &[Arc<DriveSnapshot>],
        format: Format,
    ) -> Option<Vec<Self>> {
        if format == Format::Protobuf {
            let (families, noted) = e.encode_protobuf();
            let mut next = 0;
            let mut pieces = Self::of_proto(&families?, &placed(noted)?, |first, m| {
                let device = proto::device(m)?;
                // Within a family, drives' series come in drive order.
                if first {
                    next = 0;
                }
                while drives.get(next)?.device != device {
                    next += 1;
                }
                Some(next)
            })?;
            pieces.resize_with(drives.len(), || Pieces {
                text: Arc::default(),
                families: Vec::new(),
            });
            return Some(pieces);
        }
        Self::of(e, format)?.per_drive(drives)
    }

    /// The families `placed` (their indices in [`order`]) cut into one
    /// body per part, each series going to the part `part` names (told
    /// whether it is its family's first; a family's series reach each
    /// part in one run, which starts with a copy of the head).
    fn of_proto(
        families: &[proto::Family],
        placed: &[usize],
        mut part: impl FnMut(bool, &proto::Metric) -> Option<usize>,
    ) -> Option<Vec<Self>> {
        if families.len() != placed.len() {
            return None;
        }
        let mut out: Vec<(Vec<u8>, Vec<Cut>)> = Vec::new();
        let mut head = Vec::new();
        for (f, &i) in families.iter().zip(placed) {
            head.clear();
            proto::head(f, &mut head)?;
            let mut open = None;
            for m in &f.metric {
                let k = part(open.is_none(), m)?;
                if out.len() <= k {
                    out.resize_with(k + 1, Default::default);
                }
                let (bytes, fams) = &mut out[k];
                if open != Some(k) {
                    let start = bytes.len();
                    bytes.extend_from_slice(&head);
                    fams.push((i, start..bytes.len(), bytes.len()..bytes.len()));
                    open = Some(k);
                }
                proto::series(m, bytes);
                let end = bytes.len();
                fams.last_mut()?.2.end = end;
            }
            // A family is written with at least one series.
            open?;
        }
        Some(
            out.into_iter()
                .map(|(bytes, families)| Pieces {
                    text: Arc::new(bytes),
                    families,
                })
                .collect(),
        )
    }

    /// Cuts text at each `# HELP` line; `written` the families in it.
    fn split_text(text: Vec<u8>, written: Vec<usize>) -> Option<Self> {
        let mut text = text;
        text.shrink_to_fit();
        let mut written = written.into_iter();
        let mut out = Vec::new();
        // (family, header start, series start) of the family being read.
        let mut open: Option<(usize, usize, usize)> = None;
        // Comment lines only (HELP, TYPE, UNIT, EOF): a series line never
        // starts with `#`, and a `#` inside a label value is not at the
        // start of a line.
        let starts =
            std::iter::once(0).chain(memchr::memmem::find_iter(&text, b"\n#").map(|i| i + 1));
        for at in starts.filter(|&at| text[at..].starts_with(b"#")) {
            let line = &text[at..];
            let end = at + memchr::memchr(b'\n', line).map_or(line.len(), |n| n + 1);
            if line.starts_with(b"# HELP ") || line.starts_with(b"# EOF") {
                if let Some((i, head, body)) = open.take() {
                    out.push((i, head..body, body..at));
                }
                if line.starts_with(b"# HELP ") {
                    open = Some((written.next()?, at, end));
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
        let mut out: Vec<Pieces> = drives
            .iter()
            .map(|_| Pieces {
                text: Arc::clone(&self.text),
                families: Vec::with_capacity(self.families.len()),
            })
            .collect();
        // One pass per family over the `{device="` of its lines; a run
        // ends where a line names another drive.
        let bytes = self.text.as_slice();
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

/// Hands the body to `f` in order, each piece with the index of the part
/// it is of: family by family, its header once (from the first part that
/// has the family; in protobuf after the family's length), then every
/// part's series.
pub(super) fn walk(parts: &[Arc<Pieces>], format: Format, mut f: impl FnMut(usize, &[u8])) {
    let mut next = vec![0usize; parts.len()];
    let mut length = Vec::with_capacity(10);
    for family in 0..order().len() {
        let here = |k: usize, n: usize| {
            let p: &Pieces = &parts[k];
            p.families.get(n).filter(|(i, ..)| *i == family)
        };
        if format == Format::Protobuf {
            // The message's length: one header and every part's series.
            let mut head = None;
            let mut len = 0;
            for (k, &n) in next.iter().enumerate() {
                if let Some((_, h, b)) = here(k, n) {
                    head.get_or_insert(h.len());
                    len += b.len();
                }
            }
            length.clear();
            if let Some(h) = head {
                proto::varint(h + len, &mut length);
            }
        }
        let mut header = false;
        for (k, n) in next.iter_mut().enumerate() {
            let Some((_, head, body)) = here(k, *n) else {
                continue;
            };
            let text = &parts[k].text;
            if !header {
                f(k, &length);
                f(k, &text[head.clone()]);
                header = true;
            }
            f(k, &text[body.clone()]);
            *n += 1;
        }
    }
}

/// The body: family by family, its header once, then every part's series.
pub(super) fn assemble(parts: &[Arc<Pieces>], format: Format) -> Vec<u8> {
    let len: usize = parts
        .iter()
        .flat_map(|p| &p.families)
        .map(|(_, head, body)| head.len() + body.len() + 4)
        .sum();
    let mut out = Vec::with_capacity(len + 8);
    walk(parts, format, |_, text| out.extend_from_slice(text));
    if format == Format::OpenMetrics {
        out.extend_from_slice(b"# EOF\n");
    }
    out
}
