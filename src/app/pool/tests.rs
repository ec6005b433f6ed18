use super::*;
use std::sync::RwLock;
use std::sync::atomic::AtomicU32;

/// A job that counts its runs; each run waits while `gate` is held for
/// writing (a poll stuck in the kernel until the test lets it go).
struct Fake {
    deadline: Duration,
    interval: Duration,
    runs: AtomicU32,
    gate: Option<Arc<RwLock<()>>>,
    in_flight: Mutex<Option<Instant>>,
}

impl Fake {
    fn new(gate: Option<Arc<RwLock<()>>>) -> Arc<Self> {
        Arc::new(Self {
            deadline: Duration::from_millis(200),
            interval: Duration::from_millis(10),
            runs: AtomicU32::new(0),
            gate,
            in_flight: Mutex::new(None),
        })
    }

    fn runs(&self) -> u32 {
        self.runs.load(Ordering::SeqCst)
    }
}

impl Job for Fake {
    fn deadline(&self) -> Duration {
        self.deadline
    }

    fn run(&self, started: Instant) -> Instant {
        *self.in_flight.lock().unwrap() = Some(started);
        self.runs.fetch_add(1, Ordering::SeqCst);
        if let Some(gate) = &self.gate {
            drop(gate.read().unwrap_or_else(|e| e.into_inner()));
        }
        *self.in_flight.lock().unwrap() = None;
        Instant::now() + self.interval
    }

    fn watch(&self, now: Instant) -> Watched {
        let started = *self.in_flight.lock().unwrap();
        match started {
            None => Watched {
                overran: false,
                next: None,
            },
            Some(s) if now - s >= self.deadline => Watched {
                overran: true,
                next: Some(now + self.interval),
            },
            Some(s) => Watched {
                overran: false,
                next: Some(s + self.deadline),
            },
        }
    }
}

fn wait_for(what: &str, f: impl Fn() -> bool) {
    for _ in 0..1000 {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("never: {what}");
}

fn workers(g: &PollWorkers) -> u64 {
    g.idle.load(Ordering::SeqCst) + g.busy.load(Ordering::SeqCst) + g.stuck.load(Ordering::SeqCst)
}

/// A hundred drives whose polls hang in the kernel, queued ahead of ten
/// healthy ones: each hung poll costs one worker, written off at its
/// deadline and never sent a second poll while it hangs; the healthy
/// drives keep being polled; the threads stay within one per drive plus
/// the core; and once the calls return, every drive is polled again.
#[test]
fn a_hundred_hung_drives_cost_a_worker_each_and_delay_no_other() {
    let gauge = Arc::new(PollWorkers::default());
    let pool = Pool::new(2, Arc::clone(&gauge));
    let gate = Arc::new(RwLock::new(()));
    let held = gate.write().unwrap();
    let hung: Vec<_> = (0..100)
        .map(|_| Fake::new(Some(Arc::clone(&gate))))
        .collect();
    let healthy: Vec<_> = (0..10).map(|_| Fake::new(None)).collect();
    let mut registered = Vec::new();
    for job in hung.iter().chain(&healthy) {
        registered.push(pool.add(Arc::clone(job) as Arc<dyn Job>));
    }
    wait_for("every hung drive polled and its worker written off", || {
        gauge.stuck.load(Ordering::SeqCst) == 100
    });
    let before: Vec<u32> = healthy.iter().map(|j| j.runs()).collect();
    wait_for("every healthy drive polled five more times", || {
        healthy.iter().zip(&before).all(|(j, b)| j.runs() >= b + 5)
    });
    assert!(
        hung.iter().all(|j| j.runs() == 1),
        "a hung drive polled again"
    );
    let bound = (hung.len() + healthy.len() + 2) as u64;
    assert!(workers(&gauge) <= bound, "{} workers", workers(&gauge));
    drop(held);
    wait_for(
        "the hung drives polled again once their calls return",
        || hung.iter().all(|j| j.runs() >= 2) && gauge.stuck.load(Ordering::SeqCst) == 0,
    );
    drop(registered);
}

/// A drive taken out while its poll runs is not polled again, and the
/// workers beyond the core end once idle.
#[test]
fn a_drive_taken_out_while_it_polls_is_not_polled_again() {
    let gauge = Arc::new(PollWorkers::default());
    let pool = Pool::new(1, Arc::clone(&gauge));
    let gate = Arc::new(RwLock::new(()));
    let held = gate.write().unwrap();
    let job = Fake::new(Some(Arc::clone(&gate)));
    let registered = pool.add(Arc::clone(&job) as Arc<dyn Job>);
    wait_for("polled", || job.runs() == 1);
    drop(registered);
    drop(held);
    wait_for("the stuck poll returned", || {
        gauge.busy.load(Ordering::SeqCst) + gauge.stuck.load(Ordering::SeqCst) == 0
    });
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(job.runs(), 1);
}

fn state_with(now: Instant, runs: &[(Duration, bool)], waiting: usize) -> State {
    let mut st = State::default();
    for (i, &(age, written_off)) in runs.iter().enumerate() {
        let job = Fake::new(None) as Arc<dyn Job>;
        let run = Running {
            job_id: 1000 + i as u64,
            job,
            started: now - age,
            check: None,
            written_off,
        };
        st.running.insert(i as u64, run);
        st.written_off += usize::from(written_off);
    }
    for id in 0..waiting as u64 {
        let job = Fake::new(None) as Arc<dyn Job>;
        st.jobs.insert(
            id,
            Queued {
                job,
                due: Some(now),
            },
        );
        st.queue.push(Reverse((now, id)));
    }
    st
}

/// Which workers the watchdog starts while work waits: none while the
/// core's runs are young (a burst of healthy polls queues), the core
/// again when runs stalled or were written off, as many again as stalled
/// when every run did (hung drives in a row), never more than wait.
#[test]
fn workers_start_for_stalls_not_for_queues() {
    let now = Instant::now() + Duration::from_secs(10);
    let young = (Duration::from_millis(1), false);
    let stalled = (STALL * 2, false);
    let stuck = (Duration::from_secs(5), true);
    let start =
        |runs: &[(Duration, bool)], waiting| state_with(now, runs, waiting).to_start(now, 2);
    assert_eq!(start(&[young, young], 500), 0);
    assert_eq!(start(&[young, stalled], 500), 1);
    assert_eq!(start(&[young, stuck], 500), 1);
    assert_eq!(start(&[stalled, stalled], 500), 2);
    assert_eq!(start(&[stalled; 8], 500), 8);
    assert_eq!(start(&[stalled; 8], 3), 3);
    assert_eq!(start(&[stuck, stuck], 500), 2);
    assert_eq!(start(&[stalled, stalled], 0), 0);
    let mut idle = state_with(now, &[stalled, stalled], 500);
    idle.idle = 1;
    assert_eq!(idle.to_start(now, 2), 0);
}
