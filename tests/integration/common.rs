//! Running the real binary and reading its exposition.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_ssd_exporter");

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every fixture device folder (NVMe and SATA), sorted.
pub fn fixtures() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = ["nvme", "sata", "sas"]
        .iter()
        .flat_map(|t| {
            std::fs::read_dir(repo().join("tests/fixtures").join(t))
                .unwrap()
                .flatten()
        })
        .flat_map(|fixture| std::fs::read_dir(fixture.path()).unwrap().flatten())
        .map(|dev| dev.path())
        .filter(|p| p.join("meta.toml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The fixture device folders of one transport (`nvme`, `sata`, `sas`),
/// sorted.
pub fn fixtures_of(transport: &str) -> Vec<PathBuf> {
    fixtures()
        .into_iter()
        .filter(|d| {
            d.parent().and_then(Path::parent).and_then(Path::file_name) == Some(transport.as_ref())
        })
        .collect()
}

/// A dump folder's `meta.toml`, parsed.
pub fn meta(dir: &Path) -> toml::Table {
    std::fs::read_to_string(dir.join("meta.toml"))
        .unwrap_or_else(|e| panic!("{}/meta.toml: {e}", dir.display()))
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// One file of a dump folder.
pub fn dump_file(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()))
}

/// The `files` a dump's `meta.toml` lists, sorted.
pub fn listed_files(meta: &toml::Table) -> Vec<String> {
    let mut listed: Vec<String> = meta["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    listed.sort();
    listed
}

/// The names in a dump folder that `keep` accepts, sorted.
pub fn present_files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut present: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| keep(n))
        .collect();
    present.sort();
    present
}

/// A running exporter, killed on drop.
pub struct Exporter {
    child: Child,
    pub addr: String,
    /// Its log lines after the one saying where it listens.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Exporter {
    /// Starts the binary on an ephemeral loopback port with `args`.
    pub fn start(args: &[&str]) -> Exporter {
        let mut child = Command::new(BIN)
            .args(["--web.listen-address=127.0.0.1:0", "--log.level=info"])
            .args(args)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start ssd_exporter");
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("exporter exited before listening")
                .unwrap();
            if let Some(rest) = line
                .split("address=")
                .nth(1)
                .filter(|_| line.contains("listening"))
            {
                break rest.split_whitespace().next().unwrap().to_string();
            }
        };
        // Keep draining stderr so the child never blocks on a full pipe,
        // the lines kept for `log_lines`.
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                kept.lock().unwrap().push(line);
            }
        });
        Exporter { child, addr, log }
    }

    /// The log lines written so far after it started listening.
    pub fn log_lines(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
        self.child.wait().unwrap()
    }

    pub fn get(&self, path: &str, headers: &str) -> (String, String) {
        http_get(&self.addr, path, headers)
    }

    /// Scrapes until every device in `devices` has completed `polls` polls.
    pub fn scrape_after_polls(&self, devices: &[String], polls: f64) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (_, body) = self.get("/metrics", "");
            let series = parse(&body);
            let done = devices.iter().all(|d| {
                series.iter().any(|(k, v)| {
                    k.starts_with("ssd_polls_total{")
                        && k.contains(&format!("device=\"{d}\""))
                        && *v >= polls
                })
            });
            if done {
                return body;
            }
            assert!(Instant::now() < deadline, "devices never polled: {body}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A minimal HTTP/1.1 GET: (head, body).
pub fn http_get(addr: &str, path: &str, headers: &str) -> (String, String) {
    let raw = http_get_raw(addr, path, headers);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.to_string(), dechunk(head, body))
}

/// The same GET's whole response, bytes as they came (a gzip body).
pub fn http_get_raw(addr: &str, path: &str, headers: &str) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{headers}\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    raw
}

fn dechunk(head: &str, body: &str) -> String {
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return body.to_string();
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&tail[..n]);
        rest = &tail[n + 2..];
    }
    out
}

/// `name{labels}` → value for every sample line of a text exposition; label
/// order is kept as exposed. Every exposition a test reads goes through
/// here, so here it is checked that no series is served twice in one
/// scrape (the same name and labels: OpenMetrics forbids it, Prometheus
/// drops all but one and counts an error, a client_golang peer fails the
/// scrape); a second one panics, naming it.
pub fn parse(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for l in text.lines() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let Some((key, value)) = l.rsplit_once(' ') else {
            continue;
        };
        let Ok(value) = value.parse() else {
            continue;
        };
        if out.insert(key.to_string(), value).is_some() {
            panic!("the exposition serves {key} more than once");
        }
    }
    out
}

/// Splits `name{a="1",b="2"}` into the name and its labels.
pub fn split_series(key: &str) -> (String, BTreeMap<String, String>) {
    let Some((name, rest)) = key.split_once('{') else {
        return (key.to_string(), BTreeMap::new());
    };
    let mut labels = BTreeMap::new();
    let mut rest = rest.trim_end_matches('}');
    while let Some((k, v)) = rest.split_once("=\"") {
        let end = v.find('"').unwrap();
        labels.insert(k.trim_start_matches(',').to_string(), v[..end].to_string());
        rest = &v[end + 1..];
    }
    (name.to_string(), labels)
}

/// The value of the series `name` with exactly `labels` (plus nothing else).
pub fn find(
    series: &BTreeMap<String, f64>,
    name: &str,
    labels: &BTreeMap<String, String>,
) -> Option<f64> {
    series.iter().find_map(|(k, v)| {
        let (n, l) = split_series(k);
        (n == name && &l == labels).then_some(*v)
    })
}

/// Prints how far a wall-clock check stayed from its limit, on every run
/// (straight to stderr, past the test harness's capture), so a margin that
/// shrinks shows before the check flakes. `margin` is limit / measured for
/// a time, measured / required for a count; below 3 the limit is to be
/// widened.
pub fn log_margin(what: &str, margin: f64, detail: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "MARGIN {what}: {margin:.1}x ({detail})");
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Starts the exporter replaying every fixture (built-in attribute names
/// only, plus `extra` flags) and waits for one poll of each: the exporter
/// and the fixtures' device names.
pub fn start_on_fixtures(extra: &[&str]) -> (Exporter, Vec<String>) {
    let dirs = fixtures();
    let mut args: Vec<String> = dirs
        .iter()
        .map(|d| format!("--replay={}", path_str(d)))
        .collect();
    args.push("--poll.interval=1h".into());
    // The built-in attribute table only: names must not depend on the
    // drivedb.h version installed on the test machine.
    args.push("--path.drivedb=none".into());
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let exporter = Exporter::start(&args);
    let devices: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    exporter.scrape_after_polls(&devices, 1.0);
    (exporter, devices)
}

/// Serves every fixture, waits for one poll of each, and returns
/// `/metrics` as asked for with `accept` headers.
pub fn serve_fixtures(accept: &str) -> String {
    let (exporter, _) = start_on_fixtures(&[]);
    exporter.get("/metrics", accept).1
}
