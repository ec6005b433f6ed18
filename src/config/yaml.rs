//! The config file's errors in YAML's terms — the key, what it wants, an
//! example, the line and column — never echoing the file's content beyond
//! the key: a `--config.file` pointed at `/etc/passwd` must not print it;
//! and the line a key is on, for a value error.

use super::RawFile;
use super::spec::KeyDoc;

/// Parses the file's text; an error is one line in YAML's terms.
pub fn parse(text: &str) -> Result<RawFile, String> {
    if text.trim().is_empty() {
        return Ok(RawFile::default());
    }
    serde_yaml_ng::from_str(text).map_err(|e| render(&e, &super::keys::all()))
}

/// `line 2 column 9: probe.rate: expected a number, e.g. …; found a string`.
fn render(e: &serde_yaml_ng::Error, keys: &[KeyDoc]) -> String {
    let mut text = e.to_string().replace('\n', " ");
    let mut at = String::new();
    if let Some(l) = e.location() {
        text = text.replacen(
            &format!(" at line {} column {}", l.line(), l.column()),
            "",
            1,
        );
        at = format!("line {} column {}: ", l.line(), l.column());
    }
    let (path, what) = match text.split_once(": ") {
        Some((p, w)) if is_path(p) => (p.to_string(), w.to_string()),
        _ => (String::new(), text),
    };
    let message = match what
        .strip_prefix("invalid type: ")
        .or_else(|| what.strip_prefix("invalid value: "))
    {
        Some(found) => wanted(&path, found, keys),
        // serde names the key it does not know and the ones it does.
        None if what.starts_with("unknown field") => {
            keyed(&path, &what.replacen("unknown field", "unknown key", 1))
        }
        None if path.is_empty() => format!("not valid YAML: {}", no_values(&what)),
        None => keyed(&path, &no_values(&what)),
    };
    at + &message
}

/// A key path as serde_yaml_ng writes it: `probe.write.rate`, `replay[0]`.
fn is_path(p: &str) -> bool {
    !p.is_empty()
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
}

fn keyed(path: &str, what: &str) -> String {
    match path {
        "" => what.to_string(),
        p => format!("{p}: {what}"),
    }
}

/// Everything before the first quoted value: serde quotes what it found.
fn no_values(what: &str) -> String {
    let cut = what.find(['"', '\'']).unwrap_or(what.len());
    what[..cut].trim_end_matches([' ', ',', ':']).to_string()
}

/// What `path` wants, with an example, and the kind of value found (never
/// the value itself).
fn wanted(path: &str, found: &str, keys: &[KeyDoc]) -> String {
    let found = found_kind(found);
    // An entry of `health.overrides` takes the `health.*` keys.
    if let Some((_, field)) = path
        .strip_prefix("health.overrides[")
        .and_then(|rest| rest.split_once("]."))
    {
        let name = format!("health.{field}");
        if let Some(k) = keys.iter().find(|k| k.name == name) {
            let example = format!("health: {{overrides: [{{{field}: {}}}]}}", k.example);
            return format!(
                "{path}: expected {}, e.g. `{example}`; found {found}",
                k.kind
            );
        }
    }
    let key = path.split('[').next().unwrap_or_default();
    if let Some(k) = keys.iter().find(|k| k.name == key) {
        // An item of a list: every list holds strings (paths, names).
        let kind = match path.contains('[') {
            true => "a string",
            false => k.kind.as_str(),
        };
        let example = nested(key, &k.example);
        return format!("{path}: expected {kind}, e.g. `{example}`; found {found}");
    }
    let prefix = match key {
        "" => String::new(),
        k => format!("{k}."),
    };
    let inside: Vec<&str> = keys
        .iter()
        .filter_map(|k| k.name.strip_prefix(prefix.as_str()))
        .map(|rest| rest.split('.').next().unwrap_or(rest))
        .fold(Vec::new(), |mut v, n| {
            if !v.contains(&n) {
                v.push(n);
            }
            v
        });
    match (key, inside.is_empty()) {
        ("", _) => format!(
            "expected a mapping of keys and sections ({}), found {found}; is this ssd_exporter's YAML configuration file?",
            inside.join(", ")
        ),
        (_, false) => {
            let first = keys.iter().find(|k| k.name.starts_with(&prefix));
            let example = first
                .map(|k| nested(k.name, &k.example))
                .unwrap_or_default();
            format!(
                "{key}: expected a section of keys ({}), e.g. `{example}`; found {found}",
                inside.join(", ")
            )
        }
        (_, true) => format!("{key}: not accepted here; found {found}"),
    }
}

/// `probe.write.rate` and `0.2` → `probe: {write: {rate: 0.2}}`.
fn nested(key: &str, value: &str) -> String {
    let parts: Vec<&str> = key.split('.').collect();
    let (last, sections) = parts.split_last().unwrap_or((&"", &[]));
    let mut text = format!("{last}: {value}");
    for s in sections.iter().rev() {
        text = format!("{s}: {{{text}}}");
    }
    text
}

/// serde's description of what it found, as a kind of YAML value.
fn found_kind(unexpected: &str) -> &'static str {
    let what = unexpected.split(", expected").next().unwrap_or_default();
    match what.split([' ', '`']).next().unwrap_or_default() {
        "string" | "char" => "a string",
        "integer" => "a number",
        "floating" => "a number with a fraction",
        "boolean" => "true or false",
        "sequence" => "a list",
        "map" => "a section (keys and values)",
        "unit" => "nothing (an empty value)",
        _ => "a value of another kind",
    }
}

/// The 1-based line of `key` (dotted) in block-style YAML `text`, for
/// errors about a value that came from the file; `None` if it is not
/// written there that way (flow style, or set by a flag).
pub fn line_of(text: &str, key: &str) -> Option<usize> {
    let want: Vec<&str> = key.split('.').collect();
    // (indent, name) of the keys enclosing the current line.
    let mut open: Vec<(usize, &str)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') || body.starts_with('-') {
            continue;
        }
        let indent = line.len() - body.len();
        let Some((name, _)) = body.split_once(':') else {
            continue;
        };
        let name = name.trim().trim_matches(['"', '\'']);
        while open.last().is_some_and(|(i, _)| *i >= indent) {
            open.pop();
        }
        open.push((indent, name));
        if open.iter().map(|(_, k)| *k).eq(want.iter().copied()) {
            return Some(n + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests;
