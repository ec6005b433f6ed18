//! Which changed keys a reload cannot apply.

use super::validate;

#[test]
fn a_reload_names_the_changed_keys_that_need_a_restart_and_not_health() {
    let before = validate(
        "poll:\n  interval: 60s\nprobe:\n  rate: 5\ndevice:\n  include: '^nvme'\nhealth:\n  wear_warning: 0.8\n",
    )
    .unwrap();
    let same = validate(
        // The same values written differently, and health changed.
        "poll:\n  interval: 1m\nprobe:\n  rate: 5.0\ndevice:\n  include: '^nvme'\nhealth:\n  wear_warning: 0.5\n  overrides:\n    - device: sda\n      mute: [wear_high]\n",
    )
    .unwrap();
    assert_eq!(before.needs_restart(&same), Vec::<&str>::new());
    let changed = validate(
        "poll:\n  interval: 30s\nprobe:\n  rate: 5\n  write:\n    path: /tmp\ndevice:\n  include: '^sd'\nweb:\n  listen_address: [':9999']\nlog:\n  level: debug\n",
    )
    .unwrap();
    assert_eq!(
        before.needs_restart(&changed),
        [
            "web.listen_address",
            "poll.interval",
            "device.include",
            "log.level",
            "probe.write.path"
        ]
    );
}
