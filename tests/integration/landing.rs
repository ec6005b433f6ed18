//! The landing page rendered by a real browser (Debian's headless
//! Chromium): the replayed drives, their verdicts and problems are on the
//! page, and it loads nothing from elsewhere.

use std::process::Command;

use crate::common::{path_str, start_on_fixtures};

/// Chromium's DOM after loading `url` (scripts would have run; there are none).
fn rendered_dom(url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", path_str(profile.path())),
            "--dump-dom",
            url,
        ])
        .output()
        .expect("chromium (Debian package chromium) must be installed; the README test command installs it");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn chromium_renders_the_drives_and_their_problems() {
    let (exporter, devices) = start_on_fixtures(&["--probe.disable"]);
    let dom = rendered_dom(&format!("http://{}/", exporter.addr));
    assert!(dom.contains("<title>SSD Exporter</title>"), "{dom}");
    // One row per replayed drive, with its verdict as the row's class.
    for d in &devices {
        assert!(
            dom.contains(&format!("<td>{d}</td>")),
            "{d} not on the page"
        );
    }
    assert_eq!(dom.matches("class=\"drive ").count(), devices.len());
    assert!(dom.contains("class=\"drive critical\""));
    assert!(dom.contains("class=\"drive ok\""));
    assert!(
        dom.contains("class=\"drive unknown\""),
        "the broken dump is unknown"
    );
    // The failing fixtures' problems are shown with their reasons.
    for problem in [
        "plp_failed",
        "spare_below_threshold",
        "smart_failed",
        "self_test_failed",
        "poll_failing",
    ] {
        assert!(
            dom.contains(&format!("<b>{problem}</b>")),
            "{problem} not on the page"
        );
    }
    assert!(
        dom.contains("http-equiv=\"refresh\""),
        "the page does not refresh itself"
    );
    // No external assets: nothing the page would load from another host.
    for attr in ["src=", "<link", "<script"] {
        assert!(!dom.contains(attr), "external asset: {attr}");
    }
}
