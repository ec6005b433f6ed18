//! The documentation stands alone and agrees with the code: every family
//! the exporter emits is in docs/metrics.md and every family documented
//! there exists in the code; every link and repository path in a Markdown
//! file names a file that exists, and none points outside the repository;
//! the counts the docs give (alerts, recording rules, configuration keys,
//! per-exporter series) are the code's.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::*;

#[test]
fn every_exposed_family_is_documented() {
    let docs = std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap();
    let text = serve_fixtures("");
    let mut families = 0;
    for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
        let name = line.split_whitespace().nth(2).unwrap();
        assert!(
            docs.contains(&format!("`{name}`")),
            "{name} is not in docs/metrics.md"
        );
        families += 1;
    }
    assert!(families > 40, "{families}");
}

/// Every `name` in backticks at the start of a docs/metrics.md table row
/// (a row may name several: `a`, `b` or `a` / `b`).
fn documented_families() -> BTreeSet<String> {
    let docs = std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap();
    let mut names = BTreeSet::new();
    for row in docs.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split('|').nth(1).unwrap_or_default();
        for name in first.split('`').skip(1).step_by(2) {
            let name = name.split('{').next().unwrap_or(name);
            if name.starts_with("ssd_") || name.starts_with("process_") {
                names.insert(name.to_string());
            }
        }
    }
    names
}

/// Every Rust source file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

#[test]
fn every_documented_family_exists_in_the_code() {
    let code: String = rust_files(&repo().join("src/metrics"))
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let documented = documented_families();
    assert!(documented.len() > 60, "{documented:?}");
    // A counter is named without `_total`, which the client library adds.
    let named = |n: &str| code.contains(&format!("\"{n}\""));
    let stale: Vec<&String> = documented
        .iter()
        .filter(|n| !named(n) && !n.strip_suffix("_total").is_some_and(named))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/metrics.md documents families src/metrics never names: {stale:?}"
    );
}

/// The Markdown files of the repository (not build output or checkouts).
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            out.extend(markdown_files(&path));
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
    out
}

/// Paths that illustrate a naming rule and are not meant to exist.
const ILLUSTRATIVE: [&str; 5] = [
    "src/a/b.rs",
    "src/a/b/tests.rs",
    "src/a/mod.rs",
    "src/a/tests.rs",
    "tests/mod.rs",
];

/// What a Markdown file points to: link targets, and backticked words
/// that look like a path in the repository (starting with one of its
/// top-level entries) or outside it.
fn pointers(text: &str, tops: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split("](").skip(1) {
        let target = part.split([')', ' ']).next().unwrap_or_default();
        let target = target.split('#').next().unwrap_or_default();
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(target.to_string());
        }
    }
    for word in text.split('`').skip(1).step_by(2) {
        let plain = word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
        let top = word.split('/').next().unwrap_or_default();
        let outside = word.starts_with("../") || word.starts_with("/work/");
        if plain && word.contains('/') && (tops.contains(top) || outside) {
            out.push(word.to_string());
        }
    }
    out
}

#[test]
fn every_link_and_path_in_the_docs_names_a_file_of_the_repository() {
    let root = repo();
    let tops: BTreeSet<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "target")
        .chain(["shared".to_string()])
        .collect();
    let mut broken = Vec::new();
    let files = markdown_files(&root);
    assert!(files.len() > 10, "{files:?}");
    for md in &files {
        let text = std::fs::read_to_string(md).unwrap();
        let rel = md.strip_prefix(&root).unwrap().display().to_string();
        for bad in ["shared/reference", "/work/shared", "../shared"] {
            if text.contains(bad) {
                broken.push(format!("{rel}: points to {bad} (not in the repository)"));
            }
        }
        for p in pointers(&text, &tops) {
            if ILLUSTRATIVE.contains(&p.as_str()) {
                continue;
            }
            let here = md.parent().unwrap().join(&p);
            let exists = here.exists() || root.join(&p).exists();
            let inside = here
                .canonicalize()
                .or_else(|_| root.join(&p).canonicalize())
                .is_ok_and(|c| c.starts_with(root.canonicalize().unwrap()));
            if !exists || !inside {
                broken.push(format!("{rel}: {p}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "dangling pointers:\n{}",
        broken.join("\n")
    );
}

/// Every number `n` written as "n <what>" in the Markdown files, with the
/// file it is in.
fn claims(what: &str) -> Vec<(String, usize)> {
    let root = repo();
    let mut out = Vec::new();
    for md in markdown_files(&root) {
        let text = std::fs::read_to_string(&md).unwrap().replace('\n', " ");
        let words: Vec<&str> = text.split(' ').collect();
        let n_words = what.split(' ').count();
        for (i, w) in words.iter().enumerate() {
            let Ok(n) = w.trim_start_matches(['(', '*']).parse::<usize>() else {
                continue;
            };
            let next = words.get(i + 1..i + 1 + n_words).map(|s| s.join(" "));
            if next.is_some_and(|s| s.trim_end_matches([',', '.', ';', ':', ')']) == what) {
                let rel = md.strip_prefix(&root).unwrap().display().to_string();
                out.push((rel, n));
            }
        }
    }
    out
}

/// The alert (or recording) rule names in alerts/*.yml.
fn rules(kind: &str) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(repo().join("alerts")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "yml") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for line in text.lines() {
                if let Some(name) = line.trim().strip_prefix(&format!("- {kind}: ")) {
                    names.push(name.trim().to_string());
                }
            }
        }
    }
    names
}

