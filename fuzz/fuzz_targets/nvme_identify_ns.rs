//! Identify Namespace (CNS 00h): no panic; a WWN, when present, is an
//! `eui.` name of lower-case hex.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::identify_ns::IdNs;

fuzz_target!(|data: &[u8]| {
    if let Ok(ns) = IdNs::parse(data)
        && let Some(wwn) = ns.wwn()
    {
        let hex = wwn.strip_prefix("eui.").expect("eui. prefix");
        assert!(hex.len() == 32 || hex.len() == 16, "{wwn}");
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }
});
