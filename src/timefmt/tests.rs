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
