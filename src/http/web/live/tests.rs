//! The watcher, one look at a time ([`Live::step`]): what a changed file
//! puts in force, and what it must not.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Live, Step};
use crate::http::tests::basic_headers;
use crate::http::tests::pki::{Pki, write};
use crate::http::web::WebConfig;

/// Writes `text` beside `path` and renames it over `path`, as an operator's
/// tooling (or a Secret update) does: a new inode, so the change is seen
/// however close in time it is to the last one.
fn replace(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn users(user: &str, password: &str) -> String {
    format!(
        "basic_auth_users:\n  {user}: {}\n",
        bcrypt::hash(password, 4).unwrap()
    )
}

async fn allows(live: &Live, user: &str, password: &str) -> bool {
    let auth = live.current().auth.clone().expect("authentication on");
    auth.allows("/metrics", &basic_headers(user, password))
        .await
}

fn start(dir: &Path, text: &str) -> (PathBuf, Arc<Live>) {
    let path = write(dir, "web.yml", text);
    let live = Live::fixed(WebConfig::load(&path).unwrap()).unwrap();
    (path, live)
}

#[tokio::test]
async fn a_changed_password_is_in_force_after_one_look_and_the_old_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (path, live) = start(dir.path(), &users("prometheus", "old"));
    let mut watch = live.watch();
    assert_eq!(live.step(&mut watch), Step::Unchanged);
    assert!(allows(&live, "prometheus", "old").await);

    replace(&path, &users("prometheus", "new"));
    assert_eq!(live.step(&mut watch), Step::Reloaded);
    assert!(allows(&live, "prometheus", "new").await);
    assert!(!allows(&live, "prometheus", "old").await);
    assert_eq!(live.step(&mut watch), Step::Unchanged);
}

#[tokio::test]
async fn a_broken_file_keeps_the_working_config_once_and_a_fixed_one_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let (path, live) = start(dir.path(), &users("prometheus", "pw"));
    let mut watch = live.watch();

    replace(&path, "basic_auth_users:\n  prometheus: not-a-hash\n");
    match live.step(&mut watch) {
        Step::Kept(why) => assert!(why.contains("basic_auth_users.prometheus"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(allows(&live, "prometheus", "pw").await);
    // Logged once: the same broken file is not read again.
    assert_eq!(live.step(&mut watch), Step::Unchanged);

    replace(&path, "nonsense: [\n");
    assert!(matches!(live.step(&mut watch), Step::Kept(_)));
    assert!(allows(&live, "prometheus", "pw").await);

    replace(&path, &users("prometheus", "fixed"));
    assert_eq!(live.step(&mut watch), Step::Reloaded);
    assert!(allows(&live, "prometheus", "fixed").await);
}

#[tokio::test]
async fn a_deleted_file_keeps_the_working_config() {
    let dir = tempfile::tempdir().unwrap();
    let (path, live) = start(dir.path(), &users("prometheus", "pw"));
    let mut watch = live.watch();
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(live.step(&mut watch), Step::Kept(_)));
    assert!(allows(&live, "prometheus", "pw").await);
}

#[test]
fn headers_follow_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, live) = start(dir.path(), "");
    let mut watch = live.watch();
    assert!(live.current().headers().is_empty());
    replace(
        &path,
        "http_server_config:\n  headers:\n    X-Frame-Options: deny\n",
    );
    assert_eq!(live.step(&mut watch), Step::Reloaded);
    let current = live.current();
    let names: Vec<&str> = current.headers().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["x-frame-options"]);
}

