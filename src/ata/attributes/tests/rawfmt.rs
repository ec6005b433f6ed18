use proptest::prelude::*;

use crate::ata::attributes::rawfmt::{AttrBytes, ByteOrder, RawFormat, decode, decode_bytes};

fn d(f: RawFormat, raw: [u8; 6]) -> (i128, String) {
    let x = decode(&f, raw, 0);
    (x.value, x.text)
}

fn with_order(f: RawFormat, order: &str, raw: [u8; 6]) -> crate::ata::attributes::Decoded {
    let o = ByteOrder::parse(order).expect("valid order");
    decode_bytes(
        f,
        Some(&o),
        &AttrBytes {
            raw,
            ..AttrBytes::default()
        },
    )
}

#[test]
fn raw48_little_endian() {
    assert_eq!(
        d(RawFormat::Raw48, [0x10, 0x27, 0, 0, 0, 0]),
        (10000, "10000".into())
    );
    assert_eq!(
        d(RawFormat::Hex48, [0x10, 0x27, 0, 0, 0, 0]).1,
        "0x000000002710"
    );
}

#[test]
fn raw8_and_raw16_print_high_to_low() {
    assert_eq!(d(RawFormat::Raw8, [1, 2, 3, 4, 5, 6]).1, "6 5 4 3 2 1");
    assert_eq!(d(RawFormat::Raw16, [1, 0, 2, 0, 3, 0]).1, "3 2 1");
}

#[test]
fn reserved_byte_tops_56_bit_formats() {
    // r543210: reserved 1 above raw 1 -> 2^48 + 1.
    assert_eq!(
        decode(&RawFormat::Raw56, [1, 0, 0, 0, 0, 0], 1).value,
        281_474_976_710_657
    );
    assert_eq!(
        decode(&RawFormat::Hex56, [1, 0, 0, 0, 0, 0], 0xab).text,
        "0xab000000000001"
    );
}

#[test]
fn raw64_takes_worst_and_normalized_bytes() {
    // 543210wv: raw 1, worst 1, current 100 -> 1<<16 | 1<<8 | 100 = 65892.
    let b = AttrBytes {
        raw: [1, 0, 0, 0, 0, 0],
        reserved: 0,
        current: 100,
        worst: 1,
    };
    let x = decode_bytes(RawFormat::Raw64, None, &b);
    assert_eq!((x.value, x.text.as_str()), (65892, "65892"));
}

#[test]
fn tempminmax_layouts() {
    // 00 00 HH LL xx TT (Samsung, Seagate, ...)
    let x = decode(&RawFormat::TempMinMax, [35, 0, 20, 45, 0, 0], 0);
    assert_eq!(
        (x.value, x.text.as_str(), x.second, x.third),
        (35, "35 (Min/Max 20/45)", Some(20), Some(45))
    );
    // xx LL xx HH xx TT (Kingston)
    assert_eq!(
        d(RawFormat::TempMinMax, [35, 0, 45, 0, 20, 0]).1,
        "35 (Min/Max 20/45)"
    );
    // 00 00 00 HH LL TT (WDC): word 0 = 35 + 20*256 is no temperature word
    assert_eq!(
        d(RawFormat::TempMinMax, [35, 20, 45, 0, 0, 0]).1,
        "35 (Min/Max 20/45)"
    );
    // CC CC HH LL xx TT with over-temperature count 5
    assert_eq!(
        d(RawFormat::TempMinMax, [30, 0, 25, 50, 5, 0]).1,
        "30 (Min/Max 25/50 #5)"
    );
    assert_eq!(
        d(RawFormat::TempMinMax, [35, 0, 0, 0, 0, 0]),
        (35, "35".into())
    );
    // -10 as a sign-extended word
    assert_eq!(
        d(RawFormat::TempMinMax, [0xf6, 0xff, 0, 0, 0, 0]),
        (-10, "-10".into())
    );
    // nothing plausible: byte 0 unsigned, then bytes 5..1
    assert_eq!(
        d(RawFormat::TempMinMax, [200, 1, 2, 3, 4, 5]).1,
        "200 (5 4 3 2 1)"
    );
}

#[test]
fn temp10x() {
    assert_eq!(
        d(RawFormat::Temp10x, [253, 0, 0, 0, 0, 0]),
        (25, "25.3".into())
    );
}

#[test]
fn raw24_raw8_power_on_hours() {
    assert_eq!(
        d(RawFormat::Raw24Raw8, [0xd2, 0x04, 0, 0, 0, 0]),
        (1234, "1234".into())
    );
    assert_eq!(
        d(RawFormat::Raw24Raw8, [0xd2, 0x04, 0, 0, 5, 0]),
        (1234, "1234 (0 5 0)".into())
    );
}

