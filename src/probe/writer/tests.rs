use super::*;
use std::os::unix::fs::symlink;

/// A fake sysfs: `/sys/dev/block/M:m` links into `/sys/devices/...`.
fn node(sys: &Path, majmin: &str, rel: &str, extra: &[&str]) {
    let real = sys.join("devices").join(rel);
    std::fs::create_dir_all(&real).unwrap();
    for e in extra {
        if e.ends_with('/') {
            std::fs::create_dir_all(real.join(e)).unwrap();
        } else {
            std::fs::write(real.join(e), "1\n").unwrap();
        }
    }
    std::fs::create_dir_all(sys.join("dev/block")).unwrap();
    let depth = "../../devices/";
    symlink(format!("{depth}{rel}"), sys.join("dev/block").join(majmin)).unwrap();
}

#[test]
fn a_partition_belongs_to_its_parent_drive() {
    let sys = tempfile::tempdir().unwrap();
    let s = sys.path();
    node(
        s,
        "259:0",
        "pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1",
        &[],
    );
    node(
        s,
        "259:2",
        "pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2",
        &["partition"],
    );
    node(
        s,
        "8:1",
        "pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1",
        &["partition"],
    );
    node(s, "7:3", "virtual/block/loop3", &[]);
    assert_eq!(disk_of_dev(s, 259, 0).unwrap(), "nvme0n1");
    assert_eq!(disk_of_dev(s, 259, 2).unwrap(), "nvme0n1");
    assert_eq!(disk_of_dev(s, 8, 1).unwrap(), "sda");
    assert_eq!(disk_of_dev(s, 7, 3).unwrap(), "loop3");
}

#[test]
fn device_mapper_md_and_non_block_filesystems_are_refused() {
    let sys = tempfile::tempdir().unwrap();
    let s = sys.path();
    node(s, "253:0", "virtual/block/dm-0", &["dm/"]);
    node(s, "9:127", "virtual/block/md127", &["md/"]);
    let dm = disk_of_dev(s, 253, 0).unwrap_err();
    assert!(dm.contains("device-mapper volume dm-0"), "{dm}");
    let md = disk_of_dev(s, 9, 127).unwrap_err();
    assert!(md.contains("md RAID md127"), "{md}");
    let anon = disk_of_dev(s, 0, 45).unwrap_err();
    assert!(anon.contains("not on a block device"), "{anon}");
}

#[test]
fn marker_parsing_rejects_foreign_text() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join(MARKER_FILE);
    std::fs::write(&m, format!("{MAGIC}\ninode=42\ntoken=abc\n")).unwrap();
    assert_eq!(read_marker(&m), Some((42, "abc".into())));
    std::fs::write(&m, "inode=42\ntoken=abc\n").unwrap();
    assert_eq!(read_marker(&m), None);
}

/// A folder whose filesystem a fake sysfs says is on drive `fake0`.
fn probe_dir() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("probe");
    std::fs::create_dir(&dir).unwrap();
    let dev = std::fs::metadata(&dir).unwrap().dev();
    let sys = tmp.path().join("sys");
    let majmin = format!(
        "{}:{}",
        nix::sys::stat::major(dev),
        nix::sys::stat::minor(dev)
    );
    node(&sys, &majmin, "virtual/block/fake0", &[]);
    (tmp, dir, sys)
}

/// `create` on another thread: a call that blocks fails the test
/// instead of hanging it.
fn create_within(dir: &Path, sys: &Path, max_bytes: u64) -> Result<(), String> {
    let (dir, sys) = (dir.to_path_buf(), sys.to_path_buf());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = WriteProbe::create(&dir, "fake0", &sys, max_bytes).map(|_| ());
        let _ = tx.send(r.map_err(|e| e.to_string()));
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("WriteProbe::create blocked")
}

fn mkfifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).unwrap();
}

#[test]
fn a_fifo_planted_as_the_marker_is_refused_without_blocking() {
    let (_tmp, dir, sys) = probe_dir();
    mkfifo(&dir.join(MARKER_FILE));
    let e = create_within(&dir, &sys, 1 << 20).unwrap_err();
    assert!(e.contains("was not written by ssd_exporter"), "{e}");
    assert!(!dir.join(DATA_FILE).exists());
}

#[test]
fn a_fifo_planted_as_the_data_file_is_refused_without_blocking() {
    let (_tmp, dir, sys) = probe_dir();
    let data = dir.join(DATA_FILE);
    mkfifo(&data);
    // Even beside a marker that names the FIFO's inode.
    let ino = std::fs::symlink_metadata(&data).unwrap().ino();
    std::fs::write(
        dir.join(MARKER_FILE),
        format!("{MAGIC}\ninode={ino}\ntoken=0123\n"),
    )
    .unwrap();
    let e = create_within(&dir, &sys, 1 << 20).unwrap_err();
    assert!(e.contains("was not created by ssd_exporter"), "{e}");
}

#[test]
fn a_symlink_planted_as_the_marker_is_not_followed() {
    let (tmp, dir, sys) = probe_dir();
    // Dangling: following it would create the target.
    let target = tmp.path().join("elsewhere");
    symlink(&target, dir.join(MARKER_FILE)).unwrap();
    let e = create_within(&dir, &sys, 1 << 20).unwrap_err();
    assert!(e.contains("was not written by ssd_exporter"), "{e}");
    assert!(!target.exists());
    assert!(
        !dir.join(DATA_FILE).exists(),
        "no data file is created beside a foreign marker"
    );
    // Pointing at a real marker of ours: still not read through the link.
    let real = tmp.path().join("real.id");
    std::fs::write(&real, format!("{MAGIC}\ninode=1\ntoken=0123\n")).unwrap();
    std::fs::remove_file(dir.join(MARKER_FILE)).unwrap();
    symlink(&real, dir.join(MARKER_FILE)).unwrap();
    assert_eq!(read_marker(&dir.join(MARKER_FILE)), None);
    assert!(read_marker(&real).is_some());
}

#[test]
fn a_symlink_planted_as_the_data_file_is_refused() {
    let (tmp, dir, sys) = probe_dir();
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, vec![7u8; 1 << 20]).unwrap();
    symlink(&victim, dir.join(DATA_FILE)).unwrap();
    let ino = std::fs::metadata(&victim).unwrap().ino();
    std::fs::write(
        dir.join(MARKER_FILE),
        format!("{MAGIC}\ninode={ino}\ntoken=0123\n"),
    )
    .unwrap();
    let e = create_within(&dir, &sys, 1 << 20).unwrap_err();
    assert!(e.contains("was not created by ssd_exporter"), "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn max_bytes_and_free_space_are_bounded() {
    let (_tmp, dir, sys) = probe_dir();
    let e = create_within(&dir, &sys, 1 << 40).unwrap_err();
    assert!(e.contains("above the 1073741824-byte (1 GiB) limit"), "{e}");
    assert!(!dir.join(DATA_FILE).exists());
    let d = Path::new("/srv");
    assert!(check_free_space(d, 1 << 20, 2 << 20).is_ok());
    let e = check_free_space(d, 1 << 20, (2 << 20) - 1).unwrap_err();
    assert!(e.to_string().contains("lower probe.write.max_bytes"), "{e}");
    assert!(check_free_space(d, 1 << 20, 0).is_err());
}

#[test]
fn labels_are_write_and_flush() {
    assert_eq!(WriteMode::Direct.op(), ProbeOp::Write);
    assert_eq!(WriteMode::Flush.op(), ProbeOp::Flush);
}
