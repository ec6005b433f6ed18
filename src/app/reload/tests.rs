use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::config::RawFile;
use crate::device::discovery::Transport;
use crate::health::verdict::ProblemName;

fn config(yaml: &str) -> Config {
    Config::try_from(RawFile::parse(yaml).unwrap()).unwrap()
}

fn nvme3() -> Identity {
    Identity {
        kind: Default::default(),
        transport: Transport::Nvme,
        model: "M".into(),
        serial: "S".into(),
        firmware: "F".into(),
        wwn: String::new(),
        capacity_bytes: None,
    }
}

#[test]
fn a_good_reload_replaces_the_health_settings_a_bad_one_keeps_them() {
    let started = config("health:\n  wear_warning: 0.8\n");
    let health = Arc::new(LiveHealth::new(started.health.clone()));
    let t0 = UNIX_EPOCH + Duration::from_secs(1_796_083_200);
    let status = Arc::new(ConfigReloads::loaded(t0));
    let selftests = Arc::new(crate::app::selftest::SelfTests::new(
        started.selftest.clone(),
        None,
        Arc::default(),
    ));
    let r = Reloader {
        load: Arc::new(|| unreachable!()),
        started,
        health: health.clone(),
        selftests: selftests.clone(),
        status: status.clone(),
    };
    let g0 = health.generation();
    assert_eq!(health.tuning("nvme3", &nvme3()).rules.wear_warning, 0.8);

    let good = "health:\n  wear_warning: 0.5\n  overrides:\n    - device: '^nvme3$'\n      mute: [wear_high]\n";
    r.apply(Ok(config(good)), t0 + Duration::from_secs(10));
    assert!(status.successful());
    assert!(health.generation() > g0, "drives would not resolve again");
    let t = health.tuning("nvme3", &nvme3());
    assert_eq!(t.source.as_deref(), Some("health.overrides[0]"));
    assert!(t.rules.mute.names(ProblemName::WearHigh));
    assert_eq!(t.rules.wear_warning, 0.5);
    assert_eq!(health.tuning("nvme0", &nvme3()).rules.wear_warning, 0.5);

    let g1 = health.generation();
    let bad = RawFile::parse("health:\n  overrides:\n    - device: x\n      mute: [nope]\n")
        .map_err(|e| unreachable!("{e}"))
        .and_then(Config::try_from);
    assert!(bad.is_err());
    r.apply(bad, t0 + Duration::from_secs(20));
    assert!(!status.successful());
    assert_eq!(health.generation(), g1, "a bad file changed the settings");
    assert_eq!(health.tuning("nvme3", &nvme3()).rules.wear_warning, 0.5);
}

#[test]
fn a_reload_replaces_the_self_test_schedule() {
    let started = config("");
    let selftests = Arc::new(crate::app::selftest::SelfTests::new(
        started.selftest.clone(),
        None,
        Arc::default(),
    ));
    let r = Reloader {
        load: Arc::new(|| unreachable!()),
        health: Arc::new(LiveHealth::new(started.health.clone())),
        started,
        selftests: selftests.clone(),
        status: Arc::new(ConfigReloads::loaded(UNIX_EPOCH)),
    };
    assert!(!selftests.policy().enabled());
    r.apply(
        Ok(config("selftest:\n  schedule: {short: 1d}\n")),
        UNIX_EPOCH,
    );
    assert_eq!(
        selftests.policy().short,
        Some(Duration::from_secs(24 * 3600))
    );
}
