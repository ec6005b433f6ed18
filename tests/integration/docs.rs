//! Every metric family the exporter emits is documented in docs/metrics.md.

use crate::common::*;

#[test]
fn every_exposed_family_is_documented() {
    let docs = std::fs::read_to_string(repo().join("docs/metrics.md")).unwrap();
    let text = serve_fixtures("");
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
