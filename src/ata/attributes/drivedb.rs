//! smartmontools' `drivedb.h`, read as data: the C array of
//! `{ "family", "model regex", "firmware regex", "warning", "presets" }`
//! entries. Comments, preprocessor lines and anything that is not an entry
//! are skipped; adjacent string literals are joined, escapes decoded. Model
//! and firmware patterns are POSIX EREs that must match the whole string, so
//! they are compiled anchored as `^(?:…)$`.

use std::sync::OnceLock;

use regex::Regex;
use regex_syntax::hir::literal::Extractor;

use super::presets::{Preset, parse_presets};

pub mod usb;

/// Where smartmontools keeps drivedb.h, the updated copy first: the
/// default of `path.drivedb` (first existing wins).
pub const DEFAULT_PATHS: [&str; 2] = [
    "/var/lib/smartmontools/drivedb/drivedb.h",
    "/usr/share/smartmontools/drivedb.h",
];

/// The largest drivedb.h read: smartmontools' own is under 1 MiB; a
/// 100 MB file took 2.26 GB to parse before this cap.
pub const FILE_LIMIT: crate::files::Limit = crate::files::Limit {
    bytes: 16 << 20,
    what: "a drivedb.h file",
};

/// A model or firmware pattern, checked when the file is read and compiled
/// the first time a drive could match it. A host has a handful of drives
/// and drivedb.h about a thousand entries: compiling them all at start
/// took about 10 MiB on hosts that often have no SATA drive at all.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    /// Every match starts with one of these (from the pattern's literal
    /// prefixes); `None` when no finite set says so. A string that starts
    /// with none of them cannot match, and nothing is compiled for it.
    prefixes: Option<Vec<Vec<u8>>>,
    /// `None` inside: the pattern parsed but did not compile (over the size
    /// limit); it then matches nothing.
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// Parses `pattern` (a POSIX ERE for a full-string match) without
    /// compiling it: a syntax error is reported now.
    pub fn new(pattern: &str) -> Result<Pattern, String> {
        if pattern.is_empty() {
            return Err("empty model regex".to_owned());
        }
        let hir = regex_syntax::Parser::new()
            .parse(&anchored(pattern))
            .map_err(|e| rejected(pattern, &e.to_string()))?;
        let prefixes = Extractor::new()
            .extract(&hir)
            .literals()
            .map(|ls| ls.iter().map(|l| l.as_bytes().to_vec()).collect());
        Ok(Pattern {
            source: pattern.to_owned(),
            prefixes,
            compiled: OnceLock::new(),
        })
    }

    /// Whether the whole of `s` matches.
    pub fn is_match(&self, s: &str) -> bool {
        if let Some(p) = &self.prefixes
            && !p.iter().any(|p| s.as_bytes().starts_with(p))
        {
            return false;
        }
        self.compiled
            .get_or_init(|| compile_full(&self.source).ok())
            .as_ref()
            .is_some_and(|r| r.is_match(s))
    }

    /// The pattern as drivedb.h gives it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether it has been compiled (for tests).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }
}

fn anchored(pattern: &str) -> String {
    format!("^(?:{pattern})$")
}

fn rejected(pattern: &str, error: &str) -> String {
    format!(
        "regex {pattern:?} rejected: {}",
        error.lines().last().unwrap_or("")
    )
}

/// One usable drive entry.
#[derive(Debug, Clone)]
pub struct DbEntry {
    pub family: String,
    pub model: Pattern,
    /// `None` when the entry matches any firmware.
    pub firmware: Option<Pattern>,
    pub presets: Vec<Preset>,
}

impl DbEntry {
    /// Whether the entry matches this model and firmware.
    pub fn matches(&self, model: &str, firmware: &str) -> bool {
        self.model.is_match(model) && self.firmware.as_ref().is_none_or(|f| f.is_match(firmware))
    }
}

/// A parsed drivedb.h.
#[derive(Debug, Clone, Default)]
pub struct DriveDb {
    /// The `"VERSION: …"` entry's text, if present.
    pub version: Option<String>,
    /// The `"DEFAULT"` entry's presets.
    pub default: Vec<Preset>,
    /// Drive entries in file order (first match wins).
    pub entries: Vec<DbEntry>,
    /// The USB bridge entries (`USB: …`), in file order.
    pub usb: usb::UsbTable,
}

impl DriveDb {
    /// Parses drivedb.h text. Bad entries are skipped and reported; text that
    /// cannot be tokenized (an unterminated string or comment) yields an empty
    /// database and the error.
    pub fn parse(text: &str) -> (DriveDb, Vec<String>) {
        let mut db = DriveDb::default();
        let mut errors = Vec::new();
        let tokens = match tokenize(text) {
            Ok(t) => t,
            Err(e) => return (db, vec![e]),
        };
        let mut i = 0;
        while i < tokens.len() {
            if tokens[i].kind != Kind::Open {
                i += 1;
                continue;
            }
            match entry_at(&tokens, i) {
                Some((fields, next)) => {
                    db.add(fields, tokens[i].line, &mut errors);
                    i = next;
                }
                // An array's opening brace, or a malformed entry: step inside.
                None => {
                    if tokens.get(i + 1).is_some_and(|t| t.kind == Kind::Str) {
                        errors.push(format!(
                            "drivedb.h line {}: malformed entry skipped",
                            tokens[i].line
                        ));
                    }
                    i += 1;
                }
            }
        }
        if db.entries.is_empty() && db.default.is_empty() {
            errors.push("drivedb.h: no drive entries found".to_owned());
        }
        (db, errors)
    }

