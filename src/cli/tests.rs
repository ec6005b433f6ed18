use super::*;

#[test]
fn the_command_line_definition_is_consistent() {
    command().debug_assert();
}

#[test]
fn refused_command_lines_exit_2_or_3_for_check() {
    let code = |args: &[&str]| parse(args.iter().copied()).map(|_| ()).unwrap_err().code;
    assert_eq!(code(&["ssd_exporter", "--bogus"]), 2);
    assert_eq!(code(&["ssd_exporter", "dump", "/dev/sda"]), 2);
    assert_eq!(code(&["ssd_exporter", "check", "--bogus"]), 3);
    assert_eq!(
        code(&["ssd_exporter", "--poll.timeout=5s", "check", "--nope"]),
        3
    );
    assert_eq!(code(&["ssd_exporter", "--help"]), 0);
    assert_eq!(code(&["ssd_exporter", "check", "--help"]), 0);
}

#[test]
fn flags_hidden_from_a_subcommand_still_set_their_key() {
    let cli = parse(["ssd_exporter", "dump", "/dev/sda", "out", "--replay=x"]).unwrap();
    assert_eq!(cli.flags.keys.replay, [PathBuf::from("x")]);
    let cli = parse(["ssd_exporter", "check", "--demo", "--wide"]).unwrap();
    assert_eq!(cli.flags.keys.demo, Some(true));
    assert!(matches!(
        cli.command,
        Some(Command::Check { wide: true, .. })
    ));
}