#[test]
fn turning_tls_on_or_off_waits_for_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("test ca");
    let leaf = pki.leaf(&["localhost"]);
    write(dir.path(), "server.crt", &leaf.cert_pem);
    write(dir.path(), "server.key", &leaf.key_pem);
    let tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

    let (path, live) = start(dir.path(), "");
    let mut watch = live.watch();
    replace(&path, tls);
    match live.step(&mut watch) {
        Step::Kept(why) => assert!(why.contains("restart"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(live.current().tls.is_none());

    replace(&path, tls);
    let (path, live) = start(dir.path(), tls);
    let mut watch = live.watch();
    replace(&path, "");
    assert!(matches!(live.step(&mut watch), Step::Kept(_)));
    assert!(live.current().tls.is_some());
}

#[tokio::test]
async fn certificate_files_a_new_file_names_are_watched_and_auth_cache_survives() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new("test ca");
    let (a, b) = (pki.leaf(&["localhost"]), pki.leaf(&["localhost"]));
    write(dir.path(), "a.crt", &a.cert_pem);
    write(dir.path(), "a.key", &a.key_pem);
    write(dir.path(), "b.crt", &b.cert_pem);
    write(dir.path(), "b.key", &b.key_pem);
    let named = |name: &str| {
        format!(
            "tls_server_config:\n  cert_file: {name}.crt\n  key_file: {name}.key\n{}",
            users("prometheus", "pw")
        )
    };
    let (path, live) = start(dir.path(), &named("a"));
    let mut watch = live.watch();
    assert!(allows(&live, "prometheus", "pw").await);
    let auth_before = live.current().auth.clone().unwrap();

    // Same users, so the verified-password cache is kept. (`named` makes a
    // new salt each time: write the same users text.)
    let text = std::fs::read_to_string(&path).unwrap();
    replace(
        &path,
        &text.replace("a.crt", "b.crt").replace("a.key", "b.key"),
    );
    assert_eq!(live.step(&mut watch), Step::Reloaded);
    assert!(Arc::ptr_eq(
        &auth_before,
        live.current().auth.as_ref().unwrap()
    ));

    // b.crt is now watched: a broken one is refused, a good one taken.
    replace(&dir.path().join("b.crt"), "not a certificate\n");
    assert!(matches!(live.step(&mut watch), Step::Kept(_)));
    replace(&dir.path().join("b.crt"), &b.cert_pem);
    assert_eq!(live.step(&mut watch), Step::Reloaded);
    // a.crt is no longer named: its change is nothing to act on.
    replace(&dir.path().join("a.crt"), "gone\n");
    assert_eq!(live.step(&mut watch), Step::Unchanged);
}

#[test]
fn a_fifo_in_place_of_the_file_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("web.yml");
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    let e = WebConfig::load(&path).unwrap_err().to_string();
    assert!(e.contains("not a regular file"), "{e}");
}

/// A certificate swapped for a FIFO blocked the one watcher thread in
/// open(2) before the change, so rotation stopped for good; `/dev/zero`
/// grew without end. Each is refused at once naming the file, and a good
/// certificate after it is still taken. Runs on a thread with a bound so a
/// regression fails instead of hanging the test run.
#[test]
fn a_certificate_turned_into_a_fifo_or_dev_zero_is_refused_and_rotation_goes_on() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let dir = tempfile::tempdir().unwrap();
        let pki = Pki::new("test ca");
        let leaf = pki.leaf(&["localhost"]);
        let cert = write(dir.path(), "server.crt", &leaf.cert_pem);
        write(dir.path(), "server.key", &leaf.key_pem);
        let tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
        let (_, live) = start(dir.path(), tls);
        let mut watch = live.watch();

        let fifo = dir.path().join("fifo.tmp");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::fs::rename(&fifo, &cert).unwrap();
        let fifo_step = live.step(&mut watch);

        std::fs::remove_file(&cert).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &cert).unwrap();
        let zero_step = live.step(&mut watch);

        std::fs::remove_file(&cert).unwrap();
        replace(&cert, &leaf.cert_pem);
        let good_step = live.step(&mut watch);
        let _ = tx.send((fifo_step, zero_step, good_step, cert));
    });
    let (fifo, zero, good, cert) = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the watcher blocked on a FIFO or /dev/zero certificate");
    let name = cert.display().to_string();
    match fifo {
        Step::Kept(why) => assert!(why.contains(&name) && why.contains("FIFO"), "{why}"),
        other => panic!("{other:?}"),
    }
    match zero {
        Step::Kept(why) => {
            assert!(
                why.contains(&name) && why.contains("character device"),
                "{why}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(good, Step::Reloaded);
}
