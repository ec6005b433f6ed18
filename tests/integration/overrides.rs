//! `health.overrides` and config reload, through the real binary: a mute
//! on one replayed drive leaves the same problem critical on another; a
//! SIGHUP applies a new threshold, and a bad file keeps the running config
//! with one log line and `ssd_exporter_config_last_reload_successful` 0.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::*;

/// The exporter with its log kept, killed on drop.
struct Running {
    child: Child,
    addr: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(BIN)
            .args(["--web.listen-address=127.0.0.1:0", "--log.level=info"])
            .args(["--path.drivedb=none"])
            .args(args)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start ssd_exporter");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Some(rest) = line
                    .split("address=")
                    .nth(1)
                    .filter(|_| line.contains("listening"))
                {
                    let _ = tx.send(rest.split_whitespace().next().unwrap().to_string());
                }
                kept.lock().unwrap().push(line);
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("never listened: {:?}", log.lock().unwrap()));
        Running { child, addr, log }
    }

    fn metrics(&self) -> BTreeMap<String, f64> {
        parse(&http_get(&self.addr, "/metrics", "").1)
    }

    /// Scrapes until `done` holds, for at most 20 s.
    fn until(
        &self,
        what: &str,
        done: impl Fn(&BTreeMap<String, f64>) -> bool,
    ) -> BTreeMap<String, f64> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let m = self.metrics();
            if done(&m) {
                return m;
            }
            assert!(
                Instant::now() < deadline,
                "never {what}: {m:#?}\n{:#?}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    fn hup(&self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGHUP).unwrap();
    }
}

fn value(m: &BTreeMap<String, f64>, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let labels = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    find(m, name, &labels)
}

/// `ssd_health_problem` of `device`: problem → severity label.
fn problems(m: &BTreeMap<String, f64>, device: &str) -> BTreeMap<String, String> {
    m.keys()
        .map(|k| split_series(k))
        .filter(|(n, l)| n == "ssd_health_problem" && l["device"] == device)
        .map(|(_, l)| (l["problem"].clone(), l["severity"].clone()))
        .collect()
}

/// The first series of `name` for `device`.
fn of(m: &BTreeMap<String, f64>, name: &str, device: &str) -> Option<f64> {
    m.iter().find_map(|(k, v)| {
        let (n, l) = split_series(k);
        (n == name && l.get("device").is_some_and(|d| d == device)).then_some(*v)
    })
}

fn polls(m: &BTreeMap<String, f64>, device: &str) -> f64 {
    of(m, "ssd_polls_total", device).unwrap_or(0.0)
}

/// A copy of a fixture folder under `root`, named `name` (the replayed
/// drive's `device` label); the serial stays the dump's.
fn copy_fixture(fixture: &str, root: &Path, name: &str) -> String {
    let src = repo().join("tests/fixtures").join(fixture);
    let dst = root.join(name);
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    dst.to_str().unwrap().to_string()
}

/// Every critical problem of the failing-critical fixture, muted on nvme7
/// by the first entry; the second entry also matches nvme7 but is never
/// used, so its mute of the temperature warning must not apply.
const MUTE_NVME7: &str = "health:
  overrides:
    - device: '^nvme7$'
      mute: [plp_failed, reliability_degraded, self_test_failed, spare_below_threshold, wear_out]
    - device: '^nvme7$'
      mute: [temperature_above_warning]
";

