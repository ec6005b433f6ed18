use super::*;
use crate::device::discovery::Transport;
use crate::poll::{PollError, PollOutcome};
use crate::reading::{Identity, Reading};
use crate::snapshot::DriveSnapshot;
use std::sync::mpsc;

/// [`super::run`] on a pool of its own (two workers), without an
/// after-poll hook.
async fn run(
    device: String,
    poller: Box<dyn Poller>,
    schedule: Schedule,
    judge: Judge,
    store: Arc<Store>,
    gone: Arc<Notify>,
) {
    let pool = Arc::new(Pool::new(2, Arc::default()));
    let drive = Drive {
        device,
        poller,
        schedule,
        judge,
        store,
        gone,
        after: None,
    };
    super::run(pool, drive).await
}

fn identity() -> Identity {
    Identity {
        transport: Transport::Nvme,
        kind: crate::device::discovery::Kind::Physical,
        model: "M".into(),
        serial: "S".into(),
        firmware: "F".into(),
        wwn: String::new(),
        capacity_bytes: None,
    }
}

struct Fake {
    gate: Option<mpsc::Receiver<()>>,
    fail: bool,
}

impl Poller for Fake {
    fn origin(&self) -> String {
        "fake".into()
    }
    fn reset(&mut self) {}
    fn poll(&mut self) -> PollOutcome {
        if let Some(gate) = &self.gate {
            let _ = gate.recv();
        }
        let mut out = PollOutcome::default();
        if self.fail {
            out.errors.push(PollError {
                source: Source::SmartLog,
                message: "boom".into(),
            });
        } else {
            out.reading = Some(Reading::default());
            out.up = true;
        }
        out
    }
}

fn store_with(names: &[&str]) -> Arc<Store> {
    let store = Arc::new(Store::default());
    for n in names {
        store.insert(DriveSnapshot::new(n, "fake", identity()));
    }
    store
}

