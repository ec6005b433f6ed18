//! `health.overrides[].mute` and `until`: what a drive's override hides,
//! read as written and validated into [`Mutes`]. An item is a problem name
//! (`smart_failed`: the whole problem), or a mapping that narrows it to one
//! cause and gives it its own end:
//!
//! ```yaml
//! until: 2026-03-01                # every mute of the entry ends then
//! mute:
//!   - media_errors_increasing
//!   - {problem: smart_failed, cause: 5, until: 2026-06-01T12:00:00Z}
//! ```
//!
//! A date is `YYYY-MM-DD` (the mute ends at 00:00 UTC that day) or
//! `YYYY-MM-DDTHH:MM:SSZ`. A mute already ended is no error (time passes
//! between two starts): it mutes nothing, and is logged once when a drive's
//! verdict meets it.

use std::fmt;
use std::time::SystemTime;

use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::{ConfigError, invalid};
use crate::health::verdict::{Cause, Mute, Mutes, ProblemName};

/// One item of `mute` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawMute {
    pub problem: Option<String>,
    pub cause: Option<String>,
    pub until: Option<String>,
}

/// The keys of a mute mapping.
const KEYS: [&str; 3] = ["problem", "cause", "until"];

/// A scalar as text: a cause may be written `5` or `"5"`.
struct Text;

impl<'de> Visitor<'de> for Text {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or a number")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
}

struct TextSeed;

impl<'de> de::DeserializeSeed<'de> for TextSeed {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(Text)
    }
}

struct Item;

impl<'de> Visitor<'de> for Item {
    type Value = RawMute;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a problem name, or a mapping of problem, cause and until")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawMute, E> {
        Ok(RawMute {
            problem: Some(v.to_string()),
            ..RawMute::default()
        })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawMute, A::Error> {
        let mut m = RawMute::default();
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "problem" => &mut m.problem,
                "cause" => &mut m.cause,
                "until" => &mut m.until,
                _ => return Err(de::Error::unknown_field(&key, &KEYS)),
            };
            *slot = Some(map.next_value_seed(TextSeed)?);
        }
        Ok(m)
    }
}

impl<'de> serde::Deserialize<'de> for RawMute {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Item)
    }
}

/// What `until` accepts, for errors and the docs.
pub const UNTIL_ACCEPTS: &str =
    "a date, YYYY-MM-DD (the mute ends at 00:00 UTC that day) or YYYY-MM-DDTHH:MM:SSZ";

/// The end `text` names, or an error naming `key`.
pub fn until(key: &str, text: &str) -> Result<SystemTime, ConfigError> {
    crate::timefmt::parse_utc(text).ok_or_else(|| {
        invalid(
            key,
            format!("{text:?} is not accepted; use {UNTIL_ACCEPTS}"),
        )
    })
}

/// The entry `at`'s mutes (`at` = `health.overrides[2]`), each ending at
/// its own `until`, else the entry's (`entry_until`).
pub fn validate(
    at: &str,
    raw: &[RawMute],
    entry_until: Option<SystemTime>,
) -> Result<Mutes, ConfigError> {
    let mut out = Vec::with_capacity(raw.len());
    for (j, item) in raw.iter().enumerate() {
        let here = format!("{at}.mute[{j}]");
        let problem = problem(&here, item)?;
        let cause = match &item.cause {
            None => None,
            Some(c) => Some(cause(&format!("{here}.cause"), problem, c)?),
        };
        let until = match &item.until {
            None => entry_until,
            Some(t) => Some(until(&format!("{here}.until"), t)?),
        };
        out.push(Mute {
            problem,
            cause,
            until,
            at: here,
        });
    }
    Ok(Mutes(out))
}

fn problem(here: &str, item: &RawMute) -> Result<ProblemName, ConfigError> {
    let names = || {
        let all: Vec<&str> = ProblemName::ALL.iter().map(|p| p.as_label()).collect();
        all.join(", ")
    };
    let Some(name) = &item.problem else {
        return Err(invalid(
            here,
            format!("names no problem; give problem: one of {}", names()),
        ));
    };
    // A plain item's error is the item's; a mapping's, its `problem` key's.
    let key = match (&item.cause, &item.until) {
        (None, None) => here.to_string(),
        _ => format!("{here}.problem"),
    };
    ProblemName::from_label(name).ok_or_else(|| {
        invalid(
            &key,
            format!("{name:?} is not a problem name; use one of {}", names()),
        )
    })
}

fn cause(key: &str, problem: ProblemName, text: &str) -> Result<Cause, ConfigError> {
    let Some(kind) = problem.cause_kind() else {
        let caused: Vec<String> = (ProblemName::ALL.iter())
            .filter_map(|p| Some(format!("{p} ({})", p.cause_kind()?.accepts())))
            .collect();
        return Err(invalid(
            key,
            format!(
                "{problem} has one cause and is muted whole; leave cause out (the problems that take one: {})",
                caused.join(", ")
            ),
        ));
    };
    kind.parse(text).ok_or_else(|| {
        invalid(
            key,
            format!(
                "{text:?} is not accepted for {problem}; use {}",
                kind.accepts()
            ),
        )
    })
}
