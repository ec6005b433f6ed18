use super::*;

#[test]
fn logfmt_quoting() {
    assert_eq!(quote("nvme0"), "nvme0");
    assert_eq!(quote("two words"), "\"two words\"");
    assert_eq!(quote("a=\"b\"\n"), "\"a=\\\"b\\\"\\n\"");
    assert_eq!(quote(""), "\"\"");
}
