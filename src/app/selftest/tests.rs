use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::device::discovery::Transport;
use crate::poll::PollOutcome;
use crate::poll::factory::placeholder;
use crate::reading::Reading;

const DAY: Duration = Duration::from_secs(24 * 3600);

/// A poller that records the self-test commands it was given and answers
/// them with `answer`.
struct Fake {
    sent: Arc<Mutex<Vec<SelfTestOp>>>,
    answer: Result<(), FetchError>,
}

impl Poller for Fake {
    fn origin(&self) -> String {
        "/dev/fake".into()
    }
    fn poll(&mut self) -> PollOutcome {
        PollOutcome::default()
    }
    fn reset(&mut self) {}
    fn self_test(&mut self, op: SelfTestOp) -> Result<(), FetchError> {
        self.sent.lock().unwrap().push(op);
        self.answer.clone()
    }
}

fn policy(concurrency: usize, abort_on_shutdown: bool) -> Policy {
    Policy {
        short: Some(DAY),
        extended: None,
        concurrency,
        abort_on_shutdown,
        ..Policy::default()
    }
}

/// A store with identified drives `names`, none testing.
fn store(names: &[&str]) -> Arc<Store> {
    let store = Arc::new(Store::default());
    for (i, n) in names.iter().enumerate() {
        let id = placeholder(Transport::Sata, "MODEL", &format!("SERIAL{i}"), "FW");
        let mut s = DriveSnapshot::new(n, &format!("/dev/{n}"), id);
        s.identified = true;
        s.reading = Some(Reading {
            self_test_in_progress: Some(false),
            ..Reading::default()
        });
        store.insert(s);
    }
    store
}

fn fake(answer: Result<(), FetchError>) -> (Fake, Arc<Mutex<Vec<SelfTestOp>>>) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let f = Fake {
        sent: sent.clone(),
        answer,
    };
    (f, sent)
}

fn set_testing(store: &Store, device: &str, on: bool) {
    store.update(device, |s| {
        s.reading.as_mut().unwrap().self_test_in_progress = Some(on);
    });
}

