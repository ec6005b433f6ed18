//! Property tests: every decoder returns (Ok or Err) without panicking on
//! arbitrary input, and accepts every buffer of its exact length.

use proptest::prelude::*;

use super::*;

/// The OCP GUID as laid out at byte 496, written out here independently of
/// the decoder's constant.
const GUID_AT_496: [u8; 16] = [
    0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF,
];

fn exact(len: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), len)
}

proptest! {
    #[test]
    fn no_decoder_panics_on_arbitrary_bytes(
        buf in proptest::collection::vec(any::<u8>(), 0..5000)
    ) {
        let _ = IdCtrl::parse(&buf);
        let _ = SmartLog::parse(&buf);
        let _ = OcpSmartLog::parse(&buf);
        let _ = ErrorLog::parse(&buf);
        let _ = SelfTestLog::parse(&buf);
        let _ = uuid_list::parse(&buf);
        let _ = uuid_list::ocp_uuid_index(&buf);
    }

    #[test]
    fn id_ctrl_accepts_any_4096_bytes(buf in exact(4096)) {
        let id = IdCtrl::parse(&buf).unwrap();
        let _ = (id.version_string(), id.error_log_entries());
    }

    #[test]
    fn smart_log_accepts_any_512_bytes(buf in exact(512)) {
        let s = SmartLog::parse(&buf).unwrap();
        prop_assert!(s.data_read_bytes >= s.data_units_read);
        prop_assert!(s.power_on_seconds >= s.power_on_hours);
    }

    #[test]
    fn ocp_accepts_any_512_bytes_with_the_guid(mut buf in exact(512)) {
        buf[496..512].copy_from_slice(&GUID_AT_496);
        let log = OcpSmartLog::parse(&buf).unwrap();
        let _ = (log.throttling_active(), log.capacitor_health_ratio());
    }

    #[test]
    fn ocp_random_512_bytes_never_panics(buf in exact(512)) {
        let _ = OcpSmartLog::parse(&buf);
    }

    #[test]
    fn error_log_accepts_whole_entries(buf in proptest::collection::vec(any::<u8>(), 64..4200)) {
        let log = ErrorLog::parse(&buf).unwrap();
        prop_assert!(log.entries.len() <= buf.len() / 64);
        let _ = log.newest();
    }

    #[test]
    fn self_test_accepts_any_564_bytes(buf in exact(564)) {
        let log = SelfTestLog::parse(&buf).unwrap();
        prop_assert!(log.results.len() <= 20);
        for r in &log.results {
            let _ = r.result_name();
        }
    }

    #[test]
    fn uuid_list_accepts_any_4096_bytes(buf in exact(4096)) {
        prop_assert!(uuid_list::parse(&buf).unwrap().len() <= 127);
        let _ = uuid_list::ocp_uuid_index(&buf).unwrap();
    }

    #[test]
    fn status_never_panics(r in any::<u32>(), f in any::<u16>()) {
        let a = NvmeStatus::from_ioctl_result(r);
        let b = NvmeStatus::from_completion_field(f);
        let _ = (a.to_string(), b.to_string(), a.is_unsupported());
        prop_assert!(a.sct <= 7 && b.sct <= 7);
    }
}
