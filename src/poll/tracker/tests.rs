use super::*;

#[test]
fn unsupported_until_rechecked_and_mandatory_pages_never() {
    let mut t = Tracker::new("/dev/x".into());
    let mut out = PollOutcome::default();
    t.unsupported(&mut out, Source::OcpLog, "Invalid Log Page");
    assert!(t.is_unsupported(Source::OcpLog) && out.errors.is_empty());
    assert_eq!(t.beliefs(), [(Source::OcpLog, false)]);
    t.recheck();
    assert!(!t.is_unsupported(Source::OcpLog));
    assert!(t.beliefs().is_empty());
    t.unsupported(&mut out, Source::SmartLog, "Invalid Log Page");
    assert!(!t.is_unsupported(Source::SmartLog));
    assert_eq!(out.errors.len(), 1);
    assert_eq!(out.errors[0].source, Source::SmartLog);
    assert_eq!(t.beliefs(), [(Source::SmartLog, true)]);
}
