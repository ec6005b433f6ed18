use std::time::{Duration, SystemTime};

use zerocopy::IntoBytes;

use crate::health::history::History;
use crate::health::verdict::{Context, ProblemName, Rules, Severity, Verdict, evaluate};
use crate::nvme::ocp::OcpSmartLogPage;
use crate::nvme::telemetry::TelemetryHeaderPage;
use crate::nvme::{OcpSmartLog, TelemetryCtrlHeader};
use crate::reading::Reading;
use crate::reading::nvme_depth::NvmeReading;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

/// An OCP page of log page version `version` with the die counts.
fn ocp(version: u16, offline: u16, tolerance: u16) -> OcpSmartLog {
    let mut p = OcpSmartLogPage::new();
    p.log_page_version = version.into();
    p.total_media_dies = 64.into();
    p.total_die_failure_tolerance = tolerance.into();
    p.media_dies_offline = offline.into();
    OcpSmartLog::parse(p.as_bytes()).unwrap()
}

fn telemetry(generation: u8) -> TelemetryCtrlHeader {
    let mut p = TelemetryHeaderPage::new();
    p.ctrldgn = generation;
    p.ctrlavail = 1;
    TelemetryCtrlHeader::parse(p.as_bytes()).unwrap()
}

fn with(nvme: NvmeReading) -> Reading {
    Reading {
        nvme: Some(nvme),
        ..Reading::default()
    }
}

fn judge(readings: &[Reading]) -> Verdict {
    let mut h = History::new(None);
    for (i, r) in readings.iter().enumerate() {
        h.record(at(T0 + i as u64 * 3600), r);
    }
    let ctx = Context {
        up: true,
        polled: true,
        ..Context::default()
    };
    evaluate(readings.last(), &h, &ctx, &Rules::default(), at(T0))
}

fn problem(v: &Verdict, name: &str) -> Option<Severity> {
    v.problems
        .iter()
        .find(|p| p.name.as_label() == name)
        .map(|p| p.severity)
}

#[test]
fn dies_offline_reaching_the_tolerance_is_critical() {
    let dies = |version, offline, tolerance| {
        let r = with(NvmeReading {
            ocp: Some(ocp(version, offline, tolerance)),
            ..NvmeReading::default()
        });
        problem(&judge(&[r]), "media_dies_offline")
    };
    assert_eq!(dies(5, 2, 2), Some(Severity::Critical));
    assert_eq!(dies(5, 3, 2), Some(Severity::Critical));
    assert_eq!(dies(5, 1, 2), None); // within what it was built to survive
    assert_eq!(dies(5, 0, 0), None); // no die lost
    assert_eq!(dies(5, 1, 0), Some(Severity::Critical));
    // before version 5 those bytes are reserved: nothing to judge
    assert_eq!(dies(4, 2, 2), None);
}

#[test]
fn a_new_telemetry_generation_while_watched_is_a_warning() {
    let at_gen = |g| {
        with(NvmeReading {
            telemetry: Some(telemetry(g)),
            ..NvmeReading::default()
        })
    };
    // a drive seen with generation 4 from the start: no capture watched
    assert_eq!(
        problem(
            &judge(&[at_gen(4), at_gen(4)]),
            "drive_reported_internal_error"
        ),
        None
    );
    let v = judge(&[at_gen(4), at_gen(5)]);
    assert_eq!(
        problem(&v, "drive_reported_internal_error"),
        Some(Severity::Warning)
    );
    let p = v
        .problems
        .iter()
        .find(|p| p.name == ProblemName::DriveReportedInternalError)
        .unwrap();
    assert!(
        p.reason.contains("1 time(s) since 2026-12-01T00:00:00Z"),
        "{}",
        p.reason
    );
    // the 8-bit counter wraps: 255 → 1 is two captures
    let v = judge(&[at_gen(255), at_gen(1)]);
    let p = v
        .problems
        .iter()
        .find(|p| p.name == ProblemName::DriveReportedInternalError)
        .unwrap();
    assert!(p.reason.contains("2 time(s)"), "{}", p.reason);
}
