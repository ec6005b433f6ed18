//! The latency probe against real block devices: loop devices attached with
//! direct I/O (the test machine's own disk cannot be opened). Needs root,
//! `losetup`, `mkfs.ext4` and `mount`; a machine that cannot create loop
//! devices fails these tests with a message saying so.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ssd_exporter::probe::op::{IoResult, ProbeOp};
use ssd_exporter::probe::reader::{ProbeError, ProbeTarget};
use ssd_exporter::probe::runner::{self, ProbeConfig, WriteConfig};
use ssd_exporter::probe::writer::{DATA_FILE, MARKER_FILE, WriteMode, WriteProbe};

const SIZE: u64 = 64 << 20;

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd).args(args).output().unwrap_or_else(|e| {
        panic!("cannot run {cmd}: {e} (the probe tests need util-linux and e2fsprogs)")
    });
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {} (the probe tests need root and a kernel that can create loop devices)",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A 64 MiB file filled with a pattern, attached as a direct-I/O loop
/// device; detached (and unmounted, if mounted) on drop.
struct LoopDev {
    name: String,
    path: PathBuf,
    mount: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

impl LoopDev {
    fn attach() -> LoopDev {
        let dir = tempfile::tempdir().unwrap();
        let backing = dir.path().join("disk.img");
        let mut f = std::fs::File::create(&backing).unwrap();
        // A pseudo-random 1 MiB pattern; each 4 KiB block is stamped with
        // its own number so no two blocks are equal.
        let mut block: Vec<u8> = (0..1u32 << 20)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for mib in 0..SIZE >> 20 {
            for (k, chunk) in block.chunks_mut(4096).enumerate() {
                chunk[..8].copy_from_slice(&((mib << 8) + k as u64).to_le_bytes());
            }
            f.write_all(&block).unwrap();
        }
        f.sync_all().unwrap();
        let dev = run(
            "losetup",
            &[
                "--find",
                "--show",
                "--direct-io=on",
                backing.to_str().unwrap(),
            ],
        );
        let path = PathBuf::from(&dev);
        LoopDev {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            path,
            mount: None,
            _dir: dir,
        }
    }

    /// Puts an ext4 filesystem on the device and mounts it on a temp folder.
    fn mount_ext4(&mut self, at: &Path) {
        run("mkfs.ext4", &["-q", "-F", self.path.to_str().unwrap()]);
        run(
            "mount",
            &[self.path.to_str().unwrap(), at.to_str().unwrap()],
        );
        self.mount = Some(at.into());
    }

    fn sha256(&self) -> String {
        run("sha256sum", &[self.path.to_str().unwrap()])
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if let Some(m) = &self.mount {
            let _ = Command::new("umount").arg(m).status();
        }
        let _ = Command::new("losetup").arg("-d").arg(&self.path).status();
    }
}

/// Every entry under `dir` with its size and modification time.
fn listing(dir: &Path) -> BTreeMap<String, (u64, i64)> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                (m.len(), m.mtime_nsec()),
            )
        })
        .collect()
}

#[test]
fn read_probe_on_a_loop_device_reads_and_never_writes() {
    let dev = LoopDev::attach();
    let before = dev.sha256();
    let target = ProbeTarget::from_sysfs(Path::new("/sys"), Path::new("/dev"), &dev.name).unwrap();
    assert_eq!(target.size_bytes, SIZE);
    let config = ProbeConfig {
        rate: 200.0,
        ..ProbeConfig::default()
    };
    let probe = runner::spawn(target, config, None).unwrap();
    // 100 reads at 200/s take half a second; a loaded machine gets 20 s.
    let started = std::time::Instant::now();
    while probe.stats.lock().unwrap().read.count(IoResult::Ok) < 100
        && started.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = started.elapsed().as_secs_f64();
    crate::common::log_margin(
        "read probe, 100 reads at 200/s",
        20.0 / took.max(1e-3),
        &format!("after {took:.2} s, limit 20 s"),
    );
    let (ok, errors, timeouts, skipped, p50, last) = {
        let s = probe.stats.lock().unwrap();
        (
            s.read.count(IoResult::Ok),
            s.read.count(IoResult::Error),
            s.read.count(IoResult::Timeout),
            s.skipped.clone(),
            s.read.window.quantile(0.5),
            s.last_error.clone(),
        )
    };
    assert!(
        probe.stop_and_join(Duration::from_secs(5)),
        "probe thread did not stop"
    );
    assert!(
        ok >= 100,
        "only {ok} reads in 20 s at 200/s (skipped: {skipped:?}, last error {last:?})"
    );
    assert_eq!((errors, timeouts), (0, 0), "last error: {last:?}");
    let p50 = p50.expect("a median");
    assert!(p50 > 0.0 && p50 < 0.5, "implausible median {p50}");
    assert_eq!(dev.sha256(), before, "the read probe changed the device");
}

