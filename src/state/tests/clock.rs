//! A state file read under a clock behind the one it was saved under, and
//! the files kept aside before a save replaces one not wholly believed.

use super::*;
use crate::state::file::BAD_KEPT;

#[test]
fn a_history_saved_while_the_clock_ran_ahead_is_kept_moved_back() {
    let m = Memory::default();
    let ahead = T0 + 86_400;
    let id = identity("A", "");
    let mut a = drive("nvme0", id.clone());
    poll(&m, &mut a, 5, at(ahead));
    let run = SelfTestRun {
        started_ms: (ahead + 30) * 1000,
        kind: SelfTestKind::Short,
    };
    m.self_test_started(&id, run);
    poll(&m, &mut a, 5, at(ahead + 60));
    let mut b = drive("nvme1", identity("B", ""));
    poll(&m, &mut b, 0, at(T0 - 3600));
    let payload = m.payload(at(ahead + 60), true).unwrap();
    // Read back a day and a minute earlier, as a host whose clock boots
    // behind and starts before NTP sets it.
    let (m, doubted) = Memory::from_payload(window(), payload, at(T0));
    assert_eq!(m.len(), 2, "both drives kept");
    assert_eq!(doubted.len(), 1, "{doubted:?}");
    assert_eq!(doubted[0].serial, "A");
    assert_eq!(doubted[0].moved, Some(Duration::from_secs(86_460)));
    // Its newest time is now; the run 30 s before it.
    assert_eq!(m.self_test_runs(&id), [Some(at(T0 - 30)), None]);
    // The baseline holds: 3 more errors are a rise of 3, not a new start.
    let mut a = drive("nvme0", id);
    poll(&m, &mut a, 8, at(T0 + 60));
    assert_eq!(a.history.increase(Tracked::MediaErrors), Some(3));
}

fn state_with(saved_at_ms: u64) -> Vec<u8> {
    let payload = Payload {
        saved_at_ms,
        boot_ms: None,
        drives: Vec::new(),
    };
    file::encode(&payload)
}

#[test]
fn kept_files_are_the_last_few_newest_first_and_the_file_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::open(tmp.path()).unwrap();
    let saves: Vec<Vec<u8>> = (0..6).map(state_with).collect();
    for bytes in &saves {
        state.save(bytes).unwrap();
        state.keep_aside().unwrap();
    }
    // Kept again before a save replaced it (a restart loop): once.
    state.keep_aside().unwrap();
    let read = |n: usize| std::fs::read(state.kept(n)).unwrap();
    assert_eq!(BAD_KEPT, 4);
    for n in 0..BAD_KEPT {
        assert_eq!(read(n), saves[5 - n], "kept file {n}");
    }
    assert!(!state.kept(BAD_KEPT).exists(), "more kept than the bound");
    assert_eq!(
        std::fs::read(state.file()).unwrap(),
        saves[5],
        "file in place"
    );
    assert_eq!(state.kept(0), tmp.path().join(BAD_NAME));
}

#[test]
fn a_symbolic_link_is_kept_as_itself_never_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::open(&tmp.path().join("state")).unwrap();
    let outside = tmp.path().join("outside");
    std::fs::write(&outside, "untouched").unwrap();
    std::os::unix::fs::symlink(&outside, state.file()).unwrap();
    state.keep_aside().unwrap();
    let kept = std::fs::symlink_metadata(state.kept(0)).unwrap();
    assert!(kept.file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "untouched");
}