#[test]
fn a_mute_on_one_drive_leaves_the_same_problem_critical_on_another() {
    let dir = tempfile::tempdir().unwrap();
    let nvme2 = copy_fixture("nvme/failing-critical/nvme2", dir.path(), "nvme2");
    let nvme7 = copy_fixture("nvme/failing-critical/nvme2", dir.path(), "nvme7");
    let config = dir.path().join("config.yml");
    std::fs::write(&config, MUTE_NVME7).unwrap();
    let config = format!("--config.file={}", config.display());
    let (r2, r7) = (format!("--replay={nvme2}"), format!("--replay={nvme7}"));
    let e = Running::start(&[&r2, &r7, &config, "--poll.interval=1h"]);
    let m = e.until("polled both", |m| {
        polls(m, "nvme2") >= 1.0 && polls(m, "nvme7") >= 1.0
    });

    let status = |d: &str| of(&m, "ssd_health_status", d);
    assert_eq!(status("nvme2"), Some(2.0));
    // Nothing critical left on nvme7: the temperature warning (first match wins).
    assert_eq!(status("nvme7"), Some(1.0));
    let (p2, p7) = (problems(&m, "nvme2"), problems(&m, "nvme7"));
    for p in [
        "plp_failed",
        "reliability_degraded",
        "self_test_failed",
        "spare_below_threshold",
        "wear_out",
    ] {
        assert_eq!(
            p2.get(p).map(String::as_str),
            Some("critical"),
            "nvme2 {p}: {p2:?}"
        );
        // Served, so nothing disappears silently.
        assert_eq!(
            p7.get(p).map(String::as_str),
            Some("muted"),
            "nvme7 {p}: {p7:?}"
        );
    }
    assert_eq!(
        p7.get("temperature_above_warning").map(String::as_str),
        Some("warning")
    );
    assert_eq!(p2.len(), p7.len());

    // Logged once, for the drive it applies to.
    let log = e.log();
    let applies: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("health override applies"))
        .collect();
    assert_eq!(applies.len(), 1, "{log:#?}");
    assert!(
        applies[0].contains("device=nvme7") && applies[0].contains("health.overrides[0]"),
        "{}",
        applies[0]
    );

    // The landing page says which entry and that the problems are muted.
    let page = http_get(&e.addr, "/", "").1;
    let row7 = page
        .split("<tr")
        .find(|r| r.contains("<td>nvme7</td>"))
        .expect("nvme7 row");
    assert!(row7.contains("health.overrides[0]"), "{row7}");
    assert!(
        row7.contains("<b>wear_out</b> (muted): critical, muted by health.overrides[0]"),
        "{row7}"
    );
    let row2 = page
        .split("<tr")
        .find(|r| r.contains("<td>nvme2</td>"))
        .expect("nvme2 row");
    assert!(
        !row2.contains("muted") && row2.contains("<b>wear_out</b> (critical)"),
        "{row2}"
    );
}

