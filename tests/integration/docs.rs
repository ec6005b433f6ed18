//! Every metric family the exporter emits is documented in docs/metrics.md.

use crate::common::*;

#[test]
fn every_exposed_family_is_documented() {
    let docs = std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap();
    let dirs = fixtures();
    let mut args: Vec<String> = dirs
        .iter()
        .map(|d| format!("--replay={}", path_str(d)))
        .collect();
    args.push("--poll.interval=1h".into());
    // The built-in attribute table only: names must not depend on the
    // drivedb.h version installed on the test machine.
    args.push("--path.drivedb=none".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let exporter = Exporter::start(&args);
    let devices: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let text = exporter.scrape_after_polls(&devices, 1.0);
    let mut families = 0;
    for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
        let name = line.split_whitespace().nth(2).unwrap();
        assert!(
            docs.contains(&format!("`{name}`")),
            "{name} is not in docs/metrics.md"
        );
        families += 1;
    }
    assert!(families > 40, "{families}");
}
