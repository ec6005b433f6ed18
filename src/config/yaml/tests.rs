use super::*;

fn error(yaml: &str) -> String {
    parse(yaml).unwrap_err()
}

#[test]
fn type_errors_name_the_place_the_key_what_it_wants_and_an_example() {
    let cases = [
        (
            "probe:\n  rate: fast\n",
            "line 2 column 9: probe.rate: expected a number, e.g. `probe: {rate: 5}`; found a string",
        ),
        (
            "poll: 5\n",
            "line 1 column 7: poll: expected a section of keys (interval, timeout, wake_standby, standby_max_skips), e.g. `poll: {interval: 60s}`; found a number",
        ),
        (
            "poll:\n  interval: [1]\n",
            "line 2 column 13: poll.interval: expected a duration (a number and a unit: ms, s, m, h, d, w, y), e.g. `poll: {interval: 60s}`; found a list",
        ),
        (
            "probe:\n  write:\n    rate: x\n",
            "line 3 column 11: probe.write.rate: expected a number, e.g. `probe: {write: {rate: 0.2}}`; found a string",
        ),
        (
            "demo: yes\n",
            "line 1 column 7: demo: expected true or false, e.g. `demo: true`; found a string",
        ),
        (
            "web:\n  max_connections: 1.5\n",
            "line 2 column 20: web.max_connections: expected a whole number, e.g. `web: {max_connections: 256}`; found a number with a fraction",
        ),
        (
            "health:\n  overrides:\n    - serial: X\n      wear_warning: high\n",
            "line 4 column 21: health.overrides[0].wear_warning: expected a number, e.g. `health: {overrides: [{wear_warning: 0.8}]}`; found a string",
        ),
        (
            "probe:\n  device: [{a: 1}]\n",
            "probe.device[0]: expected a string, e.g. `probe: {device: [\"nvme0n1\"]}`; found a section (keys and values)",
        ),
    ];
    for (yaml, want) in cases {
        let e = error(yaml);
        assert!(e.ends_with(want), "{yaml:?}\n got {e}\nwant {want}");
        assert!(!e.contains("f64") && !e.contains("struct Raw"), "{e}");
    }
}

#[test]
fn a_file_that_is_not_a_config_is_never_echoed() {
    let passwd =
        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
    let e = error(passwd);
    assert!(
        e.starts_with(
            "line 1 column 1: expected a mapping of keys and sections (replay, demo, web,"
        ),
        "{e}"
    );
    assert!(e.contains("found a string"), "{e}");
    for secret in ["root", "daemon", "/bin/bash", "nologin"] {
        assert!(!e.contains(secret), "{secret} echoed: {e}");
    }
    // A mapping of unknown keys: the key, never its value.
    let e = error("password: hunter2\n");
    assert!(e.contains("unknown key `password`"), "{e}");
    assert!(!e.contains("hunter2"), "{e}");
    // A value of the wrong type inside a section: its kind only.
    let e = error("poll:\n  interval: {secret: hunter2}\n");
    assert!(
        e.contains("found a section") && !e.contains("hunter2"),
        "{e}"
    );
    // Broken YAML: where, and the parser's reason.
    let e = error("web: {listen_address: [\"hunter2\", \n");
    assert!(e.starts_with("line 2 column 1: not valid YAML: "), "{e}");
    assert!(!e.contains("hunter2"), "{e}");
}

#[test]
fn a_single_value_where_a_list_is_expected_is_a_list_of_one() {
    let raw =
        parse("web:\n  listen_address: \":10049\"\nprobe:\n  device: nvme0n1\nreplay: /srv/dump\n")
            .unwrap();
    assert_eq!(raw.web.listen_address, [":10049"]);
    assert_eq!(raw.probe.device, ["nvme0n1"]);
    assert_eq!(raw.replay, [std::path::PathBuf::from("/srv/dump")]);
    let raw = parse("web:\n  listen_address: [\":1\", \"[::1]:2\"]\n").unwrap();
    assert_eq!(raw.web.listen_address, [":1", "[::1]:2"]);
    assert!(
        parse("probe:\n  device:\n")
            .unwrap()
            .probe
            .device
            .is_empty()
    );
}

#[test]
fn a_key_is_found_on_its_line() {
    let text = "# comment\nweb:\n  listen_address: [':1']\npoll:\n  # interval: 1s\n  timeout: 5s\n\n  interval: 0s\nprobe:\n  write:\n    rate: 2\n";
    assert_eq!(line_of(text, "poll.interval"), Some(8));
    assert_eq!(line_of(text, "poll.timeout"), Some(6));
    assert_eq!(line_of(text, "probe.write.rate"), Some(11));
    assert_eq!(line_of(text, "web.listen_address"), Some(3));
    assert_eq!(line_of(text, "probe.rate"), None);
    assert_eq!(line_of("poll: {interval: 1s}\n", "poll.interval"), None);
}
