use super::*;

fn row(status: &str) -> Row {
    Row {
        device: "nvme0".into(),
        model: "KINGSTON SEDC2000BM8960G".into(),
        serial: "50026B7686D8C1F5AAAA".into(),
        status: status.into(),
        wear_ratio: Some(1.04),
        temperature_celsius: Some(74.0),
        plp_health_ratio: Some(1.0),
        unsafe_shutdowns: Some(1234567),
        throttling: Some(true),
        problems: vec![ProblemRow {
            name: "wear_out".into(),
            severity: "critical".into(),
            reason: "x".repeat(200),
        }],
        ..Row::default()
    }
}

#[test]
fn every_line_fits_80_columns_and_long_fields_are_cut() {
    let table = text_table(&[row("critical"), row("ok")], false);
    for line in table.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(table.contains("KINGSTON SEDC200~"));
    assert!(table.contains("104%"));
    assert!(table.contains("74C"));
    assert!(table.contains("1234567"));
    assert!(!table.contains('\x1b'));
    assert!(text_table(&[row("ok")], true).contains("\x1b[32m"));
}

#[test]
fn exit_codes_follow_nagios() {
    let rows = |s: &[&str]| s.iter().map(|s| row(s)).collect::<Vec<_>>();
    assert_eq!(exit_code(&rows(&["ok", "ok"])), 0);
    assert_eq!(exit_code(&rows(&["ok", "warning"])), 1);
    assert_eq!(exit_code(&rows(&["warning", "critical", "unknown"])), 2);
    assert_eq!(exit_code(&rows(&["ok", "unknown"])), 3);
    assert_eq!(exit_code(&[]), 3);
}
