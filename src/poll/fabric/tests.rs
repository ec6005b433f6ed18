use std::time::SystemTime;

use super::*;
use crate::health::history::History;
use crate::health::verdict::evaluate;

/// A Linux nvmet target's answers (drivers/nvme/target/admin-cmd.c:
/// the SMART log's composite temperature 0 K, available spare and its
/// threshold 0 %), with a composite threshold as an array would give,
/// and its media errors.
struct Target;

fn target_reading() -> Reading {
    let mut r = Reading {
        temperatures: vec![("composite".into(), -273.15)],
        temperature_warning_celsius: Some(70.0),
        temperature_critical_celsius: Some(80.0),
        available_spare_ratio: Some(0.0),
        available_spare_threshold_ratio: Some(0.0),
        ..Reading::default()
    };
    r.counters.media_errors = Some(0);
    r
}

impl Poller for Target {
    fn origin(&self) -> String {
        "/dev/nvme1".into()
    }
    fn poll(&mut self) -> PollOutcome {
        PollOutcome {
            reading: Some(target_reading()),
            up: true,
            ..PollOutcome::default()
        }
    }
    fn reset(&mut self) {}
}

#[test]
fn a_target_s_temperature_and_spare_are_not_served_the_rest_is() {
    let r = Remote::new(Box::new(Target)).poll().reading.unwrap();
    assert!(r.temperatures.is_empty(), "{:?}", r.temperatures);
    assert_eq!(r.temperature_warning_celsius, None);
    assert_eq!(r.temperature_critical_celsius, None);
    assert_eq!(r.available_spare_ratio, None);
    assert_eq!(r.available_spare_threshold_ratio, None);
    assert_eq!(r.counters.media_errors, Some(0), "the rest is served");
}

#[test]
fn the_verdict_lists_a_target_s_temperature_and_spare_as_unknown() {
    let judge = |r: &Reading| {
        let ctx = Default::default();
        let rules = Default::default();
        evaluate(
            Some(r),
            &History::new(None),
            &ctx,
            &rules,
            SystemTime::now(),
        )
        .unknown
    };
    let served = Remote::new(Box::new(Target)).poll().reading.unwrap();
    let unknown = judge(&served);
    assert!(unknown.contains(&"temperature"), "{unknown:?}");
    assert!(unknown.contains(&"spare"), "{unknown:?}");
    assert!(!unknown.contains(&"media_errors"), "{unknown:?}");
    // The same answers from a local drive would be judged: a 0 K
    // composite under its thresholds, and a spare of 0 % at 0 %.
    let local = judge(&target_reading());
    assert!(
        !local.contains(&"temperature") && !local.contains(&"spare"),
        "{local:?}"
    );
}
