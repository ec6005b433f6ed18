//! The SATA attribute check, made on every poll whatever SMART RETURN
//! STATUS says: an attribute at or below its threshold now is a problem,
//! `attribute_failing_prefail` (critical) for a pre-failure attribute and
//! `attribute_failing_old_age` (warning) for an old-age one, as smartctl
//! prints either as `FAILING_NOW` and smartd reports pre-failure ones by
//! default and usage ones with `-f`. Drives disagree with their own status:
//! one answers "passed" with its life-left attribute at its threshold, and
//! the reason says so. Each problem carries the attributes it is about as
//! [`Cause::Attribute`].

use super::judgement::{Cause, Judge, ProblemName as P, Severity};
use crate::reading::{FailingAttribute, Reading};

/// `231 SSD_Life_Left at 10, threshold 10`.
pub(super) fn attribute_text(a: &FailingAttribute) -> String {
    format!(
        "{} {} at {}, threshold {}",
        a.id, a.name, a.value, a.threshold
    )
}

/// Adds the two attribute problems; lists `attributes` as unknown for a
/// drive with attributes whose thresholds could not be read.
pub(super) fn attributes(r: &Reading, j: &mut Judge) {
    let Some(failing) = r.failing_attributes.as_deref() else {
        if !r.ata_attributes.is_empty() {
            j.unknown("attributes");
        }
        return;
    };
    let passed = r.smart_passed == Some(true) && !r.smart_passed_from_attributes;
    let kinds = [
        (true, P::AttributeFailingPrefail, Severity::Critical),
        (false, P::AttributeFailingOldAge, Severity::Warning),
    ];
    for (prefailure, name, severity) in kinds {
        let these: Vec<&FailingAttribute> = failing
            .iter()
            .filter(|a| a.prefailure == prefailure)
            .collect();
        if these.is_empty() {
            continue;
        }
        let causes = these.iter().map(|a| Cause::Attribute(a.id)).collect();
        j.add_caused(name, severity, reason(&these, prefailure, passed), causes);
    }
}

/// `the drive reports SMART passed, but pre-failure attribute 231
/// SSD_Life_Left at 10, threshold 10: the drive predicts its own failure`:
/// the numbers say it is at or below its threshold.
fn reason(these: &[&FailingAttribute], prefailure: bool, passed: bool) -> String {
    let kind = if prefailure { "pre-failure" } else { "old-age" };
    let noun = match these.len() {
        1 => "attribute",
        _ => "attributes",
    };
    let list: Vec<String> = these.iter().map(|a| attribute_text(a)).collect();
    let meaning = if prefailure {
        "the drive predicts its own failure"
    } else {
        "past the vendor's limit for wear or aging, not a failure prediction"
    };
    let but = if passed {
        "the drive reports SMART passed, but "
    } else {
        ""
    };
    format!("{but}{kind} {noun} {}: {meaning}", list.join("; "))
}

#[cfg(test)]
mod tests;
