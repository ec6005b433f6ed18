use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::device::discovery::Transport;
use crate::poll::PollOutcome;
use crate::poll::factory::placeholder;
use crate::reading::Reading;

mod held;
mod spread;

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

/// Scheduled self-tests over a store of identified drives, none testing,
/// on a wall clock the test moves.
struct Rig {
    tests: Arc<SelfTests>,
    store: Arc<Store>,
    now: Arc<Mutex<SystemTime>>,
}

impl Rig {
    fn new(policy: Policy, memory: Option<Arc<Memory>>, names: &[&str]) -> Rig {
        Rig::over(policy, memory, store(names))
    }

    fn over(policy: Policy, memory: Option<Arc<Memory>>, store: Arc<Store>) -> Rig {
        let now = Arc::new(Mutex::new(UNIX_EPOCH + 20_000 * DAY));
        let read = now.clone();
        let clock: Clock = Arc::new(move || *read.lock().unwrap());
        let tests = SelfTests::new(policy, memory, store.clone()).with_clock(clock);
        Rig {
            tests: Arc::new(tests),
            store,
            now,
        }
    }

    fn advance(&self, by: Duration) {
        *self.now.lock().unwrap() += by;
    }

    fn now(&self) -> SystemTime {
        *self.now.lock().unwrap()
    }

    /// The hook of each of `names`, each polled once (a drive the
    /// exporter has no run of is not tested at its first poll), then the
    /// clock a day on: every drive's first test due.
    fn due(&self, names: &[&str]) -> Vec<AfterPoll> {
        let hooks: Vec<AfterPoll> = names.iter().map(|n| self.tests.cover(n, None)).collect();
        for (n, hook) in names.iter().zip(&hooks) {
            let (mut p, sent) = fake(Ok(()));
            hook(n, &mut p);
            assert!(
                sent.lock().unwrap().is_empty(),
                "{n} tested at its first poll"
            );
        }
        self.advance(DAY);
        hooks
    }
}

