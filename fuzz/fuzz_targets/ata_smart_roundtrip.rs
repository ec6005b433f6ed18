//! Round trip through the demo's page builder: any attribute table the
//! builder encodes (SMART READ DATA and READ THRESHOLDS) decodes back to the
//! same attributes, thresholds and a valid checksum.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::{SmartData, SmartThresholds};
use ssd_exporter::device::demo::ata::{Attr, ata_smart_data, ata_smart_thresholds};

fn attrs(u: &mut Unstructured<'_>) -> Result<Vec<Attr>> {
    let mut out = Vec::new();
    let mut seen = [false; 256];
    for _ in 0..u.int_in_range(0..=30)? {
        // Ids are distinct and non-zero, as on a drive (0 marks a free slot).
        let id: u8 = u.int_in_range(1..=255)?;
        if std::mem::replace(&mut seen[usize::from(id)], true) {
            continue;
        }
        out.push(Attr {
            id,
            flags: u.arbitrary()?,
            value: u.arbitrary()?,
            worst: u.arbitrary()?,
            threshold: u.arbitrary()?,
            raw: u.arbitrary()?,
        });
    }
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let Ok(attrs) = attrs(&mut Unstructured::new(data)) else {
        return;
    };
    let d = SmartData::parse(&ata_smart_data(&attrs)).expect("a built page decodes");
    let t = SmartThresholds::parse(&ata_smart_thresholds(&attrs)).expect("a built page decodes");
    assert!(d.checksum_valid);
    assert_eq!(d.attributes.len(), attrs.len());
    for (a, got) in attrs.iter().zip(&d.attributes) {
        assert_eq!(
            (got.id, got.flags, got.value, got.worst, got.raw),
            (a.id, a.flags, a.value, a.worst, a.raw)
        );
        assert_eq!(t.get(a.id), Some(a.threshold), "threshold of {}", a.id);
    }
});
