//! The vocabulary of the health verdict: severities, problems, the
//! thresholds, what the caller knows besides the reading, and the
//! [`Judge`] that collects problems. The rules (`verdict_rules`) and the
//! verdict (`verdict::evaluate`) both build on it; it names neither.

use crate::probe::op::ProbeOp;

/// How bad; the value is `ssd_health_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Ok = 0,
    Warning = 1,
    Critical = 2,
}

impl Severity {
    /// The `severity` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// Declares [`ProblemName`], its `ALL` (in this order) and its labels from
/// one table, so a problem's name and label are written once.
macro_rules! problem_names {
    ($($variant:ident => $label:literal,)*) => {
        /// Every problem the verdict can raise: the `problem` label of
        /// `ssd_health_problem` (names from metrics.md), and what
        /// `health.overrides[].mute` accepts.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ProblemName {
            $($variant,)*
        }

        impl ProblemName {
            pub const ALL: [ProblemName; [$(ProblemName::$variant),*].len()] =
                [$(ProblemName::$variant),*];

            /// The `problem` label value.
            pub fn as_label(self) -> &'static str {
                match self {
                    $(ProblemName::$variant => $label,)*
                }
            }
        }
    };
}

problem_names! {
    SpareBelowThreshold => "spare_below_threshold",
    ReliabilityDegraded => "reliability_degraded",
    ReadOnly => "read_only",
    PlpFailed => "plp_failed",
    SmartFailed => "smart_failed",
    AttributeFailingPrefail => "attribute_failing_prefail",
    WearOut => "wear_out",
    PlpHealthLow => "plp_health_low",
    TemperatureAboveCritical => "temperature_above_critical",
    MediaErrorsIncreasing => "media_errors_increasing",
    SelfTestFailed => "self_test_failed",
    MediaDiesOffline => "media_dies_offline",
    WearHigh => "wear_high",
    SpareLow => "spare_low",
    AttributeFailingOldAge => "attribute_failing_old_age",
    UnsafeShutdownsIncreasing => "unsafe_shutdowns_increasing",
    ThermalThrottling => "thermal_throttling",
    TemperatureAboveWarning => "temperature_above_warning",
    CrcErrorsIncreasing => "crc_errors_increasing",
    GrownDefectsIncreasing => "grown_defects_increasing",
    PhyErrorsIncreasing => "phy_errors_increasing",
    DriveReportedWarning => "drive_reported_warning",
    PcieLinkDegraded => "pcie_link_degraded",
    PcieErrorsIncreasing => "pcie_errors_increasing",
    DriveReportedInternalError => "drive_reported_internal_error",
    LatencyAboveQos => "latency_above_qos",
    PollFailing => "poll_failing",
    DataMissing => "data_missing",
}

impl ProblemName {
    /// The problem a label names (what a config file gives).
    pub fn from_label(label: &str) -> Option<ProblemName> {
        Self::ALL.into_iter().find(|p| p.as_label() == label)
    }
}

impl std::fmt::Display for ProblemName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_label())
    }
}

/// The `severity` label of a muted problem: it is served, so nothing
/// disappears silently, but it does not raise `ssd_health_status`.
pub const MUTED: &str = "muted";

/// What a problem is about, where it names one part of the drive: the
/// structured form of what its reason says in words, for whatever needs to
/// tell two causes of one problem apart (a mute of one attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cause {
    /// A SATA SMART attribute, by id.
    Attribute(u8),
}

/// One active problem: a `ssd_health_problem{problem,severity}` series.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub name: ProblemName,
    /// What the rule judged it, muted or not.
    pub severity: Severity,
    /// Muted for this drive (`health.overrides[].mute`): served with
    /// `severity="muted"`, and left out of the verdict's status.
    pub muted: bool,
    /// One sentence for people, with the numbers that tripped the rule.
    pub reason: String,
    /// What it is about, in the order the reason names them; empty where
    /// the problem is about the drive as a whole.
    pub causes: Vec<Cause>,
}

/// The verdict as one word and one value, the same everywhere: the value
/// of `ssd_health_status`, the word in `check` (whose exit code it is, the
/// Nagios way) and on the landing page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    Warning = 1,
    Critical = 2,
    /// The drive's core health data could not be read (`data_missing`)
    /// and nothing known is critical: neither good nor a mere warning.
    Unknown = 3,
    /// Not a device the verdict can judge ([`Verdict::not_judged`] says
    /// why and where to look): never shown as ok, never critical, and left
    /// out of `check`'s exit code. A poll that fails still warns.
    NotJudged = 4,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Ok,
        Status::Warning,
        Status::Critical,
        Status::Unknown,
        Status::NotJudged,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warning => "warning",
            Status::Critical => "critical",
            Status::Unknown => "unknown",
            Status::NotJudged => "not judged",
        }
    }
}

