//! HTTP content negotiation over arbitrary `Accept` and `Accept-Encoding`
//! text: no panic; a header that names neither `application/…` nor
//! `text/…` ranks both formats alike (wildcards only), and a tie gives
//! plain text; gzip needs `gzip` or `*` in the header.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::http::{Format, accepts_gzip, negotiate};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let format = negotiate(Some(&text));
    let lower = text.to_ascii_lowercase();
    if !lower.contains("application") && !lower.contains("text") {
        assert_eq!(format, Format::Prometheus, "{text:?}");
    }
    let gzip = accepts_gzip(Some(&text));
    if gzip {
        assert!(
            text.contains('*') || text.to_ascii_lowercase().contains("gzip"),
            "{text:?}"
        );
    }
    assert_eq!(negotiate(None), Format::Prometheus);
    assert!(!accepts_gzip(None));
});
