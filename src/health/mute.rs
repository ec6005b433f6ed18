//! Mutes: an operator's "I know" about one drive's problem
//! (`health.overrides[].mute`). A mute names a problem, and may narrow it
//! to one cause and end at a time:
//!
//! - **cause**: where one problem name covers several causes, the one
//!   hidden. A problem says what its causes are ([`Problem::causes`]), and
//!   is muted only while every one of them is: muting a known-bad SATA
//!   attribute (`smart_failed`, cause `5`) leaves the problem raised when
//!   another attribute fails. Which problems take a cause, and of what
//!   kind, is [`ProblemName::cause_kind`].
//! - **until**: the time the mute ends. From then on it mutes nothing,
//!   and until then its end is served (`ssd_health_mute_expiry_timestamp_seconds`)
//!   so that an alert can say a mute is about to end.

use std::fmt;
use std::time::SystemTime;

use super::judgement::{Cause, Problem, ProblemName};

/// A cause for people, in a reason: `attribute 5`.
impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Cause::Attribute(id) => write!(f, "attribute {id}"),
        }
    }
}

/// What a cause of a problem is: the `cause` of a mute is checked and
/// written in this form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CauseKind {
    /// An ATA SMART attribute, by its ID (1-255, decimal: `"5"`).
    AtaAttribute,
}

impl CauseKind {
    pub const ALL: [CauseKind; 1] = [CauseKind::AtaAttribute];

    pub fn as_label(self) -> &'static str {
        match self {
            CauseKind::AtaAttribute => "ata_attribute",
        }
    }

    /// What a `cause` of this kind accepts, for people.
    pub fn accepts(self) -> &'static str {
        match self {
            CauseKind::AtaAttribute => "an ATA attribute ID, 1 to 255 (e.g. \"5\")",
        }
    }

    /// The cause `text` names (`5`, `"05"`), or `None` when it is not one
    /// of this kind. Attribute ID 0 is no attribute (ATA8-ACS's SMART
    /// attribute table marks an unused entry with ID 0).
    pub fn parse(self, text: &str) -> Option<Cause> {
        match self {
            CauseKind::AtaAttribute => {
                let id: u8 = text.trim().parse().ok().filter(|&id| id > 0)?;
                Some(Cause::Attribute(id))
            }
        }
    }
}

impl ProblemName {
    /// What this problem's causes are, where one name covers several and
    /// a mute may hide one of them (`health.overrides[].mute[].cause`);
    /// `None`: one cause, muted whole. A rule that raises the problem names
    /// each cause (`Judge::add_caused`).
    pub fn cause_kind(self) -> Option<CauseKind> {
        match self {
            // The failing attributes of the attribute check.
            ProblemName::SmartFailed
            | ProblemName::AttributeFailingPrefail
            | ProblemName::AttributeFailingOldAge => Some(CauseKind::AtaAttribute),
            _ => None,
        }
    }
}

/// One mute of a drive.
#[derive(Clone, Debug, PartialEq)]
pub struct Mute {
    pub problem: ProblemName,
    /// Only this cause of the problem; `None` = the problem whatever its
    /// causes.
    pub cause: Option<Cause>,
    /// When the mute ends; `None` = never.
    pub until: Option<SystemTime>,
    /// Where it is configured (`health.overrides[0].mute[1]`), for people.
    pub at: String,
}

impl Mute {
    /// A mute of `problem`, every cause, for ever.
    pub fn of(problem: ProblemName) -> Mute {
        Mute {
            problem,
            cause: None,
            until: None,
            at: String::new(),
        }
    }

    /// Whether it mutes at `now`: before its end.
    pub fn in_force(&self, now: SystemTime) -> bool {
        self.until.is_none_or(|u| now < u)
    }
}

/// How much of a problem the mutes in force hide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Muting {
    /// Nothing.
    None,
    /// All of it: a mute of the whole problem, or of each of its causes.
    All,
    /// These of its causes, not the others: the problem stays raised.
    Causes(Vec<Cause>),
}

/// The mutes of one drive, in the order configured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mutes(pub Vec<Mute>);

impl Mutes {
    pub const NONE: Mutes = Mutes(Vec::new());

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Mute> {
        self.0.iter()
    }

    /// Whether any mute names `problem`, in force or not.
    pub fn names(&self, problem: ProblemName) -> bool {
        self.0.iter().any(|m| m.problem == problem)
    }

    /// How much of `p` the mutes in force at `now` hide.
    pub fn muting(&self, p: &Problem, now: SystemTime) -> Muting {
        let of_p: Vec<&Mute> = (self.0.iter())
            .filter(|m| m.problem == p.name && m.in_force(now))
            .collect();
        if of_p.iter().any(|m| m.cause.is_none()) {
            return Muting::All;
        }
        let muted: Vec<Cause> = (p.causes.iter())
            .filter(|&&c| of_p.iter().any(|m| m.cause == Some(c)))
            .copied()
            .collect();
        match muted.len() {
            0 => Muting::None,
            n if n == p.causes.len() => Muting::All,
            _ => Muting::Causes(muted),
        }
    }

    /// Marks `p` muted when the mutes in force at `now` hide all of it;
    /// when they hide only some of its causes it stays raised, its reason
    /// saying which are muted and which not.
    pub fn apply(&self, p: &mut Problem, now: SystemTime) {
        match self.muting(p, now) {
            Muting::None => {}
            Muting::All => p.muted = true,
            Muting::Causes(muted) => {
                let text = |cs: &mut dyn Iterator<Item = &Cause>| {
                    cs.map(Cause::to_string).collect::<Vec<_>>().join(", ")
                };
                let rest = text(&mut p.causes.iter().filter(|c| !muted.contains(c)));
                let muted = text(&mut muted.iter());
                p.reason += &format!("; muted: {muted}, not muted: {rest}");
            }
        }
    }

    /// Per problem, the soonest end of its mutes in force at `now` that
    /// have one (`ssd_health_mute_expiry_timestamp_seconds`), in
    /// [`ProblemName::ALL`] order.
    pub fn expiries(&self, now: SystemTime) -> Vec<(ProblemName, SystemTime)> {
        ProblemName::ALL
            .into_iter()
            .filter_map(|p| {
                (self.0.iter())
                    .filter(|m| m.problem == p && m.in_force(now))
                    .filter_map(|m| m.until)
                    .min()
                    .map(|u| (p, u))
            })
            .collect()
    }

    /// The mutes that have ended by `now`.
    pub fn ended(&self, now: SystemTime) -> impl Iterator<Item = &Mute> {
        self.0.iter().filter(move |m| !m.in_force(now))
    }
}

/// Whole-problem mutes for ever (tests, and what a plain list of names in
/// the config file means).
impl FromIterator<ProblemName> for Mutes {
    fn from_iter<I: IntoIterator<Item = ProblemName>>(iter: I) -> Self {
        Mutes(iter.into_iter().map(Mute::of).collect())
    }
}
