//! A state file read under a clock behind the one it was saved under (a
//! host that boots with its clock behind and starts the exporter before
//! NTP sets it): every drive is kept, and the file is kept aside before
//! the next save replaces it.

use ssd_exporter::state::file;

use super::{Run, args, drive, raise, state_lines, value};

#[test]
fn a_state_file_dated_in_the_future_keeps_its_drives_and_is_kept_aside() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = drive(tmp.path());
    let state = tmp.path().join("state");
    let first = Run::start(&args(&dir, &state), &tmp.path().join("1.log"));
    first.after_polls(2.0);
    assert!(first.stop().success());
    // The drive's newest reading an hour ahead of the clock.
    let path = state.join("state.json");
    let payload = file::decode(&std::fs::read(&path).unwrap()).unwrap();
    let mut json = serde_json::to_value(&payload).unwrap();
    let latest = &mut json["drives"][0]["history"]["latest_ms"];
    *latest = (latest.as_u64().unwrap() + 3_600_000).into();
    let bytes = file::encode(&serde_json::from_value(json).unwrap());
    std::fs::write(&path, &bytes).unwrap();
    // Down: the drive logs 2 media errors.
    raise(&dir, 2, 0);
    let second = Run::start(&args(&dir, &state), &tmp.path().join("2.log"));
    let text = second.after_polls(1.0);
    let log = second.log();
    assert!(log.contains("drives=1"), "{log}");
    assert!(
        state_lines(&log).iter().any(|l| l.contains("moved back")),
        "{log}"
    );
    // The baseline held: the 2 errors are a rise.
    assert!(
        text.lines().any(|l| l.starts_with("ssd_health_problem{")
            && l.contains("problem=\"media_errors_increasing\"")),
        "{text}"
    );
    assert_eq!(std::fs::read(state.join("state.json.bad")).unwrap(), bytes);
    assert_eq!(
        value(&text, "ssd_exporter_state_errors_total{op=\"load\"}"),
        Some(0.0)
    );
}
