use super::*;
use std::mem::offset_of;

#[test]
fn fields_sit_at_their_spec_offsets() {
    assert_eq!(offset_of!(LogPageHeader, page_length), 2);
    assert_eq!(offset_of!(LogParamHeader, control), 2);
    assert_eq!(offset_of!(LogParamHeader, parameter_length), 3);
    assert_eq!(offset_of!(TemperatureValue, celsius), 1);
    assert_eq!(
        offset_of!(InformationalExceptionValue, most_recent_temperature),
        2
    );
    assert_eq!(offset_of!(SelfTestValue, power_on_hours), 2);
    assert_eq!(offset_of!(SelfTestValue, first_failure_lba), 4);
    assert_eq!(offset_of!(SelfTestValue, sense_key), 12);
    assert_eq!(offset_of!(PercentageUsedValue, percentage_used), 3);
    assert_eq!(offset_of!(BackgroundScanStatusValue, scans_performed), 6);
    assert_eq!(
        offset_of!(BackgroundScanStatusValue, medium_scans_performed),
        10
    );
    assert_eq!(offset_of!(PortValueHeader, number_of_phys), 3);
    assert_eq!(offset_of!(SasPhyDescriptor, sas_address), 8);
    assert_eq!(offset_of!(SasPhyDescriptor, attached_sas_address), 16);
    assert_eq!(offset_of!(SasPhyDescriptor, attached_phy_identifier), 24);
    assert_eq!(offset_of!(SasPhyDescriptor, invalid_dword_count), 32);
    assert_eq!(offset_of!(SasPhyDescriptor, phy_reset_problem_count), 44);
}

/// The builder's bytes, checked at the SPC-5 offsets by hand.
#[test]
fn builder_writes_the_spec_framing() {
    let page = LogPageBuilder::new(0x0D, 0x01)
        .value(
            0x0000,
            &TemperatureValue {
                reserved: 0,
                celsius: 40,
            },
        )
        .param_with_control(0x0102, CONTROL_ASCII_LIST, b"AB")
        .build();
    assert_eq!(
        page,
        [
            0x4D, 0x01, 0x00, 0x0C, 0x00, 0x00, 0x03, 0x02, 0x00, 40, 0x01, 0x02, 0x01, 0x02, b'A',
            b'B'
        ]
    );
    let walked: Vec<_> = params(&page[4..])
        .map(|(h, v)| (h.parameter_code.get(), h.control, v.to_vec()))
        .collect();
    assert_eq!(walked, [(0, 3, vec![0, 40]), (0x0102, 1, b"AB".to_vec())]);
    assert_eq!(params(&page[4..page.len() - 1]).count(), 1);

    let st = SelfTestValue::new(2, 7, 3, 30_100, 0x0123_4567, [3, 0x11, 0]);
    let b = st.as_bytes();
    assert_eq!(
        (b[0], b[1], &b[2..4], &b[8..12], &b[12..15]),
        (
            0x47,
            3,
            &[0x75, 0x94][..],
            &[0x01, 0x23, 0x45, 0x67][..],
            &[3, 0x11, 0][..]
        )
    );

    let d = SasPhyDescriptor::new(1, [1, 2, 3, 0x0102_0304]);
    let b = d.as_bytes();
    assert_eq!((b[1], b[3], b[35], b[39], b[43]), (1, 0x2C, 1, 2, 3));
    assert_eq!(&b[44..48], [1, 2, 3, 4]);
    assert_eq!(d.stride(), 48);
    let v = sas_port_value(1, &[d, d]);
    assert_eq!(&v[..4], [0x06, 0x00, 0x01, 0x02]);
    assert_eq!(v.len(), 4 + 96);
}
