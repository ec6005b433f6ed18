//! Log pages built by hand from the SPC-5 / SBC-4 layouts (header: page
//! code, subpage, big-endian page length; parameters: big-endian code,
//! control byte, length, value); expected values worked out from the bytes.

use super::*;

/// A page `code` holding `params` as (parameter code, value bytes).
fn page(code: u8, params: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (pc, value) in params {
        body.extend(pc.to_be_bytes());
        body.push(0x03); // control: DU 0, TSD 0, ETC 0, TMC 0, format 11b binary
        body.push(value.len() as u8);
        body.extend_from_slice(value);
    }
    let mut out = vec![code, 0x00];
    out.extend((body.len() as u16).to_be_bytes());
    out.extend(body);
    out
}

#[test]
fn header_params_and_bounds() {
    let mut buf = page(0x0D, &[(0x0000, &[0x00, 0x28]), (0x0001, &[0x00, 0x46])]);
    let p = LogPage::parse(&buf, 0x0D).unwrap();
    assert_eq!((p.page, p.subpage), (0x0D, 0));
    let params = p.params();
    assert_eq!(params.len(), 2);
    assert_eq!(
        (params[1].code, params[1].control, params[1].uint()),
        (1, 0x03, 0x46)
    );
    // The page length covers only the first parameter: the second is not read.
    buf[3] = 6;
    assert_eq!(LogPage::parse(&buf, 0x0D).unwrap().params().len(), 1);
    // A page length past the buffer: what is there, and a cut parameter dropped.
    buf[3] = 0xFF;
    let cut = &buf[..buf.len() - 1];
    assert_eq!(LogPage::parse(cut, 0x0D).unwrap().params().len(), 1);
    // Another page code, and a buffer too short for the header.
    assert!(LogPage::parse(&buf, 0x0E).is_err());
    assert!(LogPage::parse(&buf[..3], 0x0D).is_err());
    // SPF set: the subpage byte counts.
    let mut sub = page(0x15, &[]);
    sub[0] |= 0x40;
    sub[1] = 0x01;
    assert_eq!(LogPage::parse(&sub, 0x15).unwrap().subpage, 1);
}

#[test]
fn supported_pages_are_a_byte_list() {
    let buf = [0x00, 0x00, 0x00, 0x05, 0x00, 0x02, 0x03, 0x0D, 0x2F];
    assert_eq!(
        supported_pages(&buf).unwrap(),
        [0x00, 0x02, 0x03, 0x0D, 0x2F]
    );
}

#[test]
fn error_counter_pages() {
    // Read errors (03h): 12 corrected in total, 4 TB processed (a 6-byte
    // value), 2 uncorrected; an 8-byte counter keeps all its bits.
    let tb: &[u8] = &[0x03, 0xA3, 0x52, 0x94, 0x40, 0x00]; // 4 000 000 000 000
    let buf = page(
        0x03,
        &[
            (0x0000, &[0, 0, 0, 1]),
            (0x0003, &[0, 0, 0, 12]),
            (0x0005, tb),
            (0x0006, &[0x01, 0, 0, 0, 0, 0, 0, 2]),
        ],
    );
    let c = error_counters(&buf, 0x03).unwrap();
    assert_eq!(c.corrected, Some(12));
    assert_eq!(c.bytes_processed, Some(4_000_000_000_000));
    assert_eq!(c.uncorrected, Some((1u128 << 56) + 2));
    // A page without the parameters reports none of them, never a 0.
    let empty = page(0x02, &[(0x0000, &[0, 0, 0, 1])]);
    assert_eq!(
        error_counters(&empty, 0x02).unwrap(),
        ErrorCounters::default()
    );
    assert_eq!(
        non_medium_errors(&page(0x06, &[(0, &[0, 0, 1, 0])])).unwrap(),
        Some(256)
    );
}

#[test]
fn temperature_page() {
    // smartmontools reads the current temperature at page byte 9 and the
    // trip (reference) at byte 15: value byte 1 of parameters 0 and 1.
    let buf = page(0x0D, &[(0x0000, &[0x00, 0x25]), (0x0001, &[0x00, 0x41])]);
    assert_eq!(buf[9], 0x25);
    assert_eq!(buf[15], 0x41);
    assert_eq!(
        temperature(&buf).unwrap(),
        Temperature {
            current_celsius: Some(37),
            reference_celsius: Some(65)
        }
    );
    let unknown = page(0x0D, &[(0x0000, &[0x00, 0xFF])]);
    assert_eq!(temperature(&unknown).unwrap(), Temperature::default());
    // A reference of 0 (or FFh) is not reported; a current 0 °C is a value.
    let zero = page(0x0D, &[(0x0000, &[0x00, 0x00]), (0x0001, &[0x00, 0x00])]);
    assert_eq!(
        temperature(&zero).unwrap(),
        Temperature {
            current_celsius: Some(0),
            reference_celsius: None
        }
    );
    let ff = page(0x0D, &[(0x0000, &[0x00, 0x21]), (0x0001, &[0x00, 0xFF])]);
    assert_eq!(temperature(&ff).unwrap().reference_celsius, None);
}

