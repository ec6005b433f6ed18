//! `health.overrides`: parsing, validation errors naming the entry, and
//! which entry a drive gets.

use super::validate;
use crate::device::discovery::Transport;
use crate::health::verdict::ProblemName;
use crate::reading::Identity;

fn drive(model: &str, serial: &str) -> Identity {
    Identity {
        kind: Default::default(),
        transport: Transport::Nvme,
        model: model.into(),
        serial: serial.into(),
        firmware: "1".into(),
        wwn: String::new(),
        capacity_bytes: None,
    }
}

const TWO: &str = "
health:
  wear_warning: 0.7
  throttle_recent: 2h
  overrides:
    - device: '^nvme3$'
      mute: [media_errors_increasing, unsafe_shutdowns_increasing]
      wear_critical: 1.5
    - model: 'DC2000B'
      serial: S1
      wear_warning: 0.5
      increase_window: 1d
      rated_endurance_bytes: 1.752e15
    - model: 'DC2000B'
      latency_qos: false
";

#[test]
fn the_first_matching_entry_wins_over_the_section() {
    let c = validate(TWO).unwrap();
    let h = &c.health;
    let dc = drive("KINGSTON SEDC2000BM8960G", "S1");
    // nvme3 matches entry 0 (and entry 1 by model and serial): entry 0 wins.
    let t = h.tuning_for("nvme3", &dc);
    assert_eq!(t.source.as_deref(), Some("health.overrides[0]"));
    assert!(t.rules.mute.names(ProblemName::MediaErrorsIncreasing));
    assert_eq!(t.rules.wear_critical, 1.5);
    // What the entry does not set comes from the section, then the default.
    assert_eq!(t.rules.wear_warning, 0.7);
    assert_eq!(
        t.rules.throttle_recent,
        std::time::Duration::from_secs(7200)
    );
    assert_eq!(t.rated_endurance_bytes, None);
    // Entry 1 needs both its model and its serial.
    let t = h.tuning_for("nvme0", &dc);
    assert_eq!(t.source.as_deref(), Some("health.overrides[1]"));
    assert_eq!(t.rules.wear_warning, 0.5);
    assert!(t.rules.mute.is_empty());
    assert_eq!(
        t.increase_window,
        Some(std::time::Duration::from_secs(86_400))
    );
    assert_eq!(t.rated_endurance_bytes, Some(1.752e15));
    let other_serial = drive("KINGSTON SEDC2000BM8960G", "S2");
    let t = h.tuning_for("nvme0", &other_serial);
    assert_eq!(t.source.as_deref(), Some("health.overrides[2]"));
    assert!(!t.rules.latency_qos);
    assert_eq!(t.rules.wear_warning, 0.7);
    // Nothing matches: the section's own values.
    let t = h.tuning_for("sda", &drive("Samsung SSD 870", "S1"));
    assert_eq!(t.source, None);
    assert_eq!(t.rules.wear_warning, 0.7);
    assert_eq!(t.rules.wear_critical, 1.0);
}

/// One line, starting with the key, containing `what`.
fn rejects(yaml: &str, key: &str, what: &str) {
    let e = validate(yaml).unwrap_err();
    assert!(e.starts_with(key), "{yaml:?} gave {e}");
    assert!(e.contains(what), "{yaml:?} gave {e}");
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn an_unknown_problem_name_is_named_with_its_place_and_the_accepted_ones() {
    let yaml = "health:\n  overrides:\n    - device: sda\n    - device: nvme0\n      mute: [media_error]\n";
    rejects(yaml, "health.overrides[1].mute[0]", "\"media_error\"");
    let e = validate(yaml).unwrap_err();
    for p in ProblemName::ALL {
        assert!(e.contains(p.as_label()), "{p} not offered: {e}");
    }
    let yaml = "health:\n  overrides:\n    - device: sda\n      mute: [wear_high, Wear_Out]\n";
    rejects(yaml, "health.overrides[0].mute[1]", "\"Wear_Out\"");
}

#[test]
fn entry_values_are_bounded_as_the_section_s_and_named_by_entry() {
    let entry = |body: &str| format!("health:\n  overrides:\n    - device: sda\n      {body}\n");
    rejects(
        &entry("wear_warning: 3"),
        "health.overrides[0].wear_warning",
        "at most 2.55",
    );
    rejects(
        &entry("throttle_recent: 2y"),
        "health.overrides[0].throttle_recent",
        "365d",
    );
    rejects(
        &entry("increase_window: 0s"),
        "health.overrides[0].increase_window",
        "zero",
    );
    rejects(
        &entry("rated_endurance_bytes: 5"),
        "health.overrides[0].rated_endurance_bytes",
        "1e9 to 1e19 bytes",
    );
    rejects(
        &entry("rated_endurance_bytes: .inf"),
        "health.overrides[0].rated_endurance_bytes",
        "e.g. 600e12",
    );
    rejects(
        "health:\n  overrides:\n    - model: '(((a{100}){100}){100})'\n",
        "health.overrides[0].model",
        "regular expression",
    );
    rejects(
        "health:\n  overrides:\n    - device: '(nvme'\n",
        "health.overrides[0].device",
        "regular expression",
    );
    rejects(
        "health:\n  overrides:\n    - mute: [wear_high]\n",
        "health.overrides[0]",
        "serial, model or device",
    );
    let many = "    - device: sda\n".repeat(1001);
    rejects(
        &format!("health:\n  overrides:\n{many}"),
        "health.overrides",
        "at most 1000",
    );
}

#[test]
fn unknown_keys_inside_an_entry_are_refused() {
    for (yaml, bad) in [
        (
            "health:\n  overrides:\n    - device: sda\n      wear_warnin: 0.5\n",
            "wear_warnin",
        ),
        (
            "health:\n  overrides:\n    - device: sda\n      overrides: []\n",
            "overrides",
        ),
        ("health:\n  wear_warnin: 0.5\n", "wear_warnin"),
    ] {
        let e = validate(yaml).unwrap_err();
        assert!(e.contains(bad), "{yaml:?} gave {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn the_example_config_s_commented_overrides_are_valid() {
    // examples/config.yml ships `overrides: []` with its example entries
    // commented out (the file is installed as /etc/ssd_exporter/config.yml):
    // uncommented, they must be accepted as they are.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/config.yml");
    let text = std::fs::read_to_string(path).unwrap();
    let (_, after) = text
        .split_once("  overrides: []\n")
        .expect("overrides: [] in the example");
    let block: String = after
        .lines()
        .take_while(|l| l.starts_with("  #"))
        .map(|l| format!("  {}\n", &l[4..]))
        .collect();
    assert!(
        block.contains("overrides:") && block.contains("mute:"),
        "{block}"
    );
    let c = validate(&format!("health:\n{block}")).unwrap_or_else(|e| panic!("{e}\n{block}"));
    assert!(c.health.overrides.len() >= 2, "{block}");
}

#[test]
fn the_nvme_depth_problems_can_be_muted() {
    let yaml = "health:\n  overrides:\n    - device: nvme2\n      mute: [media_dies_offline, drive_reported_internal_error]\n";
    let c = validate(yaml).unwrap();
    let t = c
        .health
        .tuning_for("nvme2", &drive("KINGSTON SEDC2000BM8960G", "S1"));
    assert!(t.rules.mute.names(ProblemName::MediaDiesOffline));
    assert!(t.rules.mute.names(ProblemName::DriveReportedInternalError));
    assert!(!t.rules.mute.names(ProblemName::MediaErrorsIncreasing));
}
