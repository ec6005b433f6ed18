//! Device Statistics log (04h): one page (byte 0 of the input names the
//! expected page), the SMART READ LOG form and the supported-pages list.
//! No panic; a page only decodes when its header names the page asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::devstat::supported_pages;
use ssd_exporter::ata::{DeviceStatistics, DevstatPage};

fuzz_target!(|data: &[u8]| {
    let Some((&page, rest)) = data.split_first() else {
        return;
    };
    let _ = supported_pages(rest);
    let mut all = DeviceStatistics::default();
    for parsed in [
        DevstatPage::parse(page, rest),
        DevstatPage::parse_smart_log(page, rest),
    ] {
        let Ok(p) = parsed else { continue };
        assert_eq!(p.page, page);
        for off in (0..520).step_by(4) {
            let _ = (p.statistic(off), p.get(off), p.get_i8(off));
            for size in 0..9 {
                if let Some(v) = p.get_sized(off, size) {
                    assert!(v < 1 << (8 * size.clamp(1, 7)));
                }
            }
        }
        all.add_page(&p);
    }
    if let Some(r) = all.endurance_used_ratio() {
        assert!(r.is_finite() && r >= 0.0);
    }
});