#[test]
fn start_stop_ssd_power_on_and_ie() {
    // 0003h specified 50 000, 0004h accumulated 300, 0005h specified
    // load-unload 600 000, 0006h accumulated load-unload 0001_0203h.
    let ss = page(
        0x0E,
        &[
            (0x0003, &[0, 0, 0xC3, 0x50]),
            (0x0004, &[0, 0, 0x01, 0x2C]),
            (0x0005, &[0, 0x09, 0x27, 0xC0]),
            (0x0006, &[0, 0x01, 0x02, 0x03]),
        ],
    );
    assert_eq!(
        start_stop(&ss).unwrap(),
        StartStop {
            start_stop_cycles: Some(300),
            load_unload_cycles: Some(66_051)
        }
    );
    // All FFh: not available; a page without 0006h has no load-unload count.
    let ffs = page(0x0E, &[(0x0004, &[0xFF; 4]), (0x0006, &[0xFF; 4])]);
    assert_eq!(start_stop(&ffs).unwrap(), StartStop::default());
    let only = page(0x0E, &[(0x0004, &[0, 0, 0, 9])]);
    assert_eq!(start_stop(&only).unwrap().load_unload_cycles, None);

    // 11h parameter 0001h: three reserved bytes, then the percentage.
    let ssd = page(0x11, &[(0x0001, &[0, 0, 0, 7])]);
    assert_eq!(percentage_used(&ssd).unwrap(), Some(7));
    assert_eq!(ssd[4 + 7], 7, "smartmontools reads it at ucp[7]");

    // 15h parameter 0000h: minutes 0x0002_2B0C = 142 092 (2368 h 12 min).
    let mut status = [0u8; 12];
    status[..4].copy_from_slice(&142_092u32.to_be_bytes());
    let scan = page(0x15, &[(0x0000, &status)]);
    assert_eq!(power_on_minutes(&scan).unwrap(), Some(142_092));
    let short = page(0x15, &[(0x0000, &status[..4])]);
    assert_eq!(power_on_minutes(&short).unwrap(), None);

    // 2Fh: 5Dh/10h "hardware impending failure, general hard drive failure".
    let ie = page(0x2F, &[(0x0000, &[0x5D, 0x10, 0x2A])]);
    let e = informational_exceptions(&ie).unwrap().unwrap();
    assert_eq!(
        (e.asc, e.ascq, e.temperature_celsius, e.threshold_celsius),
        (0x5D, 0x10, Some(42), None)
    );
    assert!(!e.passed());
    let ok = page(0x2F, &[(0x0000, &[0x00, 0x00, 0x1E])]);
    assert!(informational_exceptions(&ok).unwrap().unwrap().passed());
    // Value byte 3 (parameter byte 7, smartmontools' tBuf[11]): the
    // threshold temperature; 0 and FFh are not reported.
    let t = page(0x2F, &[(0x0000, &[0x00, 0x00, 0x1E, 0x41])]);
    assert_eq!(t[4 + 7], 0x41);
    let e = informational_exceptions(&t).unwrap().unwrap();
    assert_eq!(
        (e.temperature_celsius, e.threshold_celsius),
        (Some(30), Some(65))
    );
    for none in [0x00, 0xFF] {
        let t = page(0x2F, &[(0x0000, &[0x00, 0x00, 0x1E, none])]);
        let e = informational_exceptions(&t).unwrap().unwrap();
        assert_eq!(e.threshold_celsius, None);
    }
}

#[test]
fn sas_phy_counters() {
    // One SAS port (protocol 6) with two phys, 48-byte descriptors (length
    // byte 44): counters at descriptor bytes 32, 36, 40, 44.
    let mut value = vec![0x06, 0x00, 0x01, 0x02];
    for (phy, base) in [(0u8, 10u32), (1, 20)] {
        let mut d = vec![0u8; 48];
        d[1] = phy;
        d[3] = 44;
        d[5] = 0x0A; // negotiated logical link rate Ah: 6 Gbit/s
        for (i, off) in [32, 36, 40, 44].into_iter().enumerate() {
            d[off..off + 4].copy_from_slice(&(base + i as u32).to_be_bytes());
        }
        value.extend(d);
    }
    let buf = page(0x18, &[(0x0001, &value)]);
    let phys = sas_phys(&buf).unwrap();
    assert_eq!(phys.len(), 2);
    assert_eq!(
        phys[1],
        SasPhy {
            port: 1,
            phy: 1,
            invalid_dwords: 20,
            running_disparity_errors: 21,
            loss_of_dword_sync: 22,
            phy_reset_problems: 23,
            negotiated_rate: 0x0A
        }
    );
    assert_eq!(phys[1].link_rate_bits_per_second(), Some(6e9));
    let rates: Vec<Option<f64>> = [0x0, 0x2, 0x8, 0x9, 0xB, 0xC, 0xD].map(link_rate).to_vec();
    assert_eq!(
        rates,
        [
            None,
            None,
            Some(1.5e9),
            Some(3e9),
            Some(12e9),
            Some(22.5e9),
            None
        ]
    );
    // Another protocol's port page (FCP = 0): no SAS phys.
    let mut fc = value.clone();
    fc[0] = 0x00;
    assert!(sas_phys(&page(0x18, &[(0x0001, &fc)])).unwrap().is_empty());
}