#[test]
fn write_probe_refuses_a_device_node() {
    let dev = LoopDev::attach();
    let before = dev.sha256();
    let e = WriteProbe::create(&dev.path, &dev.name, Path::new("/sys"), 1 << 20)
        .err()
        .unwrap();
    assert!(matches!(e, ProbeError::WriteRefused { .. }), "{e}");
    assert!(e.to_string().contains("device node"), "{e}");
    assert_eq!(dev.sha256(), before);
}

#[test]
fn write_probe_writes_only_its_own_file_on_the_expected_drive() {
    let other = LoopDev::attach();
    let other_before = other.sha256();
    let mut dev = LoopDev::attach();
    let mnt = tempfile::tempdir().unwrap();
    dev.mount_ext4(mnt.path());
    let sys = Path::new("/sys");
    let dir = mnt.path().join("probe");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("keep.txt"), "not the probe's").unwrap();

    // The wrong drive is refused, and nothing is created.
    let e = WriteProbe::create(&dir, &other.name, sys, 1 << 20)
        .err()
        .unwrap();
    let text = e.to_string();
    assert!(
        text.contains(&format!("on {}, not on {}", dev.name, other.name)),
        "{text}"
    );
    assert_eq!(listing(&dir).len(), 1);

    // The right drive is accepted; probe writes stay inside the data file.
    let config = ProbeConfig {
        rate: 1.0,
        write: Some(WriteConfig {
            rate: 200.0,
            max_bytes: 4 << 20,
            ..WriteConfig::new(&dir)
        }),
        ..ProbeConfig::default()
    };
    let target = ProbeTarget::from_sysfs(sys, Path::new("/dev"), &dev.name).unwrap();
    let probe = runner::spawn(target.clone(), config, None).unwrap();
    // The probe's own thread creates its file (not the caller, which may be
    // the async runtime); the first completed write says it is there.
    let started = std::time::Instant::now();
    let deadline = started + Duration::from_secs(20);
    while probe
        .stats
        .lock()
        .unwrap()
        .write
        .as_ref()
        .unwrap()
        .count(IoResult::Ok)
        == 0
    {
        assert!(std::time::Instant::now() < deadline, "no write within 20 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    let first = started.elapsed().as_secs_f64();
    crate::common::log_margin(
        "write probe, first write",
        20.0 / first.max(1e-3),
        &format!("after {first:.3} s, limit 20 s"),
    );
    let created = listing(&dir);
    let header = std::fs::read(dir.join(DATA_FILE)).unwrap()[..4096].to_vec();
    // 50 more writes at 200/s take a quarter of a second; up to 20 s here.
    let writes = || {
        let s = probe.stats.lock().unwrap();
        s.write.as_ref().unwrap().count(IoResult::Ok)
    };
    let started = std::time::Instant::now();
    while writes() <= 50 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = started.elapsed().as_secs_f64();
    crate::common::log_margin(
        "write probe, 50 writes at 200/s",
        20.0 / took.max(1e-3),
        &format!("after {took:.2} s, limit 20 s"),
    );
    let (op, ok, errors, last) = {
        let s = probe.stats.lock().unwrap();
        let w = s.write.as_ref().unwrap();
        (
            w.op,
            w.count(IoResult::Ok),
            w.count(IoResult::Error),
            s.last_error.clone(),
        )
    };
    assert!(probe.stop_and_join(Duration::from_secs(5)));
    assert_eq!(op, ProbeOp::Write);
    assert!(ok > 50, "only {ok} writes in 20 s (last error {last:?})");
    assert_eq!(errors, 0, "{last:?}");
    let after = listing(&dir);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        vec!["keep.txt", DATA_FILE, MARKER_FILE],
        "files other than the probe's appeared"
    );
    assert_eq!(after["keep.txt"], created["keep.txt"]);
    assert_eq!(after[MARKER_FILE], created[MARKER_FILE]);
    assert_eq!(after[DATA_FILE].0, 4 << 20, "the data file changed size");
    assert_eq!(
        std::fs::read(dir.join(DATA_FILE)).unwrap()[..4096],
        header[..]
    );

    // A restart reuses its own file, in both modes.
    let mut again = WriteProbe::create(&dir, &dev.name, sys, 4 << 20).unwrap();
    for mode in [WriteMode::Direct, WriteMode::Flush] {
        let off = again.random_offset(fastrand::u64(..));
        again.write(mode, off).unwrap();
    }

    // A file it did not create is refused and left alone, even beside a
    // marker copied from elsewhere.
    let foreign = mnt.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join(DATA_FILE), vec![9u8; 1 << 20]).unwrap();
    let e = WriteProbe::create(&foreign, &dev.name, sys, 1 << 20)
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("was not created by ssd_exporter"),
        "{e}"
    );
    std::fs::copy(dir.join(MARKER_FILE), foreign.join(MARKER_FILE)).unwrap();
    assert!(WriteProbe::create(&foreign, &dev.name, sys, 1 << 20).is_err());
    assert_eq!(
        std::fs::read(foreign.join(DATA_FILE)).unwrap(),
        vec![9u8; 1 << 20]
    );
    drop(again);
    assert_eq!(other.sha256(), other_before, "the other drive was written");
}