#[test]
fn raw16_pairs() {
    assert_eq!(
        d(RawFormat::Raw16Raw16, [5, 0, 1, 0, 2, 0]),
        (5, "5 (2 1)".into())
    );
    assert_eq!(d(RawFormat::Raw16Raw16, [5, 0, 0, 0, 0, 0]).1, "5");
    let x = decode(&RawFormat::Raw16Avg16, [135, 0, 85, 0, 0, 0], 0);
    assert_eq!(
        (x.value, x.text.as_str(), x.second),
        (135, "135 (Average 85)", Some(85))
    );
    assert_eq!(d(RawFormat::Raw16Avg16, [135, 0, 0, 0, 9, 0]).1, "135");
}

#[test]
fn raw24_ratios_and_byte_orders() {
    assert_eq!(d(RawFormat::Raw24Raw24, [1, 0, 0, 2, 0, 0]).1, "2/1");
    // Phison 170, z54z10: bytes 5,4 over bytes 1,0.
    assert_eq!(
        with_order(RawFormat::Raw24Raw24, "z54z10", [9, 0, 0, 0, 0, 0]).text,
        "0/9"
    );
    let x = with_order(
        RawFormat::Raw24Raw24,
        "z54z10",
        [0x02, 0x01, 0xee, 0xee, 0x04, 0x01],
    );
    assert_eq!(
        (x.value, x.second, x.text.as_str()),
        (260, Some(258), "260/258")
    );
    // Intel 234, 04321: byte 0 over bytes 4..1.
    let x = with_order(RawFormat::Raw24Raw32, "04321", [5, 3, 0, 0, 0, 0xff]);
    assert_eq!((x.value, x.second, x.text.as_str()), (5, Some(3), "5/3"));
}

#[test]
fn time_formats() {
    assert_eq!(
        d(RawFormat::Min2Hour, [125, 0, 0, 0, 0, 0]),
        (2, "2h+05m".into())
    );
    assert_eq!(d(RawFormat::Min2Hour, [125, 0, 0, 0, 7, 0]).1, "2h+05m (7)");
    assert_eq!(
        d(RawFormat::Sec2Hour, [0x8d, 0x0e, 0, 0, 0, 0]),
        (1, "1h+02m+05s".into())
    );
    assert_eq!(
        d(RawFormat::HalfMin2Hour, [245, 0, 0, 0, 0, 0]),
        (2, "2h+02m".into())
    );
    // 1000 h, 61500 ms in bytes 4..5
    assert_eq!(
        d(RawFormat::Msec24Hour32, [0xe8, 0x03, 0, 0, 0x3c, 0xf0]),
        (1000, "1000h+01m+01.500s".into())
    );
}

#[test]
fn format_names_round_trip() {
    for name in [
        "raw8",
        "raw16",
        "raw48",
        "hex48",
        "raw56",
        "hex56",
        "raw64",
        "hex64",
        "raw16(raw16)",
        "raw16(avg16)",
        "raw24(raw8)",
        "raw24/raw24",
        "raw24/raw32",
        "sec2hour",
        "min2hour",
        "halfmin2hour",
        "msec24hour32",
        "tempminmax",
        "temp10x",
    ] {
        assert_eq!(RawFormat::from_name(name).map(RawFormat::name), Some(name));
    }
    assert_eq!(RawFormat::from_name("raw24opt"), None);
}

const ALL: [&str; 19] = [
    "raw8",
    "raw16",
    "raw48",
    "hex48",
    "raw56",
    "hex56",
    "raw64",
    "hex64",
    "raw16(raw16)",
    "raw16(avg16)",
    "raw24(raw8)",
    "raw24/raw24",
    "raw24/raw32",
    "sec2hour",
    "min2hour",
    "halfmin2hour",
    "msec24hour32",
    "tempminmax",
    "temp10x",
];

proptest! {
    #[test]
    fn decode_never_panics(f in 0usize..19, raw in any::<[u8; 6]>(), r in any::<u8>(), cur in any::<u8>(),
                           worst in any::<u8>(), order in "[012345rvwz]{0,8}") {
        let format = RawFormat::from_name(ALL[f]).unwrap();
        let o = ByteOrder::parse(&order);
        let x = decode_bytes(format, o.as_ref(), &AttrBytes { raw, reserved: r, current: cur, worst });
        prop_assert!(!x.text.is_empty());
        let _ = decode(&format, raw, r);
    }
}
