use super::*;

#[test]
fn strings_join_and_unescape() {
    let text = "{ \"a\" \"b\\\"c\\n\\101\\x42\", // c\n \"m\", \"\", \"\", \"\" }";
    let toks = tokenize(text).unwrap();
    assert_eq!(toks[1].text, "ab\"c\nAB");
    let (db, errors) = DriveDb::parse(text);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(db.entries[0].family, "ab\"c\nAB");
}

#[test]
fn preprocessor_and_block_comments_are_skipped() {
    let text = "#define X { \"no\", \"no\", \"\", \"\", \"\" }\n/* { \"no\", \"x\", \"\", \"\", \"\" } */\n\
                const drive_settings t[] = {\n { \"yes\", \"Y\", \"\", \"\", \"\" },\n};\n";
    let (db, errors) = DriveDb::parse(text);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(db.entries.len(), 1);
    assert_eq!(db.entries[0].family, "yes");
}

#[test]
fn malformed_entry_reported_and_skipped() {
    let text = "{ \"short\", \"S\" }\n{ \"ok\", \"OK\", \"\", \"\", \"\", }";
    let (db, errors) = DriveDb::parse(text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("line 1"));
    assert_eq!(db.entries.len(), 1);
}

#[test]
fn anchored_full_match() {
    let re = compile_full("A|B").unwrap();
    assert!(re.is_match("A") && re.is_match("B"));
    assert!(!re.is_match("AB") && !re.is_match("xA"));
    assert!(compile_full("").is_err());
    assert!(compile_full("(").is_err());
}
