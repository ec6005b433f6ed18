//! Property tests: no decoder panics on arbitrary input of any length, and
//! every decoder accepts every buffer of its exact length.

use proptest::prelude::*;

use super::*;

fn sector() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 512)
}

proptest! {
    #[test]
    fn no_decoder_panics_on_arbitrary_bytes(
        buf in proptest::collection::vec(any::<u8>(), 0..2000),
        page in any::<u8>(),
    ) {
        let _ = Identify::parse(&buf).map(|id| (id.wwn_string(), id.ata_version_name()));
        let _ = SmartData::parse(&buf);
        let _ = SmartThresholds::parse(&buf);
        let _ = SelfTestLog::parse(&buf);
        let _ = devstat::supported_pages(&buf);
        if let Ok(p) = DevstatPage::parse(page, &buf) {
            let mut d = DeviceStatistics::default();
            d.add_page(&p);
        }
        let _ = DevstatPage::parse_smart_log(page, &buf);
        let s = parse_sense(&buf);
        for status in [0x00, 0x02, 0x08] {
            for expect in [false, true] {
                if let Err(e) = outcome(status, &s, expect) {
                    let _ = (e.to_string(), e.is_unsupported());
                }
            }
        }
    }

    #[test]
    fn sense_shaped_input_never_panics(
        code in prop_oneof![Just(0x70u8), Just(0x71), Just(0x72), Just(0x73), Just(0xF0)],
        rest in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut buf = vec![code];
        buf.extend(rest);
        let s = parse_sense(&buf);
        prop_assert_eq!(s.response_code, code & 0x7F);
        prop_assert!(s.key <= 0x0F);
    }

    #[test]
    fn identify_accepts_any_sector(buf in sector()) {
        let id = Identify::parse(&buf).unwrap();
        prop_assert!(id.logical_sector_size >= 2);
        prop_assert!(id.physical_sector_size >= id.logical_sector_size
            || id.physical_sector_size == u32::MAX);
        let _ = (id.is_ssd(), id.wwn_string());
    }

    #[test]
    fn smart_pages_accept_any_sector(buf in sector()) {
        let d = SmartData::parse(&buf).unwrap();
        prop_assert!(d.attributes.len() <= 30);
        for a in &d.attributes {
            prop_assert!(a.raw48() < 1 << 48);
        }
        prop_assert!(SmartThresholds::parse(&buf).unwrap().thresholds.len() <= 30);
    }

    #[test]
    fn self_test_log_accepts_any_sector_with_a_sane_index(mut buf in sector(), idx in 0u8..=21) {
        buf[508] = idx;
        let l = SelfTestLog::parse(&buf).unwrap();
        prop_assert!(l.entries.len() <= 21);
        for e in &l.entries {
            let _ = (e.result_name(), e.test_name());
            prop_assert!(e.slot < 21);
        }
    }

    #[test]
    fn devstat_accepts_any_page_with_its_number(mut buf in sector(), page in any::<u8>()) {
        buf[2] = page;
        let p = DevstatPage::parse(page, &buf).unwrap();
        for off in (0..520).step_by(4) {
            let _ = (p.get(off), p.get_i8(off), p.get_sized(off, 9));
        }
    }

    #[test]
    fn every_layout_is_the_sector_itself(buf in sector()) {
        use zerocopy::IntoBytes;
        prop_assert_eq!(identify::IdentifyPage::view(&buf).unwrap().as_bytes(), &buf[..]);
        prop_assert_eq!(smart::SmartDataPage::view(&buf).unwrap().as_bytes(), &buf[..]);
        prop_assert_eq!(smart::SmartThresholdsPage::view(&buf).unwrap().as_bytes(), &buf[..]);
        prop_assert_eq!(devstat::StatisticsPage::view(&buf).unwrap().as_bytes(), &buf[..]);
        prop_assert_eq!(devstat::PageListPage::view(&buf).unwrap().as_bytes(), &buf[..]);
        prop_assert_eq!(self_test::SelfTestLogPage::view(&buf).unwrap().as_bytes(), &buf[..]);
        prop_assert_eq!(error_log::ErrorLogPage::view(&buf).unwrap().as_bytes(), &buf[..]);
    }

    /// The builders' seal and the decoders' check are one rule: any sector,
    /// sealed, decodes with a valid checksum, and only byte 511 changes.
    #[test]
    fn a_sealed_sector_has_a_valid_checksum(buf in sector()) {
        use zerocopy::{FromBytes, IntoBytes};
        let mut p = smart::SmartDataPage::read_from_bytes(&buf).unwrap();
        p.seal();
        prop_assert_eq!(&p.as_bytes()[..511], &buf[..511]);
        prop_assert!(SmartData::parse(p.as_bytes()).unwrap().checksum_valid);
        let mut p = self_test::SelfTestLogPage::read_from_bytes(&buf).unwrap();
        p.newest_index = 0;
        p.seal();
        prop_assert!(SelfTestLog::parse(p.as_bytes()).unwrap().checksum_valid);
        let mut p = identify::IdentifyPage::read_from_bytes(&buf).unwrap();
        p.integrity_signature = identify::INTEGRITY_SIGNATURE;
        p.seal();
        prop_assert_eq!(Identify::parse(p.as_bytes()).unwrap().checksum_valid, Some(true));
    }

    #[test]
    fn cdb_always_starts_with_85h(
        command in any::<u8>(), features in any::<u16>(), count in any::<u16>(),
        lba in any::<u64>(), ck in any::<bool>(), ext in any::<bool>(),
    ) {
        let tf = Taskfile { command, features, count, lba, device: 0 };
        let cdb = cdb16(&tf, Protocol::PioIn, ck, ext);
        prop_assert_eq!(cdb[0], 0x85);
        prop_assert_eq!(cdb[14], command);
        prop_assert_eq!(cdb[15], 0);
    }
}