async fn wait_for(store: &Store, device: &str, f: impl Fn(&DriveSnapshot) -> bool) {
    for _ in 0..500 {
        if store.list().iter().any(|s| s.device == device && f(s)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "{device} never reached the expected state: {:?}",
        store.list()
    );
}

/// Counts its polls; the first one blocks until `gate` is released.
struct Counting {
    gate: Option<mpsc::Receiver<()>>,
    polls: Arc<std::sync::atomic::AtomicU32>,
}

impl Poller for Counting {
    fn origin(&self) -> String {
        "counting".into()
    }
    fn reset(&mut self) {}
    fn poll(&mut self) -> PollOutcome {
        self.polls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Some(gate) = self.gate.take() {
            let _ = gate.recv();
        }
        PollOutcome {
            reading: Some(Reading::default()),
            up: true,
            ..PollOutcome::default()
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drive_re_added_while_its_old_poll_hangs_gets_no_second_blocking_call() {
    let store = store_with(&["sdz"]);
    let judge: Judge = Arc::new(|_, _| {});
    let gone = Arc::new(Notify::new());
    let fast = Schedule {
        interval: Duration::from_millis(20),
        deadline: Duration::from_millis(100),
        jitter: 0.0,
    };
    let polls = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let (release, gate) = mpsc::channel();
    let first = tokio::spawn(run(
        "sdz".into(),
        Box::new(Counting {
            gate: Some(gate),
            polls: polls.clone(),
        }),
        fast,
        judge.clone(),
        store.clone(),
        gone.clone(),
    ));
    wait_for(&store, "sdz", |s| s.errors.get(&Source::Poll) == Some(&1)).await;
    // The drive is removed (its loop aborted; the blocked call goes on)
    // and comes back, three times.
    first.abort();
    let mut loops = Vec::new();
    for _ in 0..3 {
        store.remove("sdz");
        store.insert(DriveSnapshot::new("sdz", "fake", identity()));
        let polls2 = Arc::new(std::sync::atomic::AtomicU32::new(0));
        loops.push((
            polls2.clone(),
            tokio::spawn(run(
                "sdz".into(),
                Box::new(Counting {
                    gate: None,
                    polls: polls2,
                }),
                fast,
                judge.clone(),
                store.clone(),
                gone.clone(),
            )),
        ));
        // The new loop waits for the old call: it shows the overrun
        // and counts one poll error per interval, and never polls.
        wait_for(&store, "sdz", |s| {
            !s.up && s.errors.get(&Source::Poll).is_some_and(|&n| n >= 2)
        })
        .await;
        let (_, h) = loops.last().unwrap();
        assert_eq!(
            loops
                .last()
                .unwrap()
                .0
                .load(std::sync::atomic::Ordering::SeqCst),
            0
        );
        h.abort();
    }
    assert_eq!(polls.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The hung call returns: the next loop claims the drive and polls.
    release.send(()).unwrap();
    store.remove("sdz");
    store.insert(DriveSnapshot::new("sdz", "fake", identity()));
    let polls3 = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let last = tokio::spawn(run(
        "sdz".into(),
        Box::new(Counting {
            gate: None,
            polls: polls3.clone(),
        }),
        fast,
        judge,
        store.clone(),
        gone,
    ));
    wait_for(&store, "sdz", |s| s.up && s.polls >= 2).await;
    assert!(polls3.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    last.abort();
}

#[test]
fn jitter_stays_within_its_band() {
    let i = Duration::from_secs(60);
    assert_eq!(jittered(i, 0.1, 0.0), Duration::from_secs(54));
    assert_eq!(jittered(i, 0.1, 1.0), Duration::from_secs(66));
    assert_eq!(jittered(i, 0.1, 0.5), i);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_drive_delays_neither_its_deadline_nor_other_drives() {
    // Counts judgements: every applied poll and overrun is judged.
    let judgements = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = judgements.clone();
    let judged: Judge = Arc::new(move |_, _| {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let store = store_with(&["hung", "ok", "bad"]);
    let gone = Arc::new(Notify::new());
    let fast = Schedule {
        interval: Duration::from_millis(20),
        deadline: Duration::from_millis(200),
        jitter: 0.0,
    };
    let (release, gate) = mpsc::channel();
    let hung = tokio::spawn(run(
        "hung".into(),
        Box::new(Fake {
            gate: Some(gate),
            fail: false,
        }),
        fast,
        judged.clone(),
        store.clone(),
        gone.clone(),
    ));
    let ok = tokio::spawn(run(
        "ok".into(),
        Box::new(Fake {
            gate: None,
            fail: false,
        }),
        fast,
        judged.clone(),
        store.clone(),
        gone.clone(),
    ));
    let bad = tokio::spawn(run(
        "bad".into(),
        Box::new(Fake {
            gate: None,
            fail: true,
        }),
        fast,
        judged.clone(),
        store.clone(),
        gone.clone(),
    ));
    wait_for(&store, "ok", |s| s.polls >= 3 && s.up).await;
    wait_for(&store, "bad", |s| {
        s.polls >= 3 && !s.up && s.errors[&Source::SmartLog] >= 3
    })
    .await;
    wait_for(&store, "hung", |s| {
        s.errors.get(&Source::Poll).is_some_and(|&n| n >= 3) && !s.up
    })
    .await;
    // Released, the hung drive recovers on its next poll.
    release.send(()).unwrap();
    drop(release);
    wait_for(&store, "hung", |s| s.up).await;
    let polls: u64 = store.list().iter().map(|s| s.polls).sum();
    assert!(judgements.load(std::sync::atomic::Ordering::Relaxed) >= polls.saturating_sub(3));
    for t in [hung, ok, bad] {
        t.abort();
    }
}

/// A FIFO as the SMART log file of a replay folder stands in for a hung
/// drive: the poll blocks in `open`. Each interval it stays stuck
/// counts one more `poll` error, so `increase()` keeps seeing it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_replay_counts_a_poll_error_every_interval_until_it_answers() {
    use crate::device::replay::NvmeReplay;
    use crate::poll::nvme::{NvmePoller, PollPolicy};
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
    ));
    for f in ["id-ctrl.bin", "smart-log.bin"] {
        std::fs::copy(src.join(f), tmp.path().join(f)).unwrap();
    }
    let smart = tmp.path().join("smart-log.bin");
    let page = std::fs::read(&smart).unwrap();
    std::fs::remove_file(&smart).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&smart)
        .status()
        .unwrap();
    assert!(made.success());
    let store = store_with(&["nvme0"]);
    let poller = NvmePoller::new(
        Box::new(NvmeReplay::new(tmp.path())),
        PollPolicy::EVERY_PAGE,
    );
    let schedule = Schedule {
        interval: Duration::from_millis(30),
        deadline: Duration::from_millis(100),
        jitter: 0.0,
    };
    let judge: Judge = Arc::new(|_, _| {});
    let task = tokio::spawn(run(
        "nvme0".into(),
        Box::new(poller),
        schedule,
        judge,
        store.clone(),
        Arc::new(Notify::new()),
    ));
    wait_for(&store, "nvme0", |s| {
        !s.up && s.errors.get(&Source::Poll).is_some_and(|&n| n >= 4)
    })
    .await;
    // Answer: the stuck open returns once a writer opens the FIFO; the
    // next poll then reads a regular file again.
    let fifo = smart.clone();
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        std::fs::remove_file(&fifo).unwrap();
        std::fs::write(&fifo, &page).unwrap();
        w.write_all(&page).unwrap();
    });
    wait_for(&store, "nvme0", |s| s.up).await;
    writer.join().unwrap();
    task.abort();
}

/// Panics on polls 2 and 3, answers otherwise; counts resets.
struct Panicky {
    polls: u32,
    resets: Arc<std::sync::atomic::AtomicU32>,
}

impl Poller for Panicky {
    fn origin(&self) -> String {
        "panicky".into()
    }
    fn poll(&mut self) -> PollOutcome {
        self.polls += 1;
        if (2..=3).contains(&self.polls) {
            panic!("injected panic in poll {}", self.polls);
        }
        PollOutcome {
            reading: Some(Reading::default()),
            up: true,
            ..PollOutcome::default()
        }
    }
    fn reset(&mut self) {
        self.resets
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_poller_is_restarted_counted_and_polled_again() {
    let store = store_with(&["p"]);
    let resets = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let schedule = Schedule {
        interval: Duration::from_millis(10),
        deadline: Duration::from_secs(5),
        jitter: 0.0,
    };
    let task = tokio::spawn(run(
        "p".into(),
        Box::new(Panicky {
            polls: 0,
            resets: resets.clone(),
        }),
        schedule,
        Arc::new(|_, _| {}),
        store.clone(),
        Arc::new(Notify::new()),
    ));
    wait_for(&store, "p", |s| {
        s.restarts.get(&Task::Poll) == Some(&2) && s.up && s.polls >= 5
    })
    .await;
    let s = store.list().into_iter().find(|s| s.device == "p").unwrap();
    assert_eq!(s.errors.get(&Source::Poll), Some(&2));
    assert_eq!(resets.load(std::sync::atomic::Ordering::Relaxed), 2);
    assert!(!task.is_finished());
    task.abort();
}

/// A panic at each point of the poll loop — the poll, the store update,
/// the judge, the reset of a restarted poller — ends the poll thread (only
/// a panic in `poll` was caught before; the others ended the drive's
/// polling for good while its last `up 1` stayed served). Each is followed
/// by `up 0` while no poller runs, a counted restart, and polling again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_at_any_point_of_the_poll_loop_is_served_down_counted_and_restarted() {
    use inject::Point;
    for point in Point::ALL {
        let device = format!("inject-{point:?}");
        let store = store_with(&[&device]);
        let schedule = Schedule {
            interval: Duration::from_millis(300),
            deadline: Duration::from_secs(5),
            jitter: 0.0,
        };
        let polls = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let task = tokio::spawn(run(
            device.clone(),
            Box::new(Counting {
                gate: None,
                polls: polls.clone(),
            }),
            schedule,
            Arc::new(|_, _| {}),
            store.clone(),
            Arc::new(Notify::new()),
        ));
        wait_for(&store, &device, |s| s.up).await;
        // A reset runs only when a thread starts again: a panic in the poll
        // first gets there, and the panic in the reset makes a second restart.
        let want = if point == Point::Reset {
            inject::arm(&device, Point::Reset, 1);
            inject::arm(&device, Point::Poll, 1);
            2
        } else {
            inject::arm(&device, point, 1);
            1
        };
        wait_for(&store, &device, |s| s.restarts.get(&Task::Poll) == Some(&1)).await;
        let down = store.get(&device).unwrap();
        assert!(!down.up, "{point:?}: up while its poll thread is dead");
        let why = down.last_error.clone().unwrap_or_default();
        assert!(
            why.contains("poll loop panicked: panic injected at"),
            "{why}"
        );
        wait_for(&store, &device, |s| {
            s.restarts.get(&Task::Poll) == Some(&want) && s.up
        })
        .await;
        let s = store.get(&device).unwrap();
        assert_eq!(s.errors.get(&Source::Poll), Some(&want), "{point:?}");
        assert!(!task.is_finished(), "{point:?}: the supervisor ended");
        task.abort();
    }
}

#[test]
fn the_restart_back_off_doubles_up_to_32_intervals() {
    let i = Duration::from_secs(1);
    let got: Vec<u64> = (1..=8).map(|n| backoff(i, n).as_secs()).collect();
    assert_eq!(got, [1, 2, 4, 8, 16, 32, 32, 32]);
}
