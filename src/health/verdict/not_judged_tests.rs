//! Issue 37 part 2: a device the verdict cannot judge is shown as not
//! judged — everything unknown, a reason naming where to look — never as
//! ok and never as critical, whatever its pages say.

use std::time::{Duration, SystemTime};

use super::*;
use crate::device::discovery::Kind;

fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200)
}

/// What an HPE logical drive's pages would say if read as a drive's:
/// 80 °C over a 70 °C limit and a failed SMART status (2Fh ASC 5Dh).
fn alarming() -> Reading {
    Reading {
        temperatures: vec![("composite".into(), 80.0)],
        temperature_warning_celsius: Some(70.0),
        smart_passed: Some(false),
        percentage_used_ratio: Some(1.2),
        ..Reading::default()
    }
}

fn judge(ctx: &Context) -> Verdict {
    evaluate(
        Some(&alarming()),
        &History::new(None),
        ctx,
        &Rules::default(),
        now(),
    )
}

#[test]
fn a_device_not_judged_says_so_and_lists_everything_unknown() {
    let why = Kind::Virtual.not_judged_because();
    let ctx = Context {
        up: true,
        polled: true,
        not_judged: why,
        ..Context::default()
    };
    let v = judge(&ctx);
    assert_eq!(v.overall(), Status::NotJudged, "{v:?}");
    assert_eq!(v.overall().as_str(), "not judged");
    assert_eq!(v.overall() as u8, 4, "the ssd_health_status value");
    assert!(v.problems.is_empty(), "{v:?}");
    assert_eq!(
        v.unknown,
        [
            "smart_status",
            "wear",
            "spare",
            "temperature",
            "media_errors",
            "unsafe_shutdowns",
            "throttling",
            "plp"
        ]
    );
    let reason = v.not_judged.as_deref().unwrap();
    assert!(reason.contains("--discovery.megaraid"), "{reason}");
    let lun = Kind::Volume.not_judged_because().unwrap();
    assert!(lun.contains("array's own monitoring"), "{lun}");
    assert_eq!(Kind::Physical.not_judged_because(), None);
}

#[test]
fn a_device_not_judged_warns_when_its_poll_fails_and_is_never_critical() {
    let ctx = Context {
        up: false,
        polled: true,
        last_error: Some("inquiry of /dev/sdk: timed out"),
        not_judged: Kind::Volume.not_judged_because(),
        ..Context::default()
    };
    let v = judge(&ctx);
    assert_eq!(v.overall(), Status::Warning);
    let names: Vec<_> = v.problems.iter().map(|p| p.name).collect();
    assert_eq!(names, [ProblemName::PollFailing]);
    assert!(v.not_judged.is_some());
    // Judged as a drive, the same pages are critical.
    let drive = Context {
        up: true,
        polled: true,
        ..Context::default()
    };
    assert_eq!(judge(&drive).overall(), Status::Critical);
}
