//! The state file, through the real binary over a replayed drive: a
//! counter that rose while the exporter was down is a rise after the
//! restart; twenty SIGKILLs at random moments leave a file that loads; a damaged
//! or future-version file, or a directory that cannot be used, is one
//! warning and a fresh start, never fatal; `check` and `--demo` leave the
//! state alone.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ssd_exporter::nvme::identify::{IdCtrlPage, space_padded};
use ssd_exporter::nvme::smart_log::SmartLogPage;
use zerocopy::FromBytes;

use crate::common::*;

const FIXTURE: &str = "tests/fixtures/nvme/kingston-dc2000b/nvme0";

/// A replay folder copied from the DC2000B fixture (media errors 0, unsafe
/// shutdowns 4), for the test to edit.
fn drive(tmp: &Path) -> PathBuf {
    let dir = tmp.join("nvme0");
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(repo().join(FIXTURE)).unwrap().flatten() {
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    dir
}

/// Copy `n` of the fixture as `nvme<n>`, with a serial of its own (set
/// through the Identify Controller layout), so each is a drive of its own.
fn numbered(tmp: &Path, n: usize) -> PathBuf {
    let dir = drive(&tmp.join(format!("d{n}"))).with_file_name(format!("nvme{n}"));
    std::fs::rename(dir.with_file_name("nvme0"), &dir).unwrap();
    let path = dir.join("id-ctrl.bin");
    let mut page = std::fs::read(&path).unwrap();
    IdCtrlPage::mut_from_bytes(&mut page[..4096]).unwrap().sn =
        space_padded(&format!("KILLTEST{n:04}"));
    std::fs::write(&path, &page).unwrap();
    dir
}

/// Raises media errors and unsafe shutdowns in the dump's SMART log,
/// through the crate's layout of the page; written by rename, so a poll
/// never reads half a page.
fn raise(dir: &Path, media: u128, unsafe_shutdowns: u128) {
    try_raise(dir, media, unsafe_shutdowns).unwrap();
}

fn try_raise(dir: &Path, media: u128, unsafe_shutdowns: u128) -> std::io::Result<()> {
    let path = dir.join("smart-log.bin");
    let mut page = std::fs::read(&path)?;
    let log = SmartLogPage::mut_from_bytes(&mut page[..512]).unwrap();
    log.media_errors = (log.media_errors.get() + media).into();
    log.unsafe_shutdowns = (log.unsafe_shutdowns.get() + unsafe_shutdowns).into();
    let tmp = dir.join(".smart-log.bin.new");
    std::fs::write(&tmp, &page)?;
    std::fs::rename(tmp, path)
}

/// The exporter with its log in a file.
struct Run {
    child: Child,
    addr: String,
    log: PathBuf,
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Run {
    fn start(args: &[String], log: &Path) -> Run {
        let file = std::fs::File::create(log).unwrap();
        let child = Command::new(BIN)
            .args(["--web.listen-address=127.0.0.1:0", "--log.level=info"])
            .args(["--probe.disable", "--path.drivedb=none"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start ssd_exporter");
        let mut run = Run {
            child,
            addr: String::new(),
            log: log.to_path_buf(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        run.addr = loop {
            let text = run.log();
            let found = text
                .lines()
                .filter(|l| l.contains("listening"))
                .find_map(|l| l.split("address=").nth(1));
            if let Some(rest) = found {
                break rest.split_whitespace().next().unwrap().to_string();
            }
            if let Ok(Some(status)) = run.child.try_wait() {
                panic!("exporter exited ({status}) before listening:\n{text}");
            }
            assert!(Instant::now() < deadline, "never listened:\n{text}");
            std::thread::sleep(Duration::from_millis(20));
        };
        run
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn metrics(&self) -> String {
        http_get(&self.addr, "/metrics", "").1
    }

    /// The exposition once nvme0 has been polled `polls` times.
    fn after_polls(&self, polls: f64) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let body = self.metrics();
            let n = value(&body, "ssd_polls_total{device=\"nvme0\"");
            if n.is_some_and(|n| n >= polls) {
                return body;
            }
            assert!(Instant::now() < deadline, "nvme0 never polled: {body}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, and the exit status.
    fn stop(mut self) -> std::process::ExitStatus {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
        self.child.wait().unwrap()
    }
}

/// The first series whose text starts with `prefix`.
fn value(text: &str, prefix: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.rsplit_once(' ')?.1.parse().ok())
}

fn args(dir: &Path, state: &Path) -> Vec<String> {
    vec![
        format!("--replay={}", dir.display()),
        format!("--state.path={}", state.display()),
        "--poll.interval=200ms".into(),
    ]
}

fn problem(text: &str, name: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("ssd_health_problem{") && l.contains(&format!("problem=\"{name}\"")))
}

#[test]
fn a_counter_that_rose_while_the_exporter_was_down_is_a_rise() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    let first = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    let text = first.after_polls(2.0);
    assert!(!problem(&text, "media_errors_increasing"), "{text}");
    assert_eq!(
        value(&text, "ssd_state_age_seconds{device=\"nvme0\""),
        Some(0.0)
    );
    assert!(first.stop().success());
    // Down: the drive logs 2 media errors and an unsafe shutdown.
    raise(&dir, 2, 1);
    std::thread::sleep(Duration::from_millis(1100));
    let second = Run::start(&args(&dir, &state), &tmp.path().join("2.log"));
    let text = second.after_polls(1.0);
    assert!(problem(&text, "media_errors_increasing"), "{text}");
    assert!(problem(&text, "unsafe_shutdowns_increasing"), "{text}");
    let age = value(&text, "ssd_state_age_seconds{device=\"nvme0\"").unwrap();
    assert!(age >= 1.0, "state age {age}");
    assert!(
        second
            .log()
            .contains("history restored from the saved state")
    );
    // Without the saved state the same dump is quiet: the state is why.
    let fresh = tmp.path().join("fresh");
    let third = Run::start(&args(&dir, &fresh), &tmp.path().join("3.log"));
    let text = third.after_polls(1.0);
    assert!(!problem(&text, "media_errors_increasing"), "{text}");
    assert!(!problem(&text, "unsafe_shutdowns_increasing"), "{text}");
}

#[test]
fn a_counter_that_went_down_is_a_new_baseline_and_logged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    raise(&dir, 5, 0);
    let first = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    first.after_polls(1.0);
    assert!(first.stop().success());
    // A firmware reset: 5 → 0, then 0 → 1 is a rise again.
    let path = dir.join("smart-log.bin");
    let mut page = std::fs::read(&path).unwrap();
    SmartLogPage::mut_from_bytes(&mut page[..512])
        .unwrap()
        .media_errors = 0u128.into();
    std::fs::write(&path, &page).unwrap();
    let second = Run::start(&args(&dir, &state), &tmp.path().join("2.log"));
    let text = second.after_polls(2.0);
    assert!(!problem(&text, "media_errors_increasing"), "{text}");
    let log = second.log();
    let down: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("counter went down"))
        .collect();
    assert_eq!(down.len(), 1, "{log}");
    assert!(
        down[0].contains("counter=\"media errors\"") || down[0].contains("counter=media"),
        "{}",
        down[0]
    );
    raise(&dir, 1, 0);
    let polls = value(&second.metrics(), "ssd_polls_total{device=\"nvme0\"").unwrap();
    let text = second.after_polls(polls + 2.0);
    assert!(problem(&text, "media_errors_increasing"), "{text}");
}

#[test]
fn twenty_sigkills_at_random_moments_leave_a_state_that_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    // Thirty drives whose counters move all the time: every poll is news,
    // a save of some 30 KB every 50 ms, and a kill lands in one sooner or
    // later (with saves written in place instead of renamed, this test
    // fails most runs).
    let dirs: Vec<PathBuf> = (0..30).map(|n| numbered(tmp.path(), n)).collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mover = {
        let (dirs, stop) = (dirs.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Not raise(): a failed test removes the folders under it.
                for d in &dirs {
                    let _ = try_raise(d, 1, 0);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let mut a: Vec<String> = dirs
        .iter()
        .map(|d| format!("--replay={}", d.display()))
        .collect();
    a.push(format!("--state.path={}", state.display()));
    a.push("--poll.interval=50ms".into());
    let mut rng = fastrand::Rng::with_seed(22);
    for round in 0..20 {
        let log = tmp.path().join(format!("{round}.log"));
        let mut run = Run::start(&a, &log);
        let text = run.metrics();
        if round > 0 {
            assert_eq!(
                value(&text, "ssd_exporter_state_errors_total{op=\"load\"}"),
                Some(0.0),
                "round {round}:\n{}",
                run.log()
            );
            assert!(
                run.log().contains("saved state loaded") && run.log().contains("drives=30"),
                "round {round}:\n{}",
                run.log()
            );
        } else {
            // A first save, so that every later round has a file to load.
            let deadline = Instant::now() + Duration::from_secs(20);
            while value(&run.metrics(), "ssd_exporter_state_saves_total").unwrap_or(0.0) < 1.0 {
                assert!(Instant::now() < deadline, "no first save:\n{}", run.log());
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        std::thread::sleep(Duration::from_millis(rng.u64(30..400)));
        run.child.kill().unwrap();
        run.child.wait().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    mover.join().unwrap();
    let last = Run::start(&a, &tmp.path().join("last.log"));
    let text = last.after_polls(1.0);
    assert_eq!(
        value(&text, "ssd_exporter_state_errors_total{op=\"load\"}"),
        Some(0.0)
    );
    let log = last.log();
    let restored = log
        .lines()
        .any(|l| l.contains("history restored from the saved state") && l.contains("device=nvme0"));
    assert!(restored && log.contains("drives=30"), "{log}");
    assert!(!state.join("state.json.bad").exists());
}

/// Lines of the log that name the state file.
fn state_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("state.json")).collect()
}

#[test]
fn a_corrupt_state_file_is_ignored_with_one_log_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    let first = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    first.after_polls(2.0);
    assert!(first.stop().success());
    let file = state.join("state.json");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 5;
    bytes[last] ^= 0x20;
    std::fs::write(&file, &bytes).unwrap();
    let second = Run::start(&args(&dir, &state), &tmp.path().join("2.log"));
    let text = second.after_polls(2.0);
    assert_eq!(
        value(&text, "ssd_exporter_state_errors_total{op=\"load\"}"),
        Some(1.0)
    );
    assert_eq!(
        value(&text, "ssd_state_age_seconds{device=\"nvme0\""),
        Some(0.0)
    );
    let log = second.log();
    let lines = state_lines(&log);
    assert_eq!(lines.len(), 1, "{log}");
    assert!(
        lines[0].contains("level=warn") && lines[0].contains("checksum"),
        "{}",
        lines[0]
    );
    assert_eq!(
        std::fs::read(state.join("state.json.bad")).unwrap(),
        bytes,
        "kept aside"
    );
    // And a good file is written again.
    let deadline = Instant::now() + Duration::from_secs(10);
    while value(&second.metrics(), "ssd_exporter_state_saves_total").unwrap_or(0.0) < 1.0 {
        assert!(Instant::now() < deadline, "no save after the corrupt file");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(std::fs::read(&file).unwrap() != bytes);
}

#[test]
fn a_state_file_from_a_newer_exporter_is_ignored_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let body = br#"{"saved_at_ms":1,"drives":[],"a_field_of_version_2":true}"#;
    let sha: String = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(body);
        d.iter().map(|b| format!("{b:02x}")).collect()
    };
    let header = format!(
        r#"{{"format":"ssd_exporter state","version":2,"bytes":{},"sha256":"{sha}"}}"#,
        body.len()
    );
    let file = [header.as_bytes(), b"\n", body].concat();
    std::fs::write(state.join("state.json"), &file).unwrap();
    let run = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    let text = run.after_polls(1.0);
    assert_eq!(
        value(&text, "ssd_exporter_state_errors_total{op=\"load\"}"),
        Some(1.0)
    );
    let log = run.log();
    let lines = state_lines(&log);
    assert_eq!(lines.len(), 1, "{log}");
    assert!(
        lines[0].contains("newer exporter") && lines[0].contains("version 2"),
        "{}",
        lines[0]
    );
    assert_eq!(std::fs::read(state.join("state.json.bad")).unwrap(), file);
}

#[test]
fn a_state_directory_that_cannot_be_used_is_a_warning_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    // Under a regular file: no one can make it, root included.
    std::fs::write(tmp.path().join("file"), "").unwrap();
    let state = tmp.path().join("file/state");
    let run = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    let text = run.after_polls(2.0);
    assert_eq!(value(&text, "ssd_device_up{device=\"nvme0\""), Some(1.0));
    // Once at start, and once per save that was due since (the new drive
    // is news), so a rate sees that nothing is saved.
    let saves = value(&text, "ssd_exporter_state_errors_total{op=\"save\"}").unwrap();
    assert!(saves >= 1.0, "{text}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while value(
        &run.metrics(),
        "ssd_exporter_state_errors_total{op=\"save\"}",
    ) < Some(2.0)
    {
        assert!(Instant::now() < deadline, "a due save was not counted");
        std::thread::sleep(Duration::from_millis(50));
    }
    let log = run.log();
    let warned: Vec<&str> = log.lines().filter(|l| l.contains("state.path")).collect();
    assert_eq!(warned.len(), 1, "{log}");
    assert!(
        warned[0].contains("level=warn") && warned[0].contains("cannot create it"),
        "{}",
        warned[0]
    );
    assert!(run.stop().success());
}

#[test]
fn check_and_the_demo_leave_the_state_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    let config = tmp.path().join("config.yml");
    std::fs::write(&config, format!("state:\n  path: {}\n", state.display())).unwrap();
    let out = Command::new(BIN)
        .arg(format!("--config.file={}", config.display()))
        .args(["--path.drivedb=none", "check"])
        .arg(format!("--replay={}", dir.display()))
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c < 3), "{out:?}");
    assert!(!state.exists(), "check made the state directory");
    let demo = Run::start(
        &["--demo".into(), format!("--state.path={}", state.display())],
        &tmp.path().join("demo.log"),
    );
    std::thread::sleep(Duration::from_millis(500));
    let text = demo.metrics();
    assert!(!text.contains("ssd_exporter_state_saves_total"), "{text}");
    assert!(demo.stop().success());
    assert!(!state.exists(), "the demo made the state directory");
}

mod clock;
mod pel;
