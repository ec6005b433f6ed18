//! No import cycles: between the crate's top-level modules, and between
//! sibling files inside a module (CONVENTIONS 12). Reads `src/` as text:
//! every `crate::…` and `super::…` path outside comments and test modules
//! is an edge to the module it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::repo;

/// `src/health/verdict.rs` → `health::verdict`; `src/health/mod.rs` → `health`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comment lines and without its test module.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    body.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path following `prefix` (`crate::` or `super::`), as segments.
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let segs: Vec<&str> = rest
            .split("::")
            .map(|s| {
                let end = s
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(s.len());
                &s[..end]
            })
            .take_while(|s| !s.is_empty())
            .collect();
        out.push(segs);
    }
    out
}

/// The longest known module that `segs` starts with.
fn resolve(known: &BTreeSet<String>, base: &[&str], segs: &[&str]) -> Option<String> {
    let full: Vec<&str> = base.iter().chain(segs).copied().collect();
    (1..=full.len())
        .rev()
        .map(|n| full[..n].join("::"))
        .find(|m| known.contains(m))
}

/// Strongly connected components with more than one member.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.keys().chain(edges.values().flatten()).collect();
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for n in &nodes {
        let scc: Vec<String> = nodes
            .iter()
            .filter(|m| reached[*n].contains(**m) && reached[*m].contains(*n))
            .map(|m| m.to_string())
            .collect();
        if scc.len() > 1 && !out.contains(&scc) {
            out.push(scc);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // Test-only files (`tests.rs`, `tests/` folders) are not layers.
    files.retain(|f| {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        !rel.contains("tests") && rel != "main.rs" && rel != "lib.rs"
    });
    let known: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let me = module_of(&src, f);
        let text = code(&std::fs::read_to_string(f).unwrap());
        let mut to = BTreeSet::new();
        for segs in paths_after(&text, "crate::") {
            to.extend(resolve(&known, &[], &segs));
        }
        // `super::` from module `a::b` (file `a/b.rs` or `a/b/mod.rs`) is `a`.
        let mut base: Vec<&str> = me.split("::").collect();
        base.pop();
        for segs in paths_after(&text, "super::") {
            to.extend(resolve(&known, &base, &segs));
        }
        to.remove(&me);
        edges.entry(me).or_default().extend(to);
    }
    edges
}

#[test]
fn top_level_modules_import_each_other_without_cycles() {
    let top = top_level(&graph());
    assert!(top.len() > 10, "{top:?}");
    let found = cycles(&top);
    assert!(found.is_empty(), "module cycles: {found:?}\n{top:#?}");
}

#[test]
fn sibling_files_import_each_other_without_cycles() {
    let edges = graph();
    // Edges between two files of the same parent module, neither the parent.
    let parent = |m: &str| m.rsplit_once("::").map(|(p, _)| p.to_string());
    let mut siblings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in &edges {
        for to in tos {
            if parent(from).is_some() && parent(from) == parent(to) {
                siblings.entry(from.clone()).or_default().insert(to.clone());
            }
        }
    }
    assert!(!siblings.is_empty());
    let found = cycles(&siblings);
    assert!(found.is_empty(), "file cycles: {found:?}");
}

/// The one test convention (README, Development): a module's unit tests are
/// its child file `tests` (`a/b.rs` → `a/b/tests.rs`, `a/mod.rs` →
/// `a/tests.rs`), never an inline `mod tests { … }` block nor a `#[path]`
/// to a file elsewhere.
#[test]
fn unit_tests_are_the_modules_own_tests_file() {
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            let what = if l.contains("mod tests {") {
                "an inline `mod tests { … }` block"
            } else if l.starts_with("#[path") {
                "a `#[path]` attribute"
            } else {
                continue;
            };
            let rel = f.strip_prefix(repo()).unwrap().display();
            bad.push(format!("{rel}:{}: {what}", n + 1));
        }
    }
    assert!(
        bad.is_empty(),
        "unit tests go in the module's own `tests` file (`#[cfg(test)] mod tests;` \
         at the end; `src/a/b.rs` -> `src/a/b/tests.rs`):\n{}",
        bad.join("\n")
    );
}

/// The checker itself: a cycle it must see, and a chain it must not.
#[test]
fn the_cycle_finder_finds_cycles_and_only_cycles() {
    let e = |pairs: &[(&str, &str)]| {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            m.entry(a.to_string()).or_default().insert(b.to_string());
        }
        m
    };
    assert!(cycles(&e(&[("a", "b"), ("b", "c")])).is_empty());
    assert_eq!(
        cycles(&e(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
        [vec!["a".to_string(), "b".into(), "c".into()]]
    );
    let code = "use crate::poll::{Source};\n// use crate::http::x;\nuse super::judgement::Judge;";
    let stripped = self::code(code);
    assert_eq!(paths_after(&stripped, "crate::"), [vec!["poll"]]);
    assert_eq!(paths_after(code, "super::"), [vec!["judgement", "Judge"]]);
}

fn top_level(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in edges {
        let a = from.split("::").next().unwrap().to_string();
        let entry = top.entry(a.clone()).or_default();
        for to in tos {
            let b = to.split("::").next().unwrap().to_string();
            if a != b {
                entry.insert(b);
            }
        }
    }
    top
}

/// The drawing of the house in `src/lib.rs` (`# Layout`, "Today's edges")
/// as a map: each drawn module to the modules it says it imports; `app`'s
/// "everything it wires" is left out.
fn drawn() -> BTreeMap<String, BTreeSet<String>> {
    let lib = std::fs::read_to_string(repo().join("src/lib.rs")).unwrap();
    let start = lib
        .find("Today's edges")
        .expect("lib.rs draws today's edges");
    let block: Vec<&str> = lib[start..]
        .lines()
        .map(|l| l.trim_start_matches("//!").trim())
        .skip_while(|l| *l != "```text")
        .skip(1)
        .take_while(|l| *l != "```")
        .collect();
    let strip_notes = |s: &str| {
        let mut out = String::new();
        let mut depth = 0;
        for c in s.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out
    };
    let names = |s: &str| -> BTreeSet<String> {
        strip_notes(s)
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    };
    let mut map = BTreeMap::new();
    for line in block {
        let (from, to) = match line.split_once('→') {
            Some((from, to)) => (from, to),
            None => (line, ""),
        };
        if to.trim() == "everything it wires" {
            continue;
        }
        for m in names(from) {
            map.insert(m, names(to));
        }
    }
    map
}

/// Every top-level module's imports are what `src/lib.rs` draws: a new edge
/// (or one that went) fails here until the drawing says so.
#[test]
fn the_drawing_in_lib_rs_is_the_house() {
    let mut actual = top_level(&graph());
    actual.remove("app");
    let drawn = drawn();
    let mut wrong = Vec::new();
    for (m, tos) in &actual {
        match drawn.get(m) {
            None => wrong.push(format!("{m} is not drawn (it imports {tos:?})")),
            Some(d) if d != tos => wrong.push(format!(
                "{m}: drawn {d:?}, imports {tos:?} (missing from the drawing: {:?}, drawn but gone: {:?})",
                tos.difference(d).collect::<Vec<_>>(),
                d.difference(tos).collect::<Vec<_>>()
            )),
            Some(_) => {}
        }
    }
    for m in drawn.keys().filter(|m| !actual.contains_key(*m)) {
        wrong.push(format!("{m} is drawn but is no module of the crate"));
    }
    assert!(
        wrong.is_empty(),
        "src/lib.rs's drawing:\n{}",
        wrong.join("\n")
    );
}
