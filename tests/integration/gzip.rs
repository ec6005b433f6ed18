//! The gzip body (made of runs compressed apart, `src/metrics/gzip.rs`) is the
//! plain body, scrape after scrape, in both formats.

use std::io::Read;

use crate::common::{http_get_raw, start_on_fixtures};

/// GET /metrics with `headers`: (head, raw body bytes).
fn get_raw(addr: &str, headers: &str) -> (String, Vec<u8>) {
    let raw = http_get_raw(addr, "/metrics", headers);
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..at]).into_owned();
    assert!(
        !head.to_ascii_lowercase().contains("transfer-encoding"),
        "{head}"
    );
    (head, raw[at + 4..].to_vec())
}

/// The body without the process's own series, which change between reads.
fn steady(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("process_"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn the_gzip_body_is_the_plain_body_scrape_after_scrape() {
    let (exporter, _) = start_on_fixtures(&[]);
    for accept in [
        "",
        "Accept: application/openmetrics-text; version=1.0.0\r\n",
    ] {
        let (_, plain) = get_raw(&exporter.addr, accept);
        let plain = String::from_utf8(plain).unwrap();
        assert!(plain.contains("ssd_device_info"), "{plain}");
        // Three times: the first compresses every run, the next ones reuse
        // the drives' runs.
        for _ in 0..3 {
            let (head, gz) = get_raw(
                &exporter.addr,
                &format!("{accept}Accept-Encoding: gzip\r\n"),
            );
            assert!(
                head.to_ascii_lowercase().contains("content-encoding: gzip"),
                "{head}"
            );
            let mut text = String::new();
            flate2::read::GzDecoder::new(gz.as_slice())
                .read_to_string(&mut text)
                .expect("a valid gzip body");
            assert_eq!(steady(&text), steady(&plain), "{accept:?}");
            assert!(
                gz.len() * 4 < plain.len(),
                "{} of {}",
                gz.len(),
                plain.len()
            );
        }
    }
}
