use super::*;

#[test]
fn labels_are_the_metric_contract() {
    // metrics.md: op="read|write|flush", result="ok|error|timeout".
    let ops: Vec<_> = ProbeOp::ALL.iter().map(|o| o.as_label()).collect();
    assert_eq!(ops, ["read", "write", "flush"]);
    let results: Vec<_> = IoResult::ALL.iter().map(|r| r.as_label()).collect();
    assert_eq!(results, ["ok", "error", "timeout"]);
}

#[test]
fn counts_index_by_result() {
    let mut c = IoCounts::default();
    c.add(IoResult::Timeout);
    c.add(IoResult::Timeout);
    c.add(IoResult::Ok);
    assert_eq!(c.get(IoResult::Ok), 1);
    assert_eq!(c.get(IoResult::Error), 0);
    assert_eq!(c.get(IoResult::Timeout), 2);
    let all: Vec<_> = c.iter().collect();
    assert_eq!(
        all,
        [
            (IoResult::Ok, 1),
            (IoResult::Error, 0),
            (IoResult::Timeout, 2)
        ]
    );
}
