//! The landing page rendered by a real browser (Debian's headless
//! Chromium): the replayed drives, their verdicts and problems are on the
//! page, and it loads nothing from elsewhere; laid out at two window widths
//! it shows the fleet at a glance (measured by the browser), and
//! screenshots of both are kept for people to look at.

use std::path::PathBuf;
use std::process::Command;

use crate::common::{fixtures, meta, path_str, start_on_fixtures};

/// Chromium, headless, with the flags that work in a container and a new
/// empty profile, then `args`.
fn chromium(args: &[&str]) -> std::process::Output {
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
        ])
        .args(args)
        .output()
        .expect("chromium (Debian package chromium) must be installed; the README test command installs it");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Chromium's DOM after loading `url` (scripts would have run; the page
/// has none).
fn rendered_dom(url: &str) -> String {
    String::from_utf8_lossy(&chromium(&["--dump-dom", url]).stdout).into_owned()
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
    // Replayed drives are said to be dumps, above everything else; the
    // summary counts the verdicts the fixtures' [verdict] contracts give,
    // worst first.
    let n = devices.len();
    assert!(
        dom.contains(&format!(
            "<p class=\"banner\">REPLAY: these {n} drives are dump folders"
        )),
        "{dom}"
    );
    let mut by_status = std::collections::BTreeMap::new();
    for dir in fixtures() {
        let verdict = meta(&dir)["verdict"]["status"]
            .as_str()
            .unwrap()
            .to_string();
        *by_status.entry(verdict).or_insert(0) += 1;
    }
    let summary: Vec<String> = ["critical", "unknown", "warning", "ok", "not judged"]
        .iter()
        .filter_map(|s| {
            let class = s.replace(' ', "");
            by_status
                .get(*s)
                .map(|c| format!("<span class=\"{class}\">{c} {s}</span>"))
        })
        .collect();
    let summary = format!("{n} drives: {}</p>", summary.join(", "));
    assert!(dom.contains(&summary), "{summary} not in {dom}");
    // The wear-out forecast the README promises: the failing SATA dump's.
    assert!(
        dom.contains("<small class=\"wearout\">68 days</small>"),
        "{dom}"
    );
    // No external assets: nothing the page would load from another host.
    for attr in ["src=", "<link", "<script"] {
        assert!(!dom.contains(attr), "external asset: {attr}");
    }
}

/// Measures the page as laid out in a `width`×1000 window: the page's own
/// HTML, saved with a measuring script added (the served page has none),
/// loaded from a file, and the script's findings read back from the DOM.
/// Rows count as visible when they end within the 1000 pixels a
/// screenshot of that window shows (headless Chromium's `innerHeight` is
/// less, for browser chrome it does not draw).
fn layout(page: &str, width: u32) -> Layout {
    const MEASURE: &str = r#"<script>
const rows = [...document.querySelectorAll('tr.drive')];
const visible = rows.filter(r => r.getBoundingClientRect().bottom <= HEIGHT).length;
const serials = [...document.querySelectorAll('code.serial')];
const wrapped = serials.filter(c => c.getClientRects().length != 1).length;
const problems = Math.min(...[...document.querySelectorAll('td.problems')].map(td => td.getBoundingClientRect().width));
const overflow = document.documentElement.scrollWidth - window.innerWidth;
document.body.insertAdjacentHTML('beforeend', `<pre id="layout">rows=${rows.length} serials=${serials.length} visible=${visible} wrapped=${wrapped} problems=${Math.round(problems)} overflow=${overflow} width=${window.innerWidth} height=${window.innerHeight}</pre>`);
</script>"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("landing.html");
    let measure = MEASURE.replace("HEIGHT", "1000");
    std::fs::write(&file, page.replace("</body>", &format!("{measure}</body>"))).unwrap();
    let url = format!("file://{}", path_str(&file));
    let size = format!("--window-size={width},1000");
    let dom = String::from_utf8_lossy(&chromium(&[&size, "--dump-dom", &url]).stdout).into_owned();
    let line = dom
        // The last one: the script's own text holds the tag too.
        .rsplit("<pre id=\"layout\">")
        .next()
        .filter(|r| r.starts_with("rows="))
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("no measurement in {dom}"));
    let get = |key: &str| -> i64 {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{key} missing from {line}"))
    };
    Layout {
        rows: get("rows"),
        serials: get("serials"),
        visible: get("visible"),
        wrapped_serials: get("wrapped"),
        narrowest_problems: get("problems"),
        overflow: get("overflow"),
        width: get("width"),
    }
}

#[derive(Debug)]
struct Layout {
    rows: i64,
    /// Serial elements (one per drive).
    serials: i64,
    /// Drive rows whose bottom is inside the window.
    visible: i64,
    /// Serials laid out on more than one line.
    wrapped_serials: i64,
    /// The narrowest problems cell, in CSS pixels.
    narrowest_problems: i64,
    /// How far the page is wider than the window (> 0: a horizontal scroll).
    overflow: i64,
    width: i64,
}

/// Where the screenshots go: kept after the test for people to look at.
fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("landing");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn at_two_widths_the_fleet_fits_serials_stay_whole_and_problems_get_room() {
    let (exporter, devices) = start_on_fixtures(&["--probe.disable"]);
    let page = exporter.get("/", "").1;
    let wide = layout(&page, 1400);
    eprintln!("1400x1000: {wide:?}");
    assert_eq!(wide.rows, devices.len() as i64, "{wide:?}");
    assert_eq!(wide.serials, wide.rows, "{wide:?}");
    // Before this layout 2 of the 12 fixture drives fitted in 1400x1000;
    // then 8 (the broken dump's reason holds the checkout's path); 5 since
    // the failing SATA drive also lists its failing attribute and the
    // drives sorted first say more.
    assert!(wide.visible >= 5, "{wide:?}");
    assert_eq!(wide.wrapped_serials, 0, "{wide:?}");
    assert!(wide.overflow <= 0, "horizontal scroll: {wide:?}");
    assert!(
        wide.narrowest_problems * 4 >= wide.width,
        "problems too narrow: {wide:?}"
    );
    // A narrow window: one card per drive, problems across it.
    let narrow = layout(&page, 900);
    eprintln!("900x1000: {narrow:?}");
    assert_eq!(narrow.wrapped_serials, 0, "{narrow:?}");
    assert!(narrow.overflow <= 0, "horizontal scroll: {narrow:?}");
    assert!(
        narrow.narrowest_problems * 10 >= narrow.width * 8,
        "{narrow:?}"
    );
    // Screenshots of both, for people (target/tmp/landing/).
    let url = format!("http://{}/", exporter.addr);
    for width in [1400, 900] {
        let png = screenshot_dir().join(format!("landing-{width}x1000.png"));
        let _ = std::fs::remove_file(&png);
        let shot = format!("--screenshot={}", path_str(&png));
        chromium(&[&format!("--window-size={width},1000"), &shot, &url]);
        let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
            "{}",
            png.display()
        );
        // The PNG's own size (IHDR): the window asked for.
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((w, h), (width, 1000), "{}", png.display());
    }
}