#[test]
fn check_shows_muted_problems_and_its_exit_code_leaves_them_out() {
    let dir = tempfile::tempdir().unwrap();
    let nvme7 = copy_fixture("nvme/failing-critical/nvme2", dir.path(), "nvme7");
    let config = dir.path().join("config.yml");
    std::fs::write(&config, MUTE_NVME7).unwrap();
    let run = |extra: &[&str]| {
        Command::new(BIN)
            .args(["check", "--path.drivedb=none", "--log.level=error"])
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--replay={nvme7}"))
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--json"]);
    // Warning (1), not critical (2): the temperature warning is all that counts.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let drive = &doc["drives"][0];
    assert_eq!(drive["status"], "warning");
    assert_eq!(drive["override"], "health.overrides[0]");
    let wear = drive["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "wear_out")
        .unwrap();
    assert_eq!(wear["severity"], "muted");
    assert!(
        wear["reason"]
            .as_str()
            .unwrap()
            .starts_with("critical, muted by health.overrides[0]: "),
        "{wear}"
    );
    let text = String::from_utf8(run(&[]).stdout).unwrap();
    assert!(
        text.contains("  muted wear_out: critical, muted by"),
        "{text}"
    );
}

#[test]
fn check_config_rejects_an_unknown_problem_name_naming_the_key_and_the_names() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yml");
    std::fs::write(
        &config,
        "health:\n  overrides:\n    - device: sda\n      mute: [wear_high, media_error]\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg(format!("--config.file={}", config.display()))
        .arg("--check-config")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("health.overrides[0].mute[1]") && err.contains("\"media_error\""),
        "{err}"
    );
    assert!(
        err.contains("media_errors_increasing") && err.contains("wear_high"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn sighup_applies_a_new_threshold_and_a_bad_file_keeps_the_running_config() {
    let dir = tempfile::tempdir().unwrap();
    // The DC2000B fixture: 3 % used, 16.384 TB written, no problem at the
    // default thresholds, and no endurance in the datasheet table: judged
    // against its own endurance group estimate until an override rates it.
    let nvme0 = copy_fixture("nvme/kingston-dc2000b/nvme0", dir.path(), "nvme0");
    let path = dir.path().join("config.yml");
    let start = "poll:\n  interval: 200ms\nhealth:\n  wear_warning: 0.8\n";
    std::fs::write(&path, start).unwrap();
    let config = format!("--config.file={}", path.display());
    let e = Running::start(&[&format!("--replay={nvme0}"), &config]);
    let reload_ok =
        |m: &BTreeMap<String, f64>| value(m, "ssd_exporter_config_last_reload_successful", &[]);
    let reload_at = |m: &BTreeMap<String, f64>| {
        let name = "ssd_exporter_config_last_reload_success_timestamp_seconds";
        value(m, name, &[]).unwrap()
    };
    let endurance = |m: &BTreeMap<String, f64>| of(m, "ssd_endurance_used_ratio", "nvme0");
    let rated = |m: &BTreeMap<String, f64>, source| {
        let labels = [
            ("device", "nvme0"),
            ("serial", "REDACTED0000000001"),
            ("source", source),
        ];
        value(m, "ssd_rated_endurance_bytes", &labels)
    };
    let m = e.until("polled", |m| polls(m, "nvme0") >= 2.0);
    assert!(problems(&m, "nvme0").is_empty(), "{m:?}");
    // log 09h: 21 300 media units written of an estimate of 700 000 (both
    // billions of bytes; the fixture's meta.toml)
    assert!((endurance(&m).unwrap() - 21_300.0 / 700_000.0).abs() < 1e-12);
    assert_eq!(rated(&m, "endurance_group"), Some(7e14));
    assert_eq!(reload_ok(&m), Some(1.0));
    let started_at = reload_at(&m);

    // A good file: wear_warning 2 % (the drive is at 3 %), an override
    // rating the drive 1638.4 TBW (so 1 % used), and a key that needs a
    // restart.
    let good = "poll:\n  interval: 1h\nhealth:\n  wear_warning: 0.02\n  overrides:\n    - device: '^nvme0$'\n      rated_endurance_bytes: 1.6384e15\n";
    std::fs::write(&path, good).unwrap();
    e.hup();
    let m = e.until("warned of wear", |m| {
        problems(m, "nvme0").contains_key("wear_high")
    });
    assert_eq!(problems(&m, "nvme0")["wear_high"], "warning");
    assert!((endurance(&m).unwrap() - 0.01).abs() < 1e-12, "{m:?}");
    assert_eq!(rated(&m, "override"), Some(1.6384e15));
    assert_eq!(rated(&m, "endurance_group"), None);
    assert_eq!(reload_ok(&m), Some(1.0));
    let good_at = reload_at(&m);
    assert!(good_at > started_at, "{good_at} <= {started_at}");
    let log = e.log();
    let lines =
        |what: &str| -> Vec<String> { log.iter().filter(|l| l.contains(what)).cloned().collect() };
    let restart = lines("need a restart");
    assert_eq!(restart.len(), 1, "{log:#?}");
    assert!(restart[0].contains("keys=poll.interval"), "{}", restart[0]);
    let applies = lines("health override applies");
    assert_eq!(applies.len(), 1, "{log:#?}");
    assert!(
        applies[0].contains("source=health.overrides[0]"),
        "{}",
        applies[0]
    );
    // The running interval is kept: polls go on every 200 ms.
    let before = polls(&m, "nvme0");
    e.until("kept polling at 200ms", |m| {
        polls(m, "nvme0") >= before + 3.0
    });

    // A bad file: the running config stays, one line says why.
    let logged = e.log().len();
    let bad = "health:\n  wear_warning: 0.9\n  overrides:\n    - device: nvme0\n      mute: [wear_hihg]\n";
    std::fs::write(&path, bad).unwrap();
    e.hup();
    let m = e.until("reported the failed reload", |m| reload_ok(m) == Some(0.0));
    assert_eq!(reload_at(&m), good_at);
    let before = polls(&m, "nvme0");
    let m = e.until("polled after the failed reload", |m| {
        polls(m, "nvme0") >= before + 3.0
    });
    let kept = "the bad file's wear_warning applied";
    assert_eq!(problems(&m, "nvme0")["wear_high"], "warning", "{kept}");
    let dropped = "the running override was dropped";
    assert_eq!(rated(&m, "override"), Some(1.6384e15), "{dropped}");
    let log = e.log();
    let new: Vec<&String> = log[logged..]
        .iter()
        .filter(|l| l.contains("level=error") || l.contains("level=warn"))
        .collect();
    assert_eq!(new.len(), 1, "{:#?}", &log[logged..]);
    assert!(
        new[0].contains("config reload failed") && new[0].contains("health.overrides[0].mute[0]"),
        "{}",
        new[0]
    );

    // Fixed again (the file at start): back to 1, and without the
    // override the drive is judged against its own estimate again.
    std::fs::write(&path, start).unwrap();
    e.hup();
    let m = e.until("reloaded the fixed file", |m| {
        reload_ok(m) == Some(1.0)
            && !problems(m, "nvme0").contains_key("wear_high")
            && rated(m, "endurance_group") == Some(7e14)
    });
    assert_eq!(rated(&m, "override"), None);
    assert!(reload_at(&m) > good_at);
    let gone = "no health override applies any more";
    assert!(e.log().iter().any(|l| l.contains(gone)), "{:#?}", e.log());
}

#[test]
fn every_problem_name_is_documented() {
    let docs = std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap();
    for p in ssd_exporter::health::verdict::ProblemName::ALL {
        assert!(
            docs.contains(&format!("`{p}`")),
            "{p} is not in docs/metrics.md"
        );
    }
}