#[test]
fn counts_in_the_docs_agree_with_the_code() {
    let alerts = rules("alert");
    let records = rules("record");
    assert!(
        alerts.len() > 20 && records.len() > 3,
        "{alerts:?} {records:?}"
    );
    let reference = std::fs::read_to_string(repo().join("docs/configuration.md")).unwrap();
    let table = reference
        .split("<!-- config table")
        .nth(1)
        .and_then(|t| t.split("<!-- end of config table").next())
        .unwrap();
    // Rows whose key column names a key (flags without one show "–").
    let keys = table
        .lines()
        .filter(|l| l.starts_with("| "))
        .filter(|l| l.split('|').nth(2).is_some_and(|k| k.contains('`')))
        .count();
    let per_exporter = parse(&serve_fixtures(""))
        .keys()
        .filter(|k| !k.contains("device=\""))
        .count();
    let cases = [
        ("alerts", alerts.len(), true),
        ("recording rules", records.len(), false),
        ("configuration keys", keys, true),
    ];
    let mut wrong = Vec::new();
    for (what, real, required) in cases {
        let found = claims(what);
        assert!(
            !required || !found.is_empty(),
            "no document says how many {what}"
        );
        for (file, n) in found {
            if n != real {
                wrong.push(format!("{file}: {n} {what}, the code has {real}"));
            }
        }
    }
    let said: Vec<(String, usize)> = claims("(`ssd_exporter_build_info`");
    assert!(
        !said.is_empty(),
        "deploy/README.md's per-exporter count is gone"
    );
    for (file, n) in said {
        if n != per_exporter {
            wrong.push(format!(
                "{file}: {n} series per exporter, a scrape has {per_exporter}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_alert_table_lists_every_alert() {
    let readme = std::fs::read_to_string(repo().join("alerts/README.md")).unwrap();
    let table: BTreeSet<String> = readme
        .lines()
        .filter(|l| l.starts_with("| `Ssd"))
        .filter_map(|l| l.split('`').nth(1).map(str::to_string))
        .collect();
    let rules: BTreeSet<String> = rules("alert").into_iter().collect();
    let missing: Vec<_> = rules.difference(&table).collect();
    let stale: Vec<_> = table.difference(&rules).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "alerts/README.md's table: missing {missing:?}, not a rule {stale:?}"
    );
}

/// The Dockerfile's comment block that starts with `docker run`, as the
/// command (comment marks and continuation indents gone).
fn docker_run(text: &str, comment: bool) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|l| match comment {
            true => l.strip_prefix('#').unwrap_or("").trim().to_string(),
            false => l.trim().to_string(),
        })
        .collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("docker run -d"))
        .expect("no docker run command");
    let mut cmd = String::new();
    for l in &lines[start..] {
        cmd += l.trim_end_matches('\\').trim();
        cmd.push(' ');
        if !l.ends_with('\\') {
            break;
        }
    }
    cmd.trim().to_string()
}