/// A store with identified drives `names`, none testing.
fn store(names: &[&str]) -> Arc<Store> {
    let store = Arc::new(Store::default());
    for (i, n) in names.iter().enumerate() {
        let id = placeholder(Transport::Sata, "MODEL", &format!("SERIAL{i}"), "FW");
        let mut s = DriveSnapshot::new(n, &format!("/dev/{n}"), id);
        s.identified = true;
        s.up = true;
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

/// A poll of `device` that read its in-progress flag as `on`.
fn set_testing(store: &Store, device: &str, on: bool) {
    store.update(device, |s| {
        s.polls += 1;
        s.reading.as_mut().unwrap().self_test_in_progress = Some(on);
    });
}

#[test]
fn a_start_is_sent_counted_and_served() {
    let rig = Rig::new(policy(1, false), None, &["sda"]);
    let hook = rig.due(&["sda"]).remove(0);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert_eq!(*sent.lock().unwrap(), [SelfTestOp::Short]);
    let s = rig.store.get("sda").unwrap();
    let t = s.self_tests.as_ref().expect("served");
    assert_eq!(t.started, [1, 0]);
    assert_eq!(t.last_run, Some(rig.now()));
    // Not again within the interval, however often it is polled.
    for _ in 0..3 {
        set_testing(&rig.store, "sda", false);
        rig.advance(DAY / 4);
        hook("sda", &mut p);
    }
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn the_host_limit_holds_across_drives() {
    let rig = Rig::new(policy(1, false), None, &["sda", "sdb"]);
    let hooks = rig.due(&["sda", "sdb"]);
    let (a, b) = (&hooks[0], &hooks[1]);
    let (mut pa, sent_a) = fake(Ok(()));
    let (mut pb, sent_b) = fake(Ok(()));
    a("sda", &mut pa);
    set_testing(&rig.store, "sda", true);
    a("sda", &mut pa);
    b("sdb", &mut pb);
    assert!(sent_b.lock().unwrap().is_empty(), "sdb started beside sda");
    set_testing(&rig.store, "sda", false);
    a("sda", &mut pa);
    b("sdb", &mut pb);
    assert_eq!(sent_a.lock().unwrap().len(), 1);
    assert_eq!(*sent_b.lock().unwrap(), [SelfTestOp::Short]);
}

#[test]
fn standby_defers() {
    let rig = Rig::new(policy(1, false), None, &["sda"]);
    rig.store.update("sda", |s| s.power_mode = Some("standby"));
    let hook = rig.due(&["sda"]).remove(0);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty());
    rig.store
        .update("sda", |s| s.power_mode = Some("active_or_idle"));
    hook("sda", &mut p);
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn a_busy_drive_defers() {
    let dir = tempfile::tempdir().unwrap();
    let stat = dir.path().join("stat");
    // 40 I/Os in flight now: over the detector's limit of 32.
    std::fs::write(&stat, "1 0 8 1 1 0 8 1 40 100 400 0 0 0 0 0 0\n").unwrap();
    let rig = Rig::new(policy(1, false), None, &["sda"]);
    let hook = rig.tests.cover("sda", Some(stat.clone()));
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    rig.advance(DAY);
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty());
    std::fs::write(&stat, "1 0 8 1 1 0 8 1 0 100 400 0 0 0 0 0 0\n").unwrap();
    hook("sda", &mut p);
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn a_rejection_is_counted_and_not_retried_every_poll() {
    let rig = Rig::new(policy(1, false), None, &["sda"]);
    let hook = rig.due(&["sda"]).remove(0);
    let refused = FetchError::Unsupported("short self-test on /dev/sda: refused".into());
    let (mut p, sent) = fake(Err(refused));
    for _ in 0..5 {
        hook("sda", &mut p);
    }
    assert_eq!(sent.lock().unwrap().len(), 1);
    let s = rig.store.get("sda").unwrap();
    assert_eq!(s.errors.get(&Source::SelfTest).copied(), Some(1));
    assert_eq!(s.self_tests.as_ref().unwrap().started, [0, 0]);
    // The slot went back: another drive may test.
    assert!(lock(&rig.tests.slots).holders().is_empty());
}

/// The memory a state file gives back, with `names` in it.
fn memory_of(store: &Store, names: &[&str]) -> Arc<Memory> {
    let memory = Arc::new(Memory::default());
    for n in names {
        let mut s = (*store.get(n).unwrap()).clone();
        memory.adopt(&mut s, SystemTime::now());
        memory.keep(&s, SystemTime::now());
    }
    memory
}

#[test]
fn remembered_runs_survive_a_restart() {
    let store = store(&["sda"]);
    let memory = memory_of(&store, &["sda"]);
    let first = Rig::over(policy(1, false), Some(memory.clone()), store.clone());
    let (mut p, sent) = fake(Ok(()));
    first.due(&["sda"])[0]("sda", &mut p);
    assert_eq!(sent.lock().unwrap().len(), 1);
    // A new exporter with the same memory (what the state file gives
    // back) does not test the drive again.
    let again = Rig::over(policy(1, false), Some(memory), store.clone());
    again.advance(DAY);
    let (mut p2, sent2) = fake(Ok(()));
    again.tests.cover("sda", None)("sda", &mut p2);
    assert!(sent2.lock().unwrap().is_empty());
    let last = store
        .get("sda")
        .unwrap()
        .self_tests
        .as_ref()
        .unwrap()
        .last_run;
    assert_eq!(last, Some(first.now()));
}

#[test]
fn shutdown_aborts_only_when_asked() {
    for asked in [false, true] {
        let rig = Rig::new(policy(1, asked), None, &["sda"]);
        let (mut p, _) = fake(Ok(()));
        let hook = rig.due(&["sda"]).remove(0);
        hook("sda", &mut p);
        // A poll shows it running.
        set_testing(&rig.store, "sda", true);
        hook("sda", &mut p);
        let want: Vec<String> = if asked { vec!["sda".into()] } else { vec![] };
        assert_eq!(rig.tests.to_abort(), want);
    }
}

#[test]
fn off_serves_nothing_and_sends_nothing() {
    let rig = Rig::new(Policy::default(), None, &["sda"]);
    let hook = rig.tests.cover("sda", None);
    let (mut p, sent) = fake(Ok(()));
    hook("sda", &mut p);
    rig.advance(DAY);
    hook("sda", &mut p);
    assert!(sent.lock().unwrap().is_empty());
    assert!(rig.store.get("sda").unwrap().self_tests.is_none());
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
    let rig = Rig::new(policy(2, false), None, &["sda", "sdb"]);
    let mut hooks = rig.due(&["sda", "sdb"]);
    let (a, b) = (hooks.remove(0), hooks.remove(0));
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
