use super::*;
use std::time::Duration;

#[test]
fn known_instants() {
    assert_eq!(utc_millis(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    // `date -u -d @951782400` = 2000-02-29 00:00:00 (a leap day).
    let t = UNIX_EPOCH + Duration::from_millis(951_782_400_123);
    assert_eq!(utc_millis(t), "2000-02-29T00:00:00.123Z");
    // `date -u -d @1796000000` = 2026-11-30 00:53:20.
    assert_eq!(
        utc_seconds(UNIX_EPOCH + Duration::from_secs(1_796_000_000)),
        "2026-11-30T00:53:20Z"
    );
    // `date -u -d @-86400` = 1969-12-31 00:00:00.
    assert_eq!(
        utc_seconds(UNIX_EPOCH - Duration::from_secs(86_400)),
        "1969-12-31T00:00:00Z"
    );
}

/// The config's date form, against `date -u -d … +%s`.
#[test]
fn dates_and_instants_parse_as_utc() {
    let at = |s| parse_utc(s).map(|t| t.duration_since(UNIX_EPOCH).unwrap().as_secs());
    // `date -u -d 2026-03-01 +%s` = 1772323200.
    assert_eq!(at("2026-03-01"), Some(1_772_323_200));
    // `date -u -d 2000-02-29T12:30:15Z +%s` = 951827415 (a leap day).
    assert_eq!(at("2000-02-29T12:30:15Z"), Some(951_827_415));
    assert_eq!(at("1970-01-01"), Some(0));
    // `date -u -d 2100-12-31T23:59:59Z +%s` = 4133980799.
    assert_eq!(at("2100-12-31T23:59:59Z"), Some(4_133_980_799));
    for bad in [
        "2026-02-29",
        "1900-02-29",
        "2026-13-01",
        "2026-00-10",
        "2026-1-5",
        "2026-03-01T12:00:00",
        "2026-03-01T12:00:00+01:00",
        "2026-03-01T24:00:00Z",
        "1969-12-31",
        "tomorrow",
        "",
    ] {
        assert_eq!(parse_utc(bad), None, "{bad}");
    }
    // Round trip through the writer.
    let t = parse_utc("2031-07-04T08:09:10Z").unwrap();
    assert_eq!(utc_seconds(t), "2031-07-04T08:09:10Z");
}
