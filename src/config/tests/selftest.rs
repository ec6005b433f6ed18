use std::time::Duration;

use super::validate;
use crate::device::discovery::Transport;

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(24 * 3600);

#[test]
fn off_unless_a_schedule_is_set() {
    let c = validate("").unwrap();
    assert!(!c.selftest.enabled());
    assert_eq!(c.selftest.concurrency, 1);
    assert!(!c.selftest.abort_on_shutdown);
    assert_eq!(c.selftest.transports, Transport::ALL);
}

#[test]
fn a_schedule_per_kind_and_transport() {
    let c = validate(
        "selftest:\n  schedule: {short: 1d, extended: 4w}\n  concurrency: 3\n  \
         abort_on_shutdown: true\n  transports: [sas, nvme, sas]\n",
    )
    .unwrap();
    let p = c.selftest;
    assert_eq!(p.short, Some(DAY));
    assert_eq!(p.extended, Some(28 * DAY));
    assert_eq!(p.concurrency, 3);
    assert!(p.abort_on_shutdown);
    assert_eq!(p.transports, [Transport::Sas, Transport::Nvme]);
}

#[test]
fn bad_values_name_the_key_and_what_is_accepted() {
    let cases = [
        (
            "selftest: {schedule: {short: 400d}}",
            "selftest.schedule.short:",
            "at most 365d",
        ),
        (
            "selftest: {schedule: {extended: 0s}}",
            "selftest.schedule.extended:",
            "longer than zero",
        ),
        (
            "selftest: {concurrency: 17}",
            "selftest.concurrency:",
            "1 to 16",
        ),
        (
            "selftest: {transports: [usb]}",
            "selftest.transports:",
            "nvme, sata, sas or scsi",
        ),
        (
            "selftest: {schedule: {daily: 1d}}",
            "selftest.schedule",
            "`short` or `extended`",
        ),
    ];
    for (yaml, key, accepted) in cases {
        let e = validate(yaml).unwrap_err();
        assert!(e.contains(key) && e.contains(accepted), "{yaml}: {e}");
    }
}

/// Issue 33: the review's storm config and a likely typo of `30d`, each
/// refused with the key and the accepted range.
#[test]
fn a_storm_is_refused_with_the_key_and_the_range() {
    let cases = [
        (
            "selftest: {concurrency: 256, schedule: {extended: 30d}}",
            "selftest.concurrency:",
            "1 to 16",
        ),
        (
            "selftest: {schedule: {extended: 1s}}",
            "selftest.schedule.extended:",
            "use at least 1d",
        ),
        (
            "selftest: {schedule: {short: 1ms}}",
            "selftest.schedule.short:",
            "use at least 1h",
        ),
        (
            "selftest: {schedule: {extended: 30m}}",
            "selftest.schedule.extended:",
            "selftest.allow_short_intervals",
        ),
        (
            "selftest: {schedule: {short: 59m}}",
            "selftest.schedule.short:",
            "too short",
        ),
    ];
    for (yaml, key, accepted) in cases {
        let e = validate(yaml).unwrap_err();
        assert!(e.contains(key) && e.contains(accepted), "{yaml}: {e}");
    }
    // The typo as a flag, and the minimums themselves.
    use clap::Parser as _;
    let cli =
        crate::cli::Cli::try_parse_from(["ssd_exporter", "--selftest.schedule.extended", "30m"]);
    let e = crate::config::Config::try_from(cli.unwrap().flags.to_raw()).unwrap_err();
    assert!(e.to_string().contains("selftest.schedule.extended:"), "{e}");
    let c = validate("selftest: {schedule: {short: 1h, extended: 1d}}").unwrap();
    assert_eq!(
        (c.selftest.short, c.selftest.extended),
        (Some(HOUR), Some(DAY))
    );
}

/// Below the minimums only with the key that says so, and never zero.
#[test]
fn short_intervals_need_the_key_that_says_so() {
    let yaml = "selftest:\n  allow_short_intervals: true\n  schedule: {short: 4s, extended: 30m}\n";
    let c = validate(yaml).unwrap();
    assert_eq!(c.selftest.short, Some(Duration::from_secs(4)));
    assert_eq!(c.selftest.extended, Some(30 * MINUTE));
    let zero = "selftest: {allow_short_intervals: true, schedule: {short: 0s}}";
    assert!(validate(zero).unwrap_err().contains("longer than zero"));
}
