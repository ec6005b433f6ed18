use std::time::Duration;

use super::validate;
use crate::device::discovery::Transport;

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
            "selftest: {concurrency: 257}",
            "selftest.concurrency:",
            "1 to 256",
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
