//! The exporter-toolkit web config: any YAML text parses or fails with one
//! line naming the key; nothing panics. `parse` reads no file (the TLS
//! files are only loaded by `load`), so the fuzzer touches nothing.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ssd_exporter::http::web::WebConfig;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = WebConfig::parse(text, Path::new("/nonexistent")) {
        let line = e.to_string();
        assert!(!line.contains('\n'), "{line:?}");
    }
});