#[test]
fn supported_pages_and_subpages() {
    // Page 00h subpage FFh: SPF set, then (page, subpage) pairs; the last
    // odd byte is not a pair.
    let buf = [
        0x40, 0xFF, 0x00, 0x0B, 0x00, 0x00, 0x00, 0xFF, 0x0D, 0x00, 0x0D, 0x01, 0x2F, 0x00, 0x18,
    ];
    assert_eq!(
        supported_subpages(&buf).unwrap(),
        [
            (0x00, 0x00),
            (0x00, 0xFF),
            (0x0D, 0x00),
            (0x0D, 0x01),
            (0x2F, 0x00)
        ]
    );
    // A device ignoring the subpage returns the plain list: not this page.
    assert!(supported_subpages(&[0x00, 0x00, 0x00, 0x02, 0x0D, 0x2F]).is_err());
}

/// The page builder the demo uses and the parser are one layout: what is
/// encoded is what is read back, parameter by parameter.
mod roundtrip {
    use crate::scsi::log::LogPage;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn encoded_parameters_parse_back(
            page in 0u8..0x40,
            params in proptest::collection::vec((any::<u16>(), proptest::collection::vec(any::<u8>(), 0..40)), 0..12),
        ) {
            let refs: Vec<(u16, &[u8])> = params.iter().map(|(c, v)| (*c, v.as_slice())).collect();
            let bytes = LogPage::encode(page, 0, &refs);
            let parsed = LogPage::parse(&bytes, page).unwrap();
            let got: Vec<(u16, Vec<u8>)> = parsed.params().into_iter().map(|p| (p.code, p.value)).collect();
            prop_assert_eq!(got, params);
        }
    }
}

mod no_panic {
    use crate::scsi::{defects, identity, log};
    use proptest::prelude::*;

    proptest! {
        /// Every SCSI decoder returns Ok or Err on any bytes, the page code
        /// byte set so the page bodies are really walked.
        #[test]
        fn no_scsi_decoder_panics(mut buf in proptest::collection::vec(any::<u8>(), 0..700), code in any::<u8>()) {
            let _ = identity::Inquiry::parse(&buf);
            let _ = identity::ReadCapacity16::parse(&buf);
            let _ = defects::grown_defects(&buf);
            let _ = defects::grown_defects_12(&buf);
            for vpd in [0x00, 0x80, 0x83, 0xB1] {
                if buf.len() > 1 {
                    buf[1] = vpd;
                }
                let _ = identity::vpd_supported(&buf);
                let _ = identity::vpd_unit_serial(&buf);
                let _ = identity::vpd_naa(&buf);
                let _ = identity::vpd_rotation_rate(&buf);
                let _ = identity::vpd_protocol(&buf);
            }
            for req in [
                crate::scsi::ScsiRequest::Inquiry,
                crate::scsi::ScsiRequest::Vpd(code),
                crate::scsi::ScsiRequest::ReadCapacity16,
                crate::scsi::ScsiRequest::Log { page: code & 0x3F, subpage: 0 },
                crate::scsi::ScsiRequest::GrownDefects10,
                crate::scsi::ScsiRequest::GrownDefects12,
            ] {
                let (_, alloc) = req.cdb();
                if let Some(n) = req.answer_len(&buf, alloc) {
                    prop_assert!(n <= alloc);
                }
                if let Ok(n) = req.accept(&buf[..buf.len().min(alloc)], alloc) {
                    prop_assert!(n <= alloc && n <= buf.len());
                }
            }
            for page in [0x00, 0x02, 0x03, 0x05, 0x06, 0x0D, 0x0E, 0x10, 0x11, 0x15, 0x18, 0x2F, code & 0x3F] {
                if let Some(b) = buf.first_mut() {
                    *b = page;
                }
                let _ = log::supported_pages(&buf);
                let _ = log::supported_subpages(&buf);
                let _ = log::error_counters(&buf, page);
                let _ = log::non_medium_errors(&buf);
                let _ = log::temperature(&buf);
                let _ = log::start_stop(&buf);
                let _ = log::percentage_used(&buf);
                let _ = log::power_on_minutes(&buf);
                let _ = log::informational_exceptions(&buf);
                let _ = crate::scsi::self_test::self_tests(&buf);
                let _ = log::sas_phys(&buf);
                if let Ok(p) = log::LogPage::parse(&buf, page) {
                    for param in p.params() {
                        let _ = param.uint();
                    }
                }
            }
        }
    }
}
