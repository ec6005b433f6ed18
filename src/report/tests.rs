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

/// A reason of words, some long, as real reasons (with paths) are.
fn long_reason() -> String {
    let path = "/var/lib/ssd_exporter/dumps/datacenter-07/rack-12/nvme0/smart-log.bin";
    let words = "word ".repeat(30);
    format!(
        "the last poll failed ({path}: expected 512 bytes, got 100); {}",
        words.trim_end()
    )
}

fn wide_row(status: &str) -> Row {
    let mut r = row(status);
    r.problems[0].reason = long_reason();
    r
}

#[test]
fn piped_or_wide_nothing_is_cut_or_wrapped() {
    let rows = [wide_row("critical"), wide_row("ok")];
    let table = text_table(&rows, Layout::default());
    // One line for the header, one per drive and one per problem.
    assert_eq!(table.lines().count(), 1 + 2 + 2, "{table}");
    assert!(table.contains(" KINGSTON SEDC2000BM8960G "), "{table}");
    assert!(table.contains(" 50026B7686D8C1F5AAAA "), "{table}");
    assert!(table.contains(&long_reason()), "{table}");
    assert!(!table.contains('~'));
    for want in ["104%", "74C", "1234567", "yes"] {
        assert!(table.contains(want), "{want}: {table}");
    }
    assert!(!table.contains('\x1b'));
    let color = Layout {
        color: true,
        ..Layout::default()
    };
    assert!(text_table(&[row("ok")], color).contains("\x1b[32m"));
}

#[test]
fn on_a_narrow_terminal_lines_wrap_and_words_stay_whole() {
    let rows = [wide_row("critical"), wide_row("ok")];
    let layout = Layout {
        width: Some(80),
        color: false,
    };
    let table = text_table(&rows, layout);
    let path = "/var/lib/ssd_exporter/dumps/datacenter-07/rack-12/nvme0/smart-log.bin";
    for line in table.lines() {
        // Only a word longer than the line may overflow it.
        let n = line.chars().count();
        assert!(n <= 80 || line.contains(path), "{n} columns: {line}");
    }
    // The serial is whole on the drive's line, the model wrapped under
    // its column, every word of the reason present and whole.
    assert!(table.contains(" 50026B7686D8C1F5AAAA "), "{table}");
    assert!(table.contains("KINGSTON"), "{table}");
    assert!(table.contains("SEDC2000BM8960G"), "{table}");
    let joined: Vec<&str> = table.split_whitespace().collect();
    for word in long_reason().split_whitespace() {
        assert!(joined.contains(&word), "{word} missing from {table}");
    }
    assert!(
        table.lines().count() > 1 + 2 + 2,
        "nothing wrapped: {table}"
    );
}

#[test]
fn wrap_breaks_at_spaces_only() {
    assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
    assert_eq!(wrap("abcdefgh ij", 4), ["abcdefgh", "ij"]);
    assert_eq!(wrap("", 4), [""]);
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

/// Issue 37 part 2: a device not judged counts for nothing in the exit
/// code (a host's check stays what its drives make it), even with its poll
/// failing; a host with nothing judged is unknown, as one without drives.
#[test]
fn devices_not_judged_are_left_out_of_the_exit_code() {
    let not_judged = |status: &str| Row {
        not_judged: Some("a LUN of a storage array".into()),
        ..row(status)
    };
    assert_eq!(exit_code(&[row("ok"), not_judged("not judged")]), 0);
    assert_eq!(exit_code(&[row("ok"), not_judged("warning")]), 0);
    assert_eq!(exit_code(&[row("warning"), not_judged("not judged")]), 1);
    assert_eq!(exit_code(&[not_judged("not judged")]), 3);
}

#[test]
fn a_device_not_judged_says_so_and_why_in_the_table() {
    let r = Row {
        status: "not judged".into(),
        not_judged: Some("a RAID controller's logical drive: see --discovery.megaraid".into()),
        problems: Vec::new(),
        ..row("not judged")
    };
    let text = text_table(&[r], Layout::default());
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains(" not judged "), "{text}");
    assert!(!lines[1].contains(" ok "), "{text}");
    assert_eq!(
        lines[2],
        "  not judged: a RAID controller's logical drive: see --discovery.megaraid"
    );
    let colored = text_table(
        &[Row {
            not_judged: Some("x".into()),
            ..row("not judged")
        }],
        Layout {
            width: None,
            color: true,
        },
    );
    assert!(colored.contains("\x1b[90mnot judged"), "{colored:?}");
}
