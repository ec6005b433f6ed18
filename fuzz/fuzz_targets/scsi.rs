//! The SCSI decoders (INQUIRY, VPD pages, READ CAPACITY(16), LOG SENSE
//! pages, grown defects), the answer-length check of every command and the
//! discovery decisions (transport, kind): any bytes decode or fail, nothing
//! panics, a log
//! page's parameters never reach past its own length, and an answer's
//! length never exceeds the buffer it came in.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::device::discovery::{ScsiFacts, scsi_kind, scsi_transport};
use ssd_exporter::scsi::{ScsiRequest, defects, identity, log, self_test};

fuzz_target!(|data: &[u8]| {
    let _ = identity::Inquiry::parse(data);
    let _ = identity::ReadCapacity16::parse(data).map(|c| c.capacity_bytes());
    let _ = defects::grown_defects(data);
    let _ = defects::grown_defects_12(data);
    let _ = identity::vpd_supported(data);
    let _ = identity::vpd_unit_serial(data);
    let _ = identity::vpd_naa(data);
    let _ = identity::vpd_rotation_rate(data);
    let _ = identity::vpd_protocol(data);
    let _ = identity::vpd_port_protocols(data);
    for req in [
        ScsiRequest::Inquiry,
        ScsiRequest::Vpd(0x83),
        ScsiRequest::ReadCapacity16,
        ScsiRequest::Log { page: 0x0D, subpage: 0 },
        ScsiRequest::GrownDefects10,
        ScsiRequest::GrownDefects12,
    ] {
        let (_, alloc) = req.cdb();
        if let Some(n) = req.answer_len(data, alloc) {
            assert!(n <= alloc);
        }
        let filled = &data[..data.len().min(alloc)];
        if let Ok(n) = req.accept(filled, alloc) {
            assert!(n <= filled.len());
        }
    }
    let facts = ScsiFacts {
        inquiry: Some(data.to_vec()),
        vpd_supported: Some(data.to_vec()),
        vpd_83: Some(data.to_vec()),
        ..ScsiFacts::default()
    };
    let _ = scsi_transport(&facts);
    let _ = scsi_kind(&facts);
    let Some(&first) = data.first() else {
        return;
    };
    let page = first & 0x3F;
    if let Ok(p) = log::LogPage::parse(data, page) {
        let declared = data
            .get(2..4)
            .map_or(0, |b| usize::from(u16::from_be_bytes([b[0], b[1]])));
        assert!(p.payload.len() <= declared);
        let used: usize = p.params().iter().map(|q| 4 + q.value.len()).sum();
        assert!(used <= p.payload.len());
        for q in p.params() {
            let _ = q.uint();
        }
    }
    let _ = log::supported_pages(data);
    let _ = log::supported_subpages(data);
    let _ = log::error_counters(data, page);
    let _ = log::non_medium_errors(data);
    let _ = log::temperature(data);
    let _ = log::start_stop(data);
    let _ = log::percentage_used(data);
    let _ = log::power_on_minutes(data);
    if let Ok(Some(ie)) = log::informational_exceptions(data) {
        let _ = (ie.condition(), ie.name());
    }
    let _ = self_test::self_tests(data);
    let _ = log::sas_phys(data);
});
