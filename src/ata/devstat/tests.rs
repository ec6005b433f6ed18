//! Device Statistics pages built qword by qword: value bytes, then the flags
//! byte at offset + 7 (C0h = supported and valid).

use super::*;

const OK: u8 = 0xC0;

fn page(n: u8) -> Vec<u8> {
    let mut buf = vec![0u8; 512];
    buf[0] = 0x01; // revision 0001h
    buf[2] = n;
    buf
}

fn put(buf: &mut [u8], off: usize, value: &[u8], flags: u8) {
    buf[off..off + value.len()].copy_from_slice(value);
    buf[off + 7] = flags;
}

fn general() -> Vec<u8> {
    let mut b = page(0x01);
    put(&mut b, 0x08, &[42], OK); // lifetime power-on resets
    put(&mut b, 0x10, &[0x39, 0x30], OK); // power-on hours 3039h = 12345
    // Logical sectors written 1234_5678_9ABCh, plus junk in byte 6 (beyond
    // the 6-byte statistic but inside bits 55:0).
    put(
        &mut b,
        0x18,
        &[0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x77],
        OK,
    );
    put(&mut b, 0x20, &[9], 0x80); // supported, not valid
    put(&mut b, 0x28, &[9], 0x00); // not supported
    put(&mut b, 0x30, &[5], 0xE0); // supported, valid, normalized
    b
}

#[test]
fn general_statistics_page() {
    let p = DevstatPage::parse(0x01, &general()).unwrap();
    assert_eq!((p.revision, p.page), (1, 1));
    assert_eq!(p.get(0x08), Some(42));
    assert_eq!(p.get(0x10), Some(12345));
    assert_eq!(p.get(0x18), Some(0x0077_1234_5678_9ABC));
    assert_eq!(p.get_sized(0x18, 6), Some(0x1234_5678_9ABC));
    assert_eq!(p.get(0x20), None);
    assert_eq!(p.get(0x28), None);
    let s = p.statistic(0x20).unwrap();
    assert!(s.supported() && !s.valid());
    assert_eq!(p.get(0x30), Some(5));
    assert!(p.statistic(0x30).unwrap().normalized());
    assert!(!p.statistic(0x10).unwrap().normalized());

    let mut d = DeviceStatistics::default();
    d.add_page(&p);
    assert_eq!(d.lifetime_power_on_resets, Some(42));
    assert_eq!(d.power_on_hours, Some(12345));
    assert_eq!(d.power_on_seconds, Some(44_442_000));
    assert_eq!(d.logical_sectors_written, Some(20_015_998_343_868));
    assert_eq!(d.write_commands, None);
    assert_eq!(d.logical_sectors_read, None);
    assert_eq!(d.read_commands, Some(5));
}

#[test]
fn statistic_offsets() {
    let p = DevstatPage::parse(0x01, &general()).unwrap();
    assert_eq!(p.statistic(0), None); // the header
    assert_eq!(p.statistic(0x0C), None); // not qword aligned
    assert!(p.statistic(504).is_some());
    assert_eq!(p.statistic(512), None);
    assert_eq!(p.get(usize::MAX - 7), None);
}

#[test]
fn temperature_page_signed_bytes_and_minutes() {
    let mut b = page(0x05);
    put(&mut b, 0x08, &[0x23], OK); // 35 °C
    put(&mut b, 0x20, &[0x46], OK); // 70 °C
    put(&mut b, 0x28, &[0xF6], OK); // -10 °C
    put(&mut b, 0x50, &[3], OK); // 3 minutes over
    put(&mut b, 0x58, &[0x46], OK);
    put(&mut b, 0x60, &[0], OK);
    put(&mut b, 0x68, &[0x00], OK);
    let p = DevstatPage::parse(0x05, &b).unwrap();
    assert_eq!(p.get_i8(0x28), Some(-10));
    let mut d = DeviceStatistics::default();
    d.add_page(&p);
    assert_eq!(d.current_temperature_celsius, Some(35));
    assert_eq!(d.highest_temperature_celsius, Some(70));
    assert_eq!(d.lowest_temperature_celsius, Some(-10));
    assert_eq!(d.over_temperature_seconds, Some(180));
    assert_eq!(d.max_operating_temperature_celsius, Some(70));
    assert_eq!(d.under_temperature_seconds, Some(0));
    assert_eq!(d.min_operating_temperature_celsius, Some(0));
}