impl Problem {
    /// The `severity` label: the severity, or [`MUTED`].
    pub fn severity_label(&self) -> &'static str {
        match self.muted {
            true => MUTED,
            false => self.severity.as_str(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The worst problem's severity, muted ones aside; `Ok` when there is
    /// none.
    pub status: Severity,
    /// Worst first, then by name, the muted ones last; at most one per
    /// name.
    pub problems: Vec<Problem>,
    /// What could not be judged for lack of data: `smart_status`, `wear`,
    /// `spare`, `temperature`, `media_errors`, `unsafe_shutdowns`,
    /// `throttling`, `plp`; all of them for a device not judged.
    pub unknown: Vec<&'static str>,
    /// Why the device is not judged at all, and where to look instead
    /// ([`Context::not_judged`]); `None` for a judged drive.
    pub not_judged: Option<String>,
}

impl Verdict {
    /// The one status of the drive: its worst problem's severity, except
    /// that without its core health data it is [`Status::Unknown`] unless
    /// something known is critical, and a device not judged with no
    /// problem (its poll works) is [`Status::NotJudged`], not ok.
    pub fn overall(&self) -> Status {
        // A muted data_missing is the operator's: it does not make the
        // drive unknown.
        let no_data =
            (self.problems.iter()).any(|p| p.name == ProblemName::DataMissing && !p.muted);
        match self.status {
            Severity::Critical => Status::Critical,
            _ if no_data => Status::Unknown,
            Severity::Warning => Status::Warning,
            Severity::Ok if self.not_judged.is_some() => Status::NotJudged,
            Severity::Ok => Status::Ok,
        }
    }
}

/// Everything a verdict needs besides the reading.
#[derive(Clone, Debug, Default)]
pub struct Context<'a> {
    /// Whether the last poll read and decoded the core health page.
    pub up: bool,
    /// Whether the drive has been polled at least once.
    pub polled: bool,
    pub last_error: Option<&'a str>,
    /// Whether the drive has power-loss protection; see
    /// [`super::datasheet::has_plp`].
    pub has_plp: Option<bool>,
    /// `(op, measured seconds, datasheet target seconds)`; only entries
    /// with measured > target count.
    pub latency_over_qos: Vec<(ProbeOp, f64, f64)>,
    /// Why the verdict cannot judge this device at all, with where to look
    /// instead: a virtual volume or a LUN (`Kind::not_judged_because`),
    /// or any device whose health the exporter cannot read. Such a device
    /// is watched for its identity and whether it answers: everything is
    /// listed as unknown, and nothing but a failing poll is a problem.
    pub not_judged: Option<&'a str>,
}

/// Problems found so far.
#[derive(Default)]
pub(super) struct Judge {
    pub(super) problems: Vec<Problem>,
    pub(super) unknown: Vec<&'static str>,
    pub(super) not_judged: Option<String>,
}

impl Judge {
    /// Adds a problem; a second one of the same name only raises the
    /// severity (one series per name), its reason giving way to the first.
    pub(super) fn add(&mut self, name: ProblemName, severity: Severity, reason: String) {
        self.add_caused(name, severity, reason, Vec::new());
    }

    /// [`Judge::add`] with what the problem is about; a second one of the
    /// same name adds the causes the first did not have.
    pub(super) fn add_caused(
        &mut self,
        name: ProblemName,
        severity: Severity,
        reason: String,
        causes: Vec<Cause>,
    ) {
        match self.problems.iter_mut().find(|p| p.name == name) {
            Some(p) => {
                p.severity = p.severity.max(severity);
                for c in causes {
                    if !p.causes.contains(&c) {
                        p.causes.push(c);
                    }
                }
            }
            None => self.problems.push(Problem {
                name,
                severity,
                muted: false,
                reason,
                causes,
            }),
        }
    }

    pub(super) fn unknown(&mut self, what: &'static str) {
        if !self.unknown.contains(&what) {
            self.unknown.push(what);
        }
    }

    /// The verdict, each problem first shown to `mute` (which marks what
    /// the operator muted).
    pub(super) fn finish(mut self, mut mute: impl FnMut(&mut Problem)) -> Verdict {
        for p in &mut self.problems {
            mute(p);
        }
        self.problems.sort_by(|a, b| {
            (a.muted.cmp(&b.muted))
                .then(b.severity.cmp(&a.severity))
                .then(a.name.as_label().cmp(b.name.as_label()))
        });
        Verdict {
            status: self
                .problems
                .iter()
                .filter(|p| !p.muted)
                .map(|p| p.severity)
                .max()
                .unwrap_or(Severity::Ok),
            problems: self.problems,
            unknown: self.unknown,
            not_judged: self.not_judged,
        }
    }
}