/// The binary probing a loop device named with --probe.device: the probe
/// series appear, promtool accepts them, and the device is unchanged.
#[test]
fn exporter_serves_probe_series_for_a_named_device() {
    use crate::common::{Exporter, parse, path_str, repo};
    let dev = LoopDev::attach();
    let before = dev.sha256();
    let fixture = repo().join("tests/fixtures/sata/kingston-dc600m/sda");
    let args = [
        format!("--replay={}", path_str(&fixture)),
        format!("--probe.device={}", dev.name),
        "--probe.rate=100".to_string(),
        "--path.drivedb=none".to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let exporter = Exporter::start(&args);
    let ok_reads = |text: &str| {
        parse(text)
            .iter()
            .filter(|(k, _)| {
                k.starts_with("ssd_probe_ios_total{")
                    && k.contains(&format!("block=\"{}\"", dev.name))
                    && k.contains("result=\"ok\"")
            })
            .map(|(_, v)| *v)
            .sum::<f64>()
    };
    let started = std::time::Instant::now();
    let deadline = started + Duration::from_secs(20);
    let text = loop {
        let (_, body) = exporter.get("/metrics", "");
        if ok_reads(&body) >= 50.0 {
            let took = started.elapsed().as_secs_f64();
            crate::common::log_margin(
                "exporter probe, 50 reads served",
                20.0 / took.max(1e-3),
                &format!("after {took:.2} s at 100/s, limit 20 s"),
            );
            break body;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no probe reads served:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let series = parse(&text);
    let has = |prefix: &str| {
        series
            .keys()
            .any(|k| k.starts_with(prefix) && k.contains(&format!("block=\"{}\"", dev.name)))
    };
    assert!(has("ssd_probe_latency_seconds_bucket{"), "{text}");
    assert!(has("ssd_probe_latency_seconds_count{"));
    assert!(has("ssd_probe_latency_quantile_seconds{"));
    assert!(has("ssd_probe_window_samples{"));
    // The DC600M fixture's datasheet QoS targets (drives.md): 200 µs read, 300 µs write.
    let qos = |op: &str| {
        series
            .iter()
            .find(|(k, _)| {
                k.starts_with("ssd_latency_qos_target_seconds{")
                    && k.contains(&format!("op=\"{op}\""))
            })
            .map(|(_, v)| *v)
    };
    assert_eq!(qos("read"), Some(0.0002));
    assert_eq!(qos("write"), Some(0.0003));
    let (ok, out) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .output_with(&text);
    assert!(ok, "promtool check metrics failed:\n{out}");
    drop(exporter);
    assert_eq!(
        dev.sha256(),
        before,
        "probing through the exporter changed the device"
    );
}

/// `Command` with its stdin fed from a string: (success, stdout + stderr).
trait OutputWith {
    fn output_with(&mut self, input: &str) -> (bool, String);
}

impl OutputWith for Command {
    fn output_with(&mut self, input: &str) -> (bool, String) {
        let mut child = self
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("promtool");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    }
}
