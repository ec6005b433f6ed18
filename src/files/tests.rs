use super::*;

const SMALL: Limit = Limit {
    bytes: 16,
    what: "a test file",
};

#[test]
fn a_regular_file_within_the_limit_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, "0123456789abcdef").unwrap();
    assert_eq!(read(&path, SMALL).unwrap(), b"0123456789abcdef");
    assert_eq!(read_text(&path, SMALL).unwrap(), "0123456789abcdef");
}

#[test]
fn a_file_past_the_limit_is_refused_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, vec![b'x'; 17]).unwrap();
    let e = read(&path, SMALL).unwrap_err().to_string();
    assert_eq!(e, "is larger than 16 bytes, the most a test file may hold");
    let mib = Limit {
        bytes: 1 << 20,
        what: "a config file",
    };
    std::fs::write(&path, vec![b'x'; (1 << 20) + 1]).unwrap();
    let e = read(&path, mib).unwrap_err().to_string();
    assert!(e.contains("larger than 1 MiB"), "{e}");
}

/// Without O_NONBLOCK the open blocks until a writer comes (for good); the
/// test would hang rather than fail, so it runs on a thread with a bound.
#[test]
fn a_fifo_is_refused_at_once_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fifo");
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.clone();
    std::thread::spawn(move || {
        let _ = tx.send(read(&p, SMALL).map_err(|e| e.to_string()));
    });
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("reading a FIFO blocked");
    assert_eq!(
        got.unwrap_err(),
        "is a FIFO, not a regular file; name a regular file"
    );
}

/// `/dev/zero` reports size 0 and never ends: a size check alone reads forever.
#[test]
fn dev_zero_and_a_directory_are_refused() {
    let e = read(Path::new("/dev/zero"), SMALL).unwrap_err().to_string();
    assert!(e.starts_with("is a character device"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let e = read(dir.path(), SMALL).unwrap_err().to_string();
    assert!(e.starts_with("is a directory"), "{e}");
}

#[test]
fn a_missing_file_is_the_os_error_and_bad_utf8_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let e = read(&dir.path().join("nope"), SMALL)
        .unwrap_err()
        .to_string();
    assert!(e.contains("No such file"), "{e}");
    let path = dir.path().join("bin");
    std::fs::write(&path, [0xff, 0xfe]).unwrap();
    assert_eq!(
        read_text(&path, SMALL).unwrap_err().to_string(),
        "is not UTF-8 text"
    );
}