#[test]
fn the_install_paths_match_the_dockerfile_and_the_package() {
    let root = repo();
    let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
    let readme = std::fs::read_to_string(root.join("docs/install.md")).unwrap();
    // The build and run commands the Dockerfile documents are docs/install.md's.
    assert!(dockerfile.contains("#   docker build -t ssd_exporter ."));
    assert!(readme.contains("    docker build -t ssd_exporter .\n"));
    assert_eq!(docker_run(&readme, false), docker_run(&dockerfile, true));
    // The runtime image is the builder's Debian release (the binary links
    // its glibc dynamically).
    let froms: Vec<&str> = dockerfile
        .lines()
        .filter_map(|l| l.strip_prefix("FROM "))
        .collect();
    assert_eq!(froms.len(), 2, "{froms:?}");
    let release = |image: &str| {
        let tag = image
            .split(':')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        ["bookworm", "trixie"]
            .into_iter()
            .find(|r| tag.contains(r))
            .unwrap_or_else(|| panic!("no Debian release in {image}"))
    };
    assert_eq!(release(froms[0]), release(froms[1]), "{froms:?}");
    // What it copies from the checkout exists; the entrypoint is the binary
    // it installs; the default config file is one it copies.
    let mut copied = Vec::new();
    for l in dockerfile.lines().filter(|l| l.starts_with("COPY ")) {
        let parts: Vec<&str> = l.split_whitespace().collect();
        copied.push(parts[parts.len() - 1].to_string());
        if !l.contains("--from=") && parts[1] != "." {
            assert!(root.join(parts[1]).exists(), "{l}: no {}", parts[1]);
        }
    }
    assert!(dockerfile.contains("--bin ssd_exporter"), "{dockerfile}");
    assert!(dockerfile.contains("ENTRYPOINT [\"/usr/bin/ssd_exporter\"]"));
    assert!(
        copied.contains(&"/usr/bin/ssd_exporter".to_string()),
        "{copied:?}"
    );
    let cmd = dockerfile.lines().find(|l| l.starts_with("CMD ")).unwrap();
    let config = cmd
        .split("--config.file=")
        .nth(1)
        .unwrap()
        .trim_end_matches(['"', ']']);
    assert!(copied.contains(&config.to_string()), "{cmd}: {copied:?}");
    // The package file docs/install.md names is the one cargo-deb writes for
    // this version.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .unwrap()
        .trim_end_matches('"');
    let deb = format!("ssd-exporter_{version}-1_amd64.deb");
    assert!(readme.contains(&format!("target/debian/{deb}")), "{deb}");
    assert!(
        readme.contains(&format!("sudo apt install ./{deb}")),
        "{deb}"
    );
    assert!(manifest.contains("recommends = \"smartmontools\""));
}

/// The places a Markdown file sends its reader to by name — `file.md,
/// "Heading"`, `[x](file.md), "Heading"`, `file.md ("Heading")` — with the
/// file's path resolved as a link is (beside the file, else from the root).
fn section_pointers(md: &Path, text: &str) -> Vec<(PathBuf, String)> {
    let root = repo();
    let mut out = Vec::new();
    for (at, _) in text.match_indices(".md") {
        let start = text[..at]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let file = &text[start..at + 3];
        let rest = text[at + 3..].trim_start_matches(')');
        let rest = rest
            .strip_prefix(", \"")
            .or_else(|| rest.strip_prefix(" (\""))
            .or_else(|| rest.strip_prefix(" \""));
        let Some(quoted) = rest.and_then(|r| r.split('"').next()) else {
            continue;
        };
        let here = md.parent().unwrap().join(file);
        let path = if here.exists() { here } else { root.join(file) };
        out.push((
            path,
            quoted.split_whitespace().collect::<Vec<_>>().join(" "),
        ));
    }
    out
}

/// Whether `text` has a heading, or a paragraph opening in bold, that
/// begins with `name` (backticks aside).
fn has_section(text: &str, name: &str) -> bool {
    let name = name.replace('`', "");
    text.lines().any(|l| {
        let l = l.replace('`', "");
        let heading = l.starts_with('#') && l.trim_start_matches('#').trim().starts_with(&name);
        heading || l.contains(&format!("**{name}"))
    })
}

#[test]
fn every_section_a_document_names_is_there() {
    let mut broken = Vec::new();
    let mut seen = 0;
    for md in markdown_files(&repo()) {
        let text = std::fs::read_to_string(&md).unwrap();
        for (file, name) in section_pointers(&md, &text) {
            seen += 1;
            let target = std::fs::read_to_string(&file).unwrap_or_default();
            if !has_section(&target, &name) {
                let rel = md.strip_prefix(repo()).unwrap().display().to_string();
                broken.push(format!(
                    "{rel}: {} has no section \"{name}\"",
                    file.display()
                ));
            }
        }
    }
    assert!(
        seen > 20,
        "only {seen} section pointers found: the scan broke"
    );
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert!(
        lines.len() <= 200,
        "README.md has {} lines: the manual belongs in docs/",
        lines.len()
    );
    // How to install and run, and the one test command, come first.
    for command in [
        "cargo run --release --bin ssd_exporter",
        "scripts/test-all.sh",
    ] {
        let at = lines.iter().position(|l| l.contains(command));
        assert!(
            at.is_some_and(|n| n < 50),
            "README.md: `{command}` is not within its first 50 lines ({at:?})"
        );
    }
    // The test command it names is the one CI runs (`.ci/run`'s `exec`).
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let run = ci
        .lines()
        .find_map(|l| l.trim().strip_prefix("exec "))
        .expect(".ci/run execs its test command");
    assert!(
        lines.iter().any(|l| l.trim() == run.trim()),
        "README.md names no line `{run}`, the command .ci/run runs"
    );
}
