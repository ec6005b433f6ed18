use super::*;

#[test]
fn id_format_name() {
    let p = parse_v("170,raw24/raw24:z54z10,Bad_Blk_Ct_Lat/Erl", false).unwrap();
    assert_eq!(p.id, Some(170));
    assert_eq!(p.format, RawFormat::Raw24Raw24);
    assert_eq!(p.order.as_ref().map(ByteOrder::as_str), Some("z54z10"));
    assert_eq!(p.name.as_deref(), Some("Bad_Blk_Ct_Lat/Erl"));
}

#[test]
fn format_without_name_keeps_default_name() {
    let p = parse_v("9,raw64", false).unwrap();
    assert_eq!((p.id, p.format, p.name), (Some(9), RawFormat::Raw64, None));
}

#[test]
fn media_suffix_only_in_default() {
    assert_eq!(
        parse_v("7,raw48,Seek_Error_Rate,HDD", true).unwrap().only,
        Some(Media::Hdd)
    );
    assert!(parse_v("7,raw48,Seek_Error_Rate,HDD", false).is_err());
    assert!(parse_v("7,raw48,Seek_Error_Rate,XYZ", true).is_err());
}

#[test]
fn all_attributes_and_old_spelling() {
    let p = parse_v("N,raw48,Foo", false).unwrap();
    assert_eq!(p.id, None);
    let p = parse_v("9,minutes", false).unwrap();
    assert_eq!(
        (p.format, p.name.as_deref()),
        (RawFormat::Min2Hour, Some("Power_On_Minutes"))
    );
    assert_eq!(
        parse_v("197,increasing", false).unwrap().name.as_deref(),
        Some("Total_Pending_Sectors")
    );
}

#[test]
fn rejects_malformed() {
    for bad in [
        "0,raw48,X",
        "256,raw48,X",
        "9",
        "9,",
        "9,raw99,X",
        "9,raw48:xyz,X",
        "x,raw48",
        "9,raw48,A,B",
    ] {
        assert!(parse_v(bad, false).is_err(), "{bad}");
    }
    assert!(
        parse_v("9,raw48:543210,X", true).is_err(),
        "byte order in DEFAULT"
    );
    assert!(parse_v(&format!("9,raw48,{}", "N".repeat(33)), false).is_err());
}

#[test]
fn options_string() {
    let p = parse_presets("-v 1,raw48,A -F xerrorlba -v 2,hex48,B", false).unwrap();
    assert_eq!(p.len(), 2);
    assert!(parse_presets("-v", false).is_err());
    assert!(parse_presets("-q x", false).is_err());
    assert!(parse_presets("", false).unwrap().is_empty());
}
