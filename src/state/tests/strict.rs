//! Where state is never read from: a symbolic link in the file's place, a
//! directory another user could write (sshd's StrictModes); and a file
//! read late, once another exporter's lock is free.

use super::*;

fn empty() -> Vec<u8> {
    let payload = Payload {
        saved_at_ms: 1,
        boot_ms: None,
        drives: Vec::new(),
    };
    file::encode(&payload)
}

#[test]
fn a_symbolic_link_in_the_file_s_place_is_refused_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let state = StateDir::open(&tmp.path().join("state")).unwrap();
    let elsewhere = tmp.path().join("elsewhere.json");
    std::fs::write(&elsewhere, empty()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, state.file()).unwrap();
    let e = state.load().unwrap_err().to_string();
    assert!(e.contains("symbolic link"), "{e}");
}

#[test]
fn a_directory_others_can_write_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for mode in [0o777, 0o770, 0o702] {
        let path = tmp.path().join(format!("state{mode:o}"));
        std::fs::create_dir(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let e = StateDir::open(&path).unwrap_err();
        assert!(matches!(e, OpenError::Unsafe(_)), "{mode:o}: {e}");
        assert!(e.to_string().contains(&format!("mode {mode:04o}")), "{e}");
    }
    // 0700 and 0755 are the exporter's own.
    for mode in [0o700, 0o755] {
        let path = tmp.path().join(format!("ok{mode:o}"));
        std::fs::create_dir(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        assert!(StateDir::open(&path).is_ok(), "{mode:o}");
    }
}

#[test]
fn a_directory_another_user_owns_is_refused() {
    let e = file::check_owner(12345, 0o700, 1000)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("owned by uid 12345, not this process's uid 1000"),
        "{e}"
    );
    // Its own, or root's (a root-owned directory only root can write).
    assert!(file::check_owner(1000, 0o700, 1000).is_ok());
    assert!(file::check_owner(0, 0o755, 1000).is_ok());
    // The sticky bit and others' read are no one's way in.
    assert!(file::check_owner(1000, 0o1755, 1000).is_ok());
}

/// A second exporter that found the directory locked loads the file once
/// the lock is free: a drive it already judged takes the saved baseline.
#[test]
fn a_file_loaded_late_gives_drives_already_judged_their_saved_baselines() {
    let saved = Memory::default();
    let mut before = drive("nvme0", identity("S1", ""));
    poll(&saved, &mut before, 5, at(T0));
    let payload = saved.payload(at(T0), true).unwrap();
    // This run, without the file: the drive starts fresh at 7.
    let m = Memory::default();
    let mut s = drive("nvme0", identity("S1", ""));
    poll(&m, &mut s, 7, at(T0 + 60));
    assert_eq!(s.history.increase(Tracked::MediaErrors), Some(0));
    let (loaded, doubted) = Memory::from_payload(window(), payload, at(T0 + 90));
    assert!(doubted.is_empty());
    m.absorb(loaded);
    // The next verdict: 8 errors are 3 more than the saved 5.
    poll(&m, &mut s, 8, at(T0 + 120));
    assert_eq!(s.history.increase(Tracked::MediaErrors), Some(3));
    // And what is kept, and saved next, is that history.
    let back = m.payload(at(T0 + 120), true).unwrap();
    let (again, _) = Memory::from_payload(window(), back, at(T0 + 180));
    let mut later = drive("nvme0", identity("S1", ""));
    poll(&again, &mut later, 8, at(T0 + 180));
    assert_eq!(later.history.increase(Tracked::MediaErrors), Some(3));
}
