/// Against the kernel's own boot time, `btime` in `/proc/stat` (whole
/// seconds since the epoch).
#[test]
fn the_boot_time_is_the_kernel_s() {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let btime: u64 = stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
        .expect("/proc/stat has btime");
    let ours = super::boot_ms().expect("both clocks read");
    assert!(
        (ours / 1000).abs_diff(btime) <= 2,
        "boot at {ours} ms, the kernel says {btime} s"
    );
}

fn config(dir: &std::path::Path) -> crate::config::Config {
    let yaml = format!("state:\n  path: {}\n", dir.display());
    crate::config::Config::try_from(crate::config::RawFile::parse(&yaml).unwrap()).unwrap()
}

/// A drive identified and judged, as `app` does it: in the memory.
fn adopted(memory: &crate::state::Memory, serial: &str) -> crate::reading::Identity {
    let id = crate::poll::factory::placeholder(
        crate::device::discovery::Transport::Nvme,
        "MODEL",
        serial,
        "FW",
    );
    let mut s = crate::snapshot::DriveSnapshot::new("nvme0", "/dev/nvme0", id.clone());
    s.identified = true;
    memory.adopt(&mut s, std::time::SystemTime::now());
    memory.keep(&s, std::time::SystemTime::now());
    id
}

/// Issue 33: a self-test is in the file the moment it starts, not up to a
/// poll interval later (a crash meanwhile had the next start test the
/// drive again).
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_self_test_started_is_saved_at_once() {
    use crate::state::{SelfTestKind, SelfTestRun, file};
    let tmp = tempfile::tempdir().unwrap();
    let persist = std::sync::Arc::new(super::open(&config(tmp.path())).unwrap());
    let memory = persist.memory();
    let id = adopted(&memory, "S1");
    let saver = tokio::spawn(persist.clone().save_loop(super::Duration::from_secs(3600)));
    // The first tick's save of the new drive.
    tokio::time::sleep(super::Duration::from_secs(3601)).await;
    let started = tokio::time::Instant::now();
    let run = SelfTestRun {
        started_ms: 1_796_083_200_000,
        kind: SelfTestKind::Short,
    };
    memory.self_test_started(&id, run);
    let saved = |p: &std::path::Path| {
        let bytes = std::fs::read(p.join(file::FILE_NAME)).ok()?;
        file::decode(&bytes).ok()?.drives.first()?.last_self_test
    };
    while saved(tmp.path()).is_none() && started.elapsed() < super::Duration::from_secs(60) {
        tokio::time::sleep(super::Duration::from_millis(1)).await;
    }
    assert_eq!(saved(tmp.path()), Some(run), "not saved within a minute");
    assert!(started.elapsed() < super::Duration::from_secs(1));
    saver.abort();
}

/// Issue 33: a second exporter that found the directory locked takes the
/// lock once it is free and loads the file, instead of running its whole
/// life without history.
#[test]
fn a_locked_directory_is_tried_again_and_its_file_loaded_once_free() {
    use crate::state::{SelfTestKind, SelfTestRun, StateDir, file};
    let tmp = tempfile::tempdir().unwrap();
    let first = StateDir::open(tmp.path()).unwrap();
    let saved = crate::state::Memory::default();
    let id = adopted(&saved, "S1");
    let run = SelfTestRun {
        started_ms: 1_796_083_200_000,
        kind: SelfTestKind::Extended,
    };
    saved.self_test_started(&id, run);
    let payload = saved.payload(std::time::SystemTime::now(), true).unwrap();
    first.save(&file::encode(&payload)).unwrap();
    let second = super::open(&config(tmp.path())).unwrap();
    assert!(!second.saves(), "locked by the first");
    second.retry_lock();
    assert!(!second.saves(), "still locked");
    drop(first);
    second.retry_lock();
    assert!(second.saves(), "the lock is free");
    let at = std::time::UNIX_EPOCH + super::Duration::from_millis(run.started_ms);
    assert_eq!(second.memory().self_test_runs(&id), [Some(at), Some(at)]);
}