#[test]
fn a_start_is_sent_counted_and_served() {
    let store = store(&["sda"]);
    let tests = Arc::new(SelfTests::new(policy(1, false), None, store.clone()));
    let hook = tests.cover("sda", None);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert_eq!(*sent.lock().unwrap(), [SelfTestOp::Short]);
    let s = store.get("sda").unwrap();
    let t = s.self_tests.as_ref().expect("served");
    assert_eq!(t.started, [1, 0]);
    assert!(t.last_run.is_some());
    // Not again within the interval, however often it is polled.
    for _ in 0..3 {
        hook("sda", &mut p);
    }
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn the_host_limit_holds_across_drives() {
    let store = store(&["sda", "sdb"]);
    let tests = Arc::new(SelfTests::new(policy(1, false), None, store.clone()));
    let (a, b) = (tests.cover("sda", None), tests.cover("sdb", None));
    let (mut pa, sent_a) = fake(Ok(()));
    let (mut pb, sent_b) = fake(Ok(()));
    a("sda", &mut pa);
    set_testing(&store, "sda", true);
    a("sda", &mut pa);
    b("sdb", &mut pb);
    assert!(sent_b.lock().unwrap().is_empty(), "sdb started beside sda");
    set_testing(&store, "sda", false);
    a("sda", &mut pa);
    b("sdb", &mut pb);
    assert_eq!(sent_a.lock().unwrap().len(), 1);
    assert_eq!(*sent_b.lock().unwrap(), [SelfTestOp::Short]);
}

#[test]
fn standby_defers() {
    let store = store(&["sda"]);
    store.update("sda", |s| s.power_mode = Some("standby"));
    let tests = Arc::new(SelfTests::new(policy(1, false), None, store.clone()));
    let hook = tests.cover("sda", None);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty());
    store.update("sda", |s| s.power_mode = Some("active_or_idle"));
    hook("sda", &mut p);
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn a_busy_drive_defers() {
    let dir = std::env::temp_dir().join(format!("s22-busy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stat = dir.join("stat");
    // 40 I/Os in flight now: over the detector's limit of 32.
    std::fs::write(&stat, "1 0 8 1 1 0 8 1 40 100 400 0 0 0 0 0 0\n").unwrap();
    let store = store(&["sda"]);
    let tests = Arc::new(SelfTests::new(policy(1, false), None, store.clone()));
    let hook = tests.cover("sda", Some(stat.clone()));
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty());
    std::fs::write(&stat, "1 0 8 1 1 0 8 1 0 100 400 0 0 0 0 0 0\n").unwrap();
    hook("sda", &mut p);
    assert_eq!(sent.lock().unwrap().len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_rejection_is_counted_and_not_retried_every_poll() {
    let store = store(&["sda"]);
    let tests = Arc::new(SelfTests::new(policy(1, false), None, store.clone()));
    let hook = tests.cover("sda", None);
    let refused = FetchError::Unsupported("short self-test on /dev/sda: refused".into());
    let (mut p, sent) = fake(Err(refused));
    for _ in 0..5 {
        hook("sda", &mut p);
    }
    assert_eq!(sent.lock().unwrap().len(), 1);
    let s = store.get("sda").unwrap();
    assert_eq!(s.errors.get(&Source::SelfTest).copied(), Some(1));
    assert_eq!(s.self_tests.as_ref().unwrap().started, [0, 0]);
    // The slot went back: another drive may test.
    assert!(lock(&tests.slots).holders().is_empty());
}

#[test]
fn remembered_runs_survive_a_restart() {
    let store = store(&["sda"]);
    let memory = Arc::new(Memory::default());
    let mut s = (*store.get("sda").unwrap()).clone();
    memory.adopt(&mut s, SystemTime::now());
    memory.keep(&s, SystemTime::now());
    let first = Arc::new(SelfTests::new(
        policy(1, false),
        Some(memory.clone()),
        store.clone(),
    ));
    let (mut p, sent) = fake(Ok(()));
    first.cover("sda", None)("sda", &mut p);
    assert_eq!(sent.lock().unwrap().len(), 1);
    // A new exporter with the same memory (what the state file gives
    // back) does not test the drive again.
    let again = Arc::new(SelfTests::new(
        policy(1, false),
        Some(memory),
        store.clone(),
    ));
    let (mut p2, sent2) = fake(Ok(()));
    again.cover("sda", None)("sda", &mut p2);
    assert!(sent2.lock().unwrap().is_empty());
    let last = store
        .get("sda")
        .unwrap()
        .self_tests
        .as_ref()
        .unwrap()
        .last_run;
    assert!(last.is_some());
}

#[test]
fn shutdown_aborts_only_when_asked() {
    for asked in [false, true] {
        let store = store(&["sda"]);
        let tests = Arc::new(SelfTests::new(policy(1, asked), None, store.clone()));
        let (mut p, _) = fake(Ok(()));
        tests.cover("sda", None)("sda", &mut p);
        let want: Vec<String> = if asked { vec!["sda".into()] } else { vec![] };
        assert_eq!(tests.to_abort(), want);
    }
}

#[test]
fn off_serves_nothing_and_sends_nothing() {
    let store = store(&["sda"]);
    let tests = Arc::new(SelfTests::new(Policy::default(), None, store.clone()));
    let (mut p, sent) = fake(Ok(()));
    tests.cover("sda", None)("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty());
    assert!(store.get("sda").unwrap().self_tests.is_none());
}

#[test]
fn off_reads_no_block_stat() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO nobody writes to: opening it to read blocks until a writer
    // comes, so a hook that reads it does not return.
    let stat = dir.path().join("stat");
    nix::unistd::mkfifo(&stat, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let store = store(&["sda"]);
    let tests = Arc::new(SelfTests::new(Policy::default(), None, store.clone()));
    let hook = tests.cover("sda", Some(stat.clone()));
    let (done_tx, done) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (mut p, _) = fake(Ok(()));
        hook("sda", &mut p);
        done_tx.send(()).unwrap();
    });
    let returned = done.recv_timeout(Duration::from_secs(5)).is_ok();
    if !returned {
        // Let the stuck read end before failing.
        drop(std::fs::OpenOptions::new().write(true).open(&stat));
    }
    assert!(returned, "the hook read the stat file with self-tests off");
}

/// A poller whose self-test command blocks until released (a drive that
/// hangs in the command).
struct Stuck {
    entered: std::sync::mpsc::Sender<()>,
    release: std::sync::mpsc::Receiver<()>,
    released: Arc<Mutex<Option<bool>>>,
}

impl Poller for Stuck {
    fn origin(&self) -> String {
        "/dev/stuck".into()
    }
    fn poll(&mut self) -> PollOutcome {
        PollOutcome::default()
    }
    fn reset(&mut self) {}
    fn self_test(&mut self, _: SelfTestOp) -> Result<(), FetchError> {
        self.entered.send(()).unwrap();
        let ok = self.release.recv_timeout(Duration::from_secs(5)).is_ok();
        *self.released.lock().unwrap() = Some(ok);
        Ok(())
    }
}

#[test]
fn a_command_stuck_on_one_drive_holds_no_other() {
    let store = store(&["sda", "sdb"]);
    let tests = Arc::new(SelfTests::new(policy(2, false), None, store.clone()));
    let (a, b) = (tests.cover("sda", None), tests.cover("sdb", None));
    let (entered_tx, entered) = std::sync::mpsc::channel();
    let (release, release_rx) = std::sync::mpsc::channel();
    let released = Arc::new(Mutex::new(None));
    let mut stuck = Stuck {
        entered: entered_tx,
        release: release_rx,
        released: released.clone(),
    };
    let t = std::thread::spawn(move || a("sda", &mut stuck));
    entered.recv().unwrap();
    let (mut pb, sent_b) = fake(Ok(()));
    b("sdb", &mut pb);
    release.send(()).ok();
    t.join().unwrap();
    assert_eq!(sent_b.lock().unwrap().len(), 1);
    assert_eq!(
        *released.lock().unwrap(),
        Some(true),
        "sdb waited for sda's command"
    );
}
