//! A refused poll becomes what sysfs gives; any other poll is untouched.

use super::*;
use crate::poll::PollError;

fn refused() -> PollOutcome {
    let denied = |source| PollError {
        source,
        message: "open /dev/nvme0: permission denied (needs CAP_SYS_ADMIN; …)".into(),
    };
    PollOutcome {
        errors: vec![denied(Source::Identify), denied(Source::SmartLog)],
        denied: vec![Source::Identify, Source::SmartLog],
        pages: vec![(Source::Identify, true), (Source::SmartLog, true)],
        ..PollOutcome::default()
    }
}

fn temps() -> Option<Temps> {
    Some(Temps {
        sensors: vec![("composite".into(), 50.0)],
        critical: Some(100.0),
    })
}

#[test]
fn refused_pages_are_unsupported_not_failures_and_the_drive_is_up() {
    let mut out = refused();
    let mut tracker = Tracker::new("/dev/nvme0".into());
    serve(&mut out, &mut tracker, temps);
    assert!(out.up);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert!(out.denied.is_empty());
    assert_eq!(
        out.pages,
        [(Source::Identify, false), (Source::SmartLog, false)]
    );
    let r = out.reading.unwrap();
    assert_eq!(r.temperatures, [("composite".to_string(), 50.0)]);
    assert_eq!(r.temperature_critical_celsius, Some(100.0));
    assert_eq!(r.smart_passed, None, "nothing else is made up");
}

#[test]
fn without_hwmon_only_the_identity_is_left_and_another_failure_still_counts() {
    let mut out = refused();
    out.errors.push(PollError {
        source: Source::Pcie,
        message: "aer_dev_fatal: no TOTAL_ERR_FATAL line".into(),
    });
    let mut tracker = Tracker::new("/dev/nvme0".into());
    serve(&mut out, &mut tracker, || None);
    assert!(out.reading.is_none());
    assert_eq!(out.errors.len(), 1);
    assert_eq!(out.errors[0].source, Source::Pcie);
    assert!(!out.up, "a failure besides the refusals");
}

#[test]
fn a_poll_that_was_not_refused_is_left_alone_and_hwmon_not_read() {
    let mut out = PollOutcome {
        up: false,
        errors: vec![PollError {
            source: Source::SmartLog,
            message: "log page 02h on /dev/nvme0: Internal Error".into(),
        }],
        pages: vec![(Source::SmartLog, true)],
        ..PollOutcome::default()
    };
    let mut tracker = Tracker::new("/dev/nvme0".into());
    serve(&mut out, &mut tracker, || {
        panic!("hwmon read for a poll that was not refused")
    });
    assert!(!out.up);
    assert_eq!(out.errors.len(), 1);
    assert_eq!(out.pages, [(Source::SmartLog, true)]);
}
