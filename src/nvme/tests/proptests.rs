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
        let _ = EnduranceGroupLog::parse(&buf);
        let _ = endurance_group_list::parse(&buf);
        let _ = FwSlotLog::parse(&buf);
        let _ = TelemetryCtrlHeader::parse(&buf);
        let _ = PersistentEventLog::parse(&buf);
    }

    #[test]
    fn endurance_group_accepts_any_512_bytes(buf in exact(512)) {
        let g = EnduranceGroupLog::parse(&buf).unwrap();
        prop_assert!(g.data_written_bytes.is_none_or(|b| b >= g.data_units_written));
        if let Some(wa) = g.write_amplification() {
            prop_assert!(wa.is_finite() && wa >= 0.0);
        }
    }

    #[test]
    fn fw_slot_accepts_any_512_bytes(buf in exact(512)) {
        let log = FwSlotLog::parse(&buf).unwrap();
        prop_assert!(log.slots.len() <= 7 && log.active_slot <= 7);
        let _ = log.activation_pending();
    }

    #[test]
    fn telemetry_header_accepts_any_512_bytes_with_its_id(mut buf in exact(512)) {
        buf[0] = 0x08;
        let h = TelemetryCtrlHeader::parse(&buf).unwrap();
        prop_assert_eq!(h.generation, buf[383]);
    }

    /// Any bytes after a valid header: the walk stays within the log and
    /// never yields more events than the header counts.
    #[test]
    fn pel_walk_stays_within_the_log(
        body in proptest::collection::vec(any::<u8>(), 0..3000),
        tnev in any::<u32>(),
        tll in 512u64..4000,
    ) {
        let mut buf = vec![0u8; 512];
        buf[0] = 0x0D;
        buf[4..8].copy_from_slice(&tnev.to_le_bytes());
        buf[8..16].copy_from_slice(&tll.to_le_bytes());
        buf.extend_from_slice(&body);
        let log = PersistentEventLog::parse(&buf).unwrap();
        prop_assert!(log.events.len() as u64 <= u64::from(tnev));
        prop_assert_eq!(log.events.len() as u64 + u64::from(log.missing), u64::from(tnev));
        let limit = (tll as usize).min(buf.len());
        for e in &log.events {
            prop_assert!(e.offset + usize::from(e.header_length) + usize::from(e.length) <= limit);
            let _ = (e.detail.describe(), e.timestamp.unix_seconds());
        }
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
