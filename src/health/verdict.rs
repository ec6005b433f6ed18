//! The health verdict: `ssd_health_status` and one `ssd_health_problem` per
//! problem (`shared/reference/metrics.md`), judged from the unified reading,
//! what the exporter saw before ([`History`]) and what the caller knows
//! besides (poll state, PLP, measured latency).
//!
//! Two principles, both from users' complaints about other tools
//! (`shared/reference/peers.md`, pain point 11):
//! - a counter is "increasing" only if it rose while the exporter watched,
//!   so an old, static media-error count never reads as a failing drive;
//! - missing data is never read as good: what cannot be judged is listed in
//!   [`Verdict::unknown`], and a drive without its core health data gets a
//!   `data_missing` warning rather than `ok`.
//!
//! A device the verdict cannot judge ([`Context::not_judged`]: a virtual
//! volume, a LUN) is watched only for whether its poll succeeds: every
//! aspect is unknown and its status is "not judged" ([`Status::NotJudged`]),
//! never ok and never critical.

use std::time::SystemTime;

use super::history::History;
pub use super::judgement::{
    Cause, Context, MUTED, Problem, ProblemName, Severity, Status, Verdict,
};
use super::judgement::{Judge, ProblemName as P};
pub use super::mute::{CauseKind, Mute, Mutes};
pub use super::rules::Rules;
use super::verdict_nvme::nvme;
use super::verdict_rules::{
    counters, latency, plp, self_test, spare, status, temperature, throttling, wear,
};
use crate::reading::Reading;
/// Judges one drive. Record the reading into `history` before calling, so
/// that the newest poll counts.
pub fn evaluate(
    reading: Option<&Reading>,
    history: &History,
    ctx: &Context,
    rules: &Rules,
    now: SystemTime,
) -> Verdict {
    let mut j = Judge::default();
    if ctx.polled && !ctx.up {
        let why = ctx.last_error.unwrap_or("no error message");
        let stale = if reading.is_some() {
            "; the verdict uses the last values read"
        } else {
            "; no reading yet"
        };
        j.add(
            P::PollFailing,
            Severity::Warning,
            format!("the last poll failed ({why}){stale}"),
        );
    }
    match reading {
        // Not a drive: its temperature, wear and spare (if it has any) are
        // the controller's, the host's or the array's. Nothing of it is
        // judged, and it says so.
        _ if ctx.not_judged.is_some() => {
            j.unknown = ALL.to_vec();
            j.not_judged = ctx.not_judged.map(str::to_string);
        }
        None => {
            let why = if ctx.polled {
                "no poll has returned health data for this drive"
            } else {
                "this drive has not been polled yet"
            };
            j.add(P::DataMissing, Severity::Warning, why.to_string());
            j.unknown = ALL.to_vec();
        }
        Some(r) => {
            status(r, &mut j);
            super::attribute_rules::attributes(r, &mut j);
            wear(r, rules, &mut j);
            spare(r, rules, &mut j);
            plp(r, ctx, rules, &mut j);
            temperature(r, &mut j);
            counters(r, history, ctx, &mut j);
            throttling(r, history, rules, now, &mut j);
            self_test(r, &mut j);
            super::pcie_rules::pcie(r, history, &mut j);
            nvme(r, history, &mut j);
        }
    }
    if rules.latency_qos && ctx.not_judged.is_none() {
        latency(ctx, &mut j);
    }
    j.finish(|p| rules.mute.apply(p, now))
}

/// Every judged aspect, for when nothing is known.
const ALL: [&str; 8] = [
    "smart_status",
    "wear",
    "spare",
    "temperature",
    "media_errors",
    "unsafe_shutdowns",
    "throttling",
    "plp",
];

/// The verdict on `r` alone (no history before it) for a drive that is up
/// and polled, with `ctx`'s other fields and the default rules: for tests
/// elsewhere in the crate that judge one decoded reading.
#[cfg(test)]
pub(crate) fn judge_up(r: &Reading, ctx: Context) -> Verdict {
    let ctx = Context {
        up: true,
        polled: true,
        ..ctx
    };
    evaluate(
        Some(r),
        &History::new(None),
        &ctx,
        &Rules::default(),
        SystemTime::now(),
    )
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod not_judged_tests;

#[cfg(test)]
mod mute_tests;
