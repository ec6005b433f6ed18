use super::*;
use nix::fcntl::{FcntlArg, OFlag, fcntl};

fn target(block_size: u32, size_bytes: u64, range: Option<(u64, u64)>) -> ProbeTarget {
    ProbeTarget {
        device: "fake".into(),
        path: "/nonexistent".into(),
        block_size,
        size_bytes,
        range,
    }
}

/// A reader over a temp file, without touching the disk for offsets.
fn reader(t: &ProbeTarget, file: File) -> Reader {
    let io = t.io_size();
    let (s, e) = t.range.unwrap_or((0, t.size_bytes));
    let (first, slots) = slots(s, e.min(t.size_bytes), u64::from(io)).unwrap();
    Reader {
        file,
        path: t.path.clone(),
        io_size: io,
        first,
        slots,
        buf: vec![0; 2 * io as usize],
        align: 0,
    }
}

#[test]
fn random_offsets_are_aligned_and_inside_the_range() {
    let f = tempfile::tempfile().unwrap();
    for (bs, size, range) in [
        (512, 64 << 20, None),
        (4096, 1 << 30, Some((1000, 1 << 20))),
        (512, 10 * 4096 + 100, None),
        (16384, 1 << 30, Some((5, (1 << 20) + 3))),
    ] {
        let t = target(bs, size, range);
        let r = reader(&t, f.try_clone().unwrap());
        let io = u64::from(t.io_size());
        let (s, e) = range.unwrap_or((0, size));
        let mut seen = std::collections::BTreeSet::new();
        for u in (0..10_000u64).chain([u64::MAX, u64::MAX - 1]) {
            let u = u.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let off = r.random_offset(u);
            assert_eq!(off % io, 0, "{off} not aligned to {io}");
            assert_eq!(off % u64::from(bs), 0);
            assert!(off >= s && off + io <= e, "{off} outside {s}..{e}");
            seen.insert(off);
        }
        assert!(seen.len() as u64 <= r.slots && seen.len() > 1);
    }
}

#[test]
fn a_range_without_a_whole_block_is_refused() {
    assert_eq!(slots(0, 4095, 4096), None);
    assert_eq!(slots(1, 8191, 4096), None);
    assert_eq!(slots(1, 8192, 4096), Some((4096, 1)));
    assert_eq!(slots(0, 4096, 4096), Some((0, 1)));
    assert_eq!(slots(4095, 12288, 4096), Some((4096, 2)));
    let err = Reader::open(&target(512, 1 << 20, Some((100, 200))))
        .err()
        .unwrap();
    assert!(matches!(err, ProbeError::Range { .. }), "{err}");
}

fn fake_sysfs(dir: &Path, name: &str, lbs: &str, size: &str) {
    let q = dir.join("block").join(name).join("queue");
    std::fs::create_dir_all(&q).unwrap();
    std::fs::write(q.join("logical_block_size"), lbs).unwrap();
    std::fs::write(dir.join("block").join(name).join("size"), size).unwrap();
}

#[test]
fn geometry_comes_from_sysfs() {
    let sys = tempfile::tempdir().unwrap();
    fake_sysfs(sys.path(), "nvme0n1", "4096\n", "7501476528\n");
    fake_sysfs(sys.path(), "sda", "512\n", "1875385008\n");
    let t = ProbeTarget::from_sysfs(sys.path(), Path::new("/dev"), "nvme0n1").unwrap();
    assert_eq!(t.path, Path::new("/dev/nvme0n1"));
    assert_eq!((t.block_size, t.size_bytes), (4096, 7501476528 * 512));
    assert_eq!(t.io_size(), 4096);
    let t = ProbeTarget::from_sysfs(sys.path(), Path::new("/dev"), "sda").unwrap();
    assert_eq!((t.block_size, t.io_size()), (512, 4096));
}

#[test]
fn bad_sysfs_values_name_the_file() {
    let sys = tempfile::tempdir().unwrap();
    fake_sysfs(sys.path(), "sdb", "abc\n", "10\n");
    fake_sysfs(sys.path(), "sdc", "1000\n", "10\n");
    for dev in ["sdb", "sdc", "sdz"] {
        let e = ProbeTarget::from_sysfs(sys.path(), Path::new("/dev"), dev).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("logical_block_size"), "{text}");
        assert!(text.contains(dev), "{text}");
    }
}

#[test]
fn permission_errors_read_as_such() {
    let e = ProbeError::open_as(
        Path::new("/dev/sda"),
        io::Error::from_raw_os_error(libc::EPERM),
        false,
    );
    assert!(e.is_permission());
    assert_eq!(
        e.to_string(),
        "open /dev/sda: permission denied (the probe needs read access to the block device; run as root or grant the disk group)"
    );
    let e = ProbeError::open(
        Path::new("/dev/sda"),
        io::Error::from_raw_os_error(libc::ENOENT),
    );
    assert!(!e.is_permission());
}

#[test]
fn the_device_is_opened_read_only_with_o_direct() {
    // A regular file on the test machine's disk stands in for a device.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev");
    std::fs::write(&path, vec![7u8; 64 * 1024]).unwrap();
    let mut t = target(512, 64 * 1024, None);
    t.path = path;
    let mut r = Reader::open(&t).unwrap();
    let flags = OFlag::from_bits_retain(fcntl(&r.file, FcntlArg::F_GETFL).unwrap());
    assert_eq!(flags & OFlag::O_ACCMODE, OFlag::O_RDONLY);
    assert!(flags.contains(OFlag::O_DIRECT));
    assert_eq!(r.buf[r.align..].as_ptr() as usize % 4096, 0);
    let off = r.random_offset(12345);
    r.read_once(off).unwrap();
    assert_eq!(r.buf[r.align], 7);
}

#[test]
fn refused_as_root_names_the_device_cgroup_not_root() {
    let path = Path::new("/dev/vda");
    let eperm = || io::Error::from_raw_os_error(libc::EPERM);
    let root = ProbeError::open_as(path, eperm(), true).to_string();
    assert!(root.contains("although running as root"), "{root}");
    assert!(root.contains("device cgroup"), "{root}");
    assert!(!root.contains("run as root"), "{root}");
    assert!(ProbeError::open_as(path, eperm(), true).is_permission());
    let user = ProbeError::open_as(path, eperm(), false).to_string();
    assert!(
        user.contains("run as root or grant the disk group"),
        "{user}"
    );
    let gone = io::Error::from_raw_os_error(libc::ENOENT);
    assert!(!ProbeError::open_as(path, gone, true).is_permission());
}
