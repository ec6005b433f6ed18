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