#[test]
fn errors_transport_and_ssd_pages() {
    let mut d = DeviceStatistics::default();
    let mut b = page(0x04);
    put(&mut b, 0x08, &[7], OK);
    d.add_page(&DevstatPage::parse(0x04, &b).unwrap());
    let mut b = page(0x06);
    put(&mut b, 0x08, &[2], OK);
    put(&mut b, 0x18, &[0x00, 0x01], OK); // 256 CRC errors
    d.add_page(&DevstatPage::parse(0x06, &b).unwrap());
    let mut b = page(0x07);
    put(&mut b, 0x08, &[3], OK);
    d.add_page(&DevstatPage::parse(0x07, &b).unwrap());
    assert_eq!(d.reported_uncorrectable_errors, Some(7));
    assert_eq!(d.hardware_resets, Some(2));
    assert_eq!(d.interface_crc_errors, Some(256));
    assert_eq!(d.endurance_used_percent, Some(3));
    assert_eq!(d.endurance_used_ratio(), Some(0.03));
    assert_eq!(d.power_on_hours, None);
}

#[test]
fn wrong_or_empty_page_number_is_rejected() {
    let err = DevstatPage::parse(0x01, &page(0x05)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "device statistics: header names page 05h, expected 01h"
    );
    assert!(DevstatPage::parse(0x07, &page(0x00)).is_err());
    assert!(matches!(
        DevstatPage::parse(0x01, &[0u8; 100]),
        Err(ParseError::Length { .. })
    ));
}

#[test]
fn page_list() {
    let mut b = page(0x00);
    b[8] = 5;
    b[9..14].copy_from_slice(&[0x00, 0x01, 0x04, 0x05, 0x07]);
    b[14] = 0x06; // beyond the count: ignored
    assert_eq!(supported_pages(&b).unwrap(), [0, 1, 4, 5, 7]);
    b[8] = 0xFF; // as many as fit: 255 bytes from 9
    assert_eq!(supported_pages(&b).unwrap().len(), 255);
    b[2] = 0x01;
    assert!(supported_pages(&b).is_err());
    assert!(supported_pages(&[]).is_err());
}

#[test]
fn smart_log_path_takes_the_last_sector() {
    let mut buf = vec![0u8; 1024];
    buf[..512].copy_from_slice(&page(0x00));
    buf[512..].copy_from_slice(&general());
    let p = DevstatPage::parse_smart_log(0x01, &buf).unwrap();
    assert_eq!(p.get(0x08), Some(42));
    assert!(DevstatPage::parse_smart_log(0x02, &buf).is_err());
    assert!(DevstatPage::parse_smart_log(0xFF, &buf).is_err());
}

#[test]
fn commands() {
    assert_eq!(
        read_log_ext_command(0x01).cdb(),
        [
            0x85, 0x09, 0x0E, 0x00, 0x00, 0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
            0x2F, 0x00
        ]
    );
    let c = smart_read_log_command(0x07);
    assert_eq!(c.taskfile.count, 8);
    assert_eq!(c.data_len(), 8 * 512);
    assert_eq!(c.cdb()[8], 0x04);
}

/// The layouts' fields sit at the bytes ACS-4 gives: header qword, then
/// qword i at byte 8·i; page 00h's count at 8, its list from 9.
#[test]
fn layout_offsets_are_the_spec_bytes() {
    use std::mem::offset_of;
    assert_eq!(offset_of!(DevstatHeader, page), 2);
    assert_eq!(offset_of!(StatisticsPage, statistics), 8);
    assert_eq!(offset_of!(PageListPage, count), 8);
    assert_eq!(offset_of!(PageListPage, pages), 9);
}

/// Written through the layout, a statistic's value and flags land at the
/// spec's bytes (value low bytes first, flags in byte 7 of its qword).
#[test]
fn layout_writes_land_on_the_spec_bytes() {
    let mut p = StatisticsPage::new(PAGE_TEMPERATURE);
    assert!(p.set(0x58, Statistic::valid_value(70)));
    assert!(p.set(0x08, Statistic::valid_value(0xF6)));
    assert!(!p.set(0x09, Statistic::valid_value(1)));
    assert!(!p.set(0x00, Statistic::valid_value(1)));
    assert!(!p.set(0x200, Statistic::valid_value(1)));
    let b = zerocopy::IntoBytes::as_bytes(&p);
    assert_eq!(&b[..8], &[1, 0, 5, 0, 0, 0, 0, 0]);
    assert_eq!(&b[0x08..0x10], &[0xF6, 0, 0, 0, 0, 0, 0, 0xC0]);
    assert_eq!(&b[0x58..0x60], &[70, 0, 0, 0, 0, 0, 0, 0xC0]);
    let list = PageListPage::new(&[0, 1, 7]);
    let b = zerocopy::IntoBytes::as_bytes(&list);
    assert_eq!(&b[..13], &[1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 7, 0]);
}
