use super::*;

#[test]
fn stat_fields_are_counted_after_the_last_parenthesis() {
    let text = "4242 (ssd (exp) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 \
                    150 50 0 0 20 0 7 0 123456 98304000 2048 18446744073709551615 \
                    1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
    assert_eq!(
        parse_stat(text),
        Some(Stat {
            utime_ticks: 150,
            stime_ticks: 50,
            threads: 7,
            start_ticks: 123456,
            vsize_bytes: 98304000,
            rss_pages: 2048,
        })
    );
    assert_eq!(parse_stat("1 (x) S 1 2"), None);
    assert_eq!(parse_stat(""), None);
}

#[test]
fn max_fds_is_the_soft_limit_proc_shows() {
    // proc(5): the "Max open files" row of /proc/self/limits, soft column.
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let row = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let soft = row["Max open files".len()..]
        .split_whitespace()
        .next()
        .unwrap();
    let want = match soft {
        "unlimited" => f64::INFINITY,
        n => n.parse().unwrap(),
    };
    assert_eq!(max_fds(), Some(want));
}

#[test]
fn this_process_reads_sensibly() {
    let p = ProcessStats::read().expect("/proc/self/stat");
    assert!(p.threads >= 1.0 && p.resident_bytes > 0.0 && p.virtual_bytes >= p.resident_bytes);
    assert!(p.open_fds.unwrap() >= 3.0 && p.max_fds.unwrap() >= p.open_fds.unwrap());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let start = p.start_time_seconds.unwrap();
    assert!(
        start <= now + 1.0 && start > now - 86_400.0 * 365.0,
        "{start} vs {now}"
    );
}