    /// The first entry matching the drive.
    pub fn find(&self, model: &str, firmware: &str) -> Option<&DbEntry> {
        self.entries.iter().find(|e| e.matches(model, firmware))
    }

    fn add(&mut self, f: [String; 5], line: usize, errors: &mut Vec<String>) {
        let [family, model, firmware, _warning, presets] = f;
        let at = |msg: String| format!("drivedb.h line {line} ({family:?}): {msg}");
        if family.starts_with("VERSION:") {
            self.version = Some(family);
            return;
        }
        // '$' marks a disabled entry.
        if family.starts_with('$') {
            return;
        }
        // USB entries map bridge ids to device types, not drive models.
        if family.starts_with("USB:") {
            match usb::entry(family.clone(), &model, &firmware, &presets) {
                Ok(e) => {
                    if let Err(why) = &e.device_type {
                        errors.push(at(format!("{why} (a bridge it matches is unknown)")));
                    }
                    self.usb.entries.push(e);
                }
                Err(e) => errors.push(at(e)),
            }
            return;
        }
        if family == "DEFAULT" {
            match parse_presets(&presets, true) {
                Ok(p) => self.default = p,
                Err(e) => errors.push(at(e)),
            }
            return;
        }
        let parsed = (|| {
            let model = Pattern::new(&model)?;
            let firmware = if firmware.is_empty() {
                None
            } else {
                Some(Pattern::new(&firmware)?)
            };
            let presets = parse_presets(&presets, false)?;
            Ok::<_, String>(DbEntry {
                family: family.clone(),
                model,
                firmware,
                presets,
            })
        })();
        match parsed {
            Ok(e) => self.entries.push(e),
            Err(e) => errors.push(at(e)),
        }
    }
}

/// Compiles a POSIX ERE for a full-string match.
pub fn compile_full(pattern: &str) -> Result<Regex, String> {
    if pattern.is_empty() {
        return Err("empty model regex".to_owned());
    }
    regex::RegexBuilder::new(&anchored(pattern))
        .size_limit(1 << 22)
        .build()
        .map_err(|e| rejected(pattern, &e.to_string()))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Open,
    Close,
    Comma,
    Str,
    Other,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    text: String,
    line: usize,
}

/// `{ S , S , S , S , S [,] }` starting at `i`: the five strings and the
/// index after the closing brace.
fn entry_at(t: &[Token], i: usize) -> Option<([String; 5], usize)> {
    let mut j = i + 1;
    let mut fields: Vec<String> = Vec::with_capacity(5);
    loop {
        if t.get(j)?.kind != Kind::Str {
            return None;
        }
        fields.push(t[j].text.clone());
        j += 1;
        let sep = &t.get(j)?.kind;
        if fields.len() == 5 {
            if *sep == Kind::Comma {
                j += 1;
            }
            if t.get(j)?.kind != Kind::Close {
                return None;
            }
            return fields.try_into().ok().map(|f| (f, j + 1));
        }
        if *sep != Kind::Comma {
            return None;
        }
        j += 1;
    }
}

/// Splits C source into braces, commas, joined string literals and other
/// characters, skipping comments and preprocessor lines.
fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let b = text.as_bytes();
    let mut out: Vec<Token> = Vec::new();
    let (mut i, mut line, mut line_start) = (0, 1, true);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..]
                .find("*/")
                .ok_or(format!("drivedb.h line {line}: unterminated comment"))?;
            line += text[i..i + 2 + end].matches('\n').count();
            i += end + 4;
        } else if c == b'"' {
            let (s, next) = string_literal(text, i + 1)
                .ok_or(format!("drivedb.h line {line}: unterminated string"))?;
            match out.last_mut() {
                Some(prev) if prev.kind == Kind::Str => prev.text.push_str(&s),
                _ => out.push(Token {
                    kind: Kind::Str,
                    text: s,
                    line,
                }),
            }
            i = next;
        } else {
            let kind = match c {
                b'{' => Kind::Open,
                b'}' => Kind::Close,
                b',' => Kind::Comma,
                _ => Kind::Other,
            };
            out.push(Token {
                kind,
                text: String::new(),
                line,
            });
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    Ok(out)
}

/// Decodes a string literal whose body starts at `start`; returns the text and
/// the index after the closing quote. A raw newline ends it unterminated.
fn string_literal(text: &str, start: usize) -> Option<(String, usize)> {
    let mut s = String::new();
    let mut it = text[start..].char_indices().peekable();
    while let Some((off, c)) = it.next() {
        match c {
            '"' => return Some((s, start + off + 1)),
            '\n' => return None,
            '\\' => {
                let (_, e) = it.next()?;
                match e {
                    'n' => s.push('\n'),
                    't' => s.push('\t'),
                    'r' => s.push('\r'),
                    'a' => s.push('\x07'),
                    'b' => s.push('\x08'),
                    'f' => s.push('\x0c'),
                    'v' => s.push('\x0b'),
                    '0'..='7' => {
                        let mut v = e.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match it.peek().and_then(|(_, d)| d.to_digit(8)) {
                                Some(d) => {
                                    v = v * 8 + d;
                                    it.next();
                                }
                                None => break,
                            }
                        }
                        s.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    'x' => {
                        let mut v = 0u32;
                        while let Some(d) = it.peek().and_then(|(_, d)| d.to_digit(16)) {
                            v = v.saturating_mul(16).saturating_add(d);
                            it.next();
                        }
                        s.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    '\n' => {}              // line continuation
                    other => s.push(other), // \\ \" \' \? and unknown escapes
                }
            }
            c => s.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests;
