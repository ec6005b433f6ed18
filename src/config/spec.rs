//! What a configuration key accepts: its default, its bound and its value
//! check, as one typed descriptor ([`Key`]). The key table (`keys.rs`)
//! holds one per key; validation, the error text and the reference table row all
//! read the same descriptor, so a default or a bound is written once.

use std::time::Duration;

use clap::builder::{Resettable, ValueRange};
use regex::{Regex, RegexBuilder};

use super::{ConfigError, format_duration, invalid, parse_duration};

/// One configuration key: its dotted YAML name, its flag (without `--`;
/// `None` = file only), what it means, and what it accepts.
#[derive(Debug)]
pub struct Key<S> {
    pub name: &'static str,
    pub flag: Option<&'static str>,
    pub meaning: &'static str,
    pub spec: S,
}

/// A key as the reference table (docs/configuration.md) shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDoc {
    pub name: &'static str,
    pub flag: Option<&'static str>,
    pub meaning: &'static str,
    /// The default, as text (markdown).
    pub default: String,
    /// What is accepted beyond the type, as text (markdown).
    pub accepts: Option<String>,
    /// A list in the file, a repeatable flag.
    pub list: bool,
    /// What the file must hold, in YAML's terms (`a number`, `a list`).
    pub kind: String,
    /// A value to show in an error, as YAML (`60s`, `[":10049"]`).
    pub example: String,
}

/// How a kind of value is documented.
pub trait Doc {
    fn default_doc(&self) -> String;
    fn accepts_doc(&self) -> Option<String> {
        None
    }
    fn list(&self) -> bool {
        false
    }
    /// What the file must hold, in YAML's terms.
    fn kind(&self) -> String;
    /// A valid value, as YAML.
    fn example(&self) -> String;
}

/// How a kind of value is given as a flag: by default `--flag VALUE`.
pub trait FlagShape {
    fn num_args() -> Resettable<ValueRange> {
        Resettable::Reset
    }
    fn missing() -> Option<&'static str> {
        None
    }
}

impl<S: Doc> Key<S> {
    pub fn doc(&self) -> KeyDoc {
        KeyDoc {
            name: self.name,
            flag: self.flag,
            meaning: self.meaning,
            default: self.spec.default_doc(),
            accepts: self.spec.accepts_doc(),
            list: self.spec.list(),
            kind: self.spec.kind(),
            example: self.spec.example(),
        }
    }
}

fn code(text: impl std::fmt::Display) -> String {
    format!("`{text}`")
}

/// `a`, `b` or `c`.
fn one_of(words: &[&str], quote: fn(&str) -> String) -> String {
    match words {
        [] => String::new(),
        [one] => quote(one),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|w| quote(w)).collect();
            format!("{} or {}", init.join(", "), quote(last))
        }
    }
}

/// A presence flag (`--demo`); `true` in the file. Default false.
#[derive(Debug)]
pub struct Switch;

impl Doc for Switch {
    fn default_doc(&self) -> String {
        code(false)
    }
    fn kind(&self) -> String {
        "true or false".into()
    }
    fn example(&self) -> String {
        "true".into()
    }
}

impl FlagShape for Switch {
    fn num_args() -> Resettable<ValueRange> {
        Resettable::Value(ValueRange::EMPTY)
    }
    fn missing() -> Option<&'static str> {
        Some("true")
    }
}

impl Key<Switch> {
    pub fn get(&self, value: Option<bool>) -> bool {
        value.unwrap_or(false)
    }
}

/// A boolean with a default of its own.
#[derive(Debug)]
pub struct Bool {
    pub default: bool,
}

impl Doc for Bool {
    fn default_doc(&self) -> String {
        code(self.default)
    }
    fn kind(&self) -> String {
        "true or false".into()
    }
    fn example(&self) -> String {
        self.default.to_string()
    }
}

impl FlagShape for Bool {}

impl Key<Bool> {
    pub fn get(&self, value: Option<bool>) -> bool {
        value.unwrap_or(self.spec.default)
    }
}

/// A Prometheus-style duration above zero and at most `max`.
#[derive(Debug)]
pub struct Dur {
    pub default: Duration,
    pub max: Duration,
}

/// A duration as [`Dur`] that is off (`None`) unless set, at least `min`
/// (zero: any above zero); `example` is what the error message suggests,
/// `why_min` what it adds to a value below `min` (why, and the way out).
#[derive(Debug)]
pub struct OptDur {
    pub example: Duration,
    pub min: Duration,
    pub why_min: &'static str,
    pub max: Duration,
}

/// How a duration is written, for errors.
const DURATION: &str = "a duration (a number and a unit: ms, s, m, h, d, w, y)";

impl Doc for Dur {
    fn default_doc(&self) -> String {
        code(format_duration(self.default))
    }
    fn accepts_doc(&self) -> Option<String> {
        Some(format!("at most {}", code(format_duration(self.max))))
    }
    fn kind(&self) -> String {
        DURATION.into()
    }
    fn example(&self) -> String {
        format_duration(self.default)
    }
}

impl Doc for OptDur {
    fn default_doc(&self) -> String {
        "none".into()
    }
    fn accepts_doc(&self) -> Option<String> {
        let max = code(format_duration(self.max));
        Some(match self.min.is_zero() {
            true => format!("at most {max}"),
            false => format!("`{}` to {max}", format_duration(self.min)),
        })
    }
    fn kind(&self) -> String {
        DURATION.into()
    }
    fn example(&self) -> String {
        format_duration(self.example)
    }
}

impl FlagShape for Dur {}
impl FlagShape for OptDur {}

/// `text` as a duration above zero and at most `max`; `e_g` is suggested.
fn duration(key: &str, text: &str, max: Duration, e_g: Duration) -> Result<Duration, ConfigError> {
    match parse_duration(text) {
        Ok(d) if d.is_zero() => Err(invalid(key, format!("{text:?} must be longer than zero"))),
        Ok(d) if d > max => Err(invalid(
            key,
            format!(
                "{text:?} is too long; use at most {}, e.g. {}",
                format_duration(max),
                format_duration(e_g)
            ),
        )),
        Ok(d) => Ok(d),
        Err(e) => Err(invalid(key, e)),
    }
}

impl Key<Dur> {
    pub fn get(&self, value: Option<String>) -> Result<Duration, ConfigError> {
        self.get_or(value, self.spec.default)
    }

    /// The value, else `default` instead of the table's (as `--demo` does
    /// for `poll.interval`).
    pub fn get_or(
        &self,
        value: Option<String>,
        default: Duration,
    ) -> Result<Duration, ConfigError> {
        match value {
            None => Ok(default),
            Some(text) => duration(self.name, &text, self.spec.max, default),
        }
    }
}

impl Key<OptDur> {
    pub fn get(&self, value: Option<String>) -> Result<Option<Duration>, ConfigError> {
        self.get_min(value, self.spec.min)
    }

    /// [`Self::get`] with `min` in place of the table's (an override key
    /// that lifts it, such as `selftest.allow_short_intervals`).
    pub fn get_min(
        &self,
        value: Option<String>,
        min: Duration,
    ) -> Result<Option<Duration>, ConfigError> {
        let Some(text) = value else {
            return Ok(None);
        };
        let d = duration(self.name, &text, self.spec.max, self.spec.example)?;
        if d < min {
            return Err(invalid(
                self.name,
                format!(
                    "{text:?} is too short; use at least {}, e.g. {}{}",
                    format_duration(min),
                    format_duration(self.spec.example),
                    self.spec.why_min
                ),
            ));
        }
        Ok(Some(d))
    }
}

/// A number above 0 and at most `max`; `noun` says what it is in errors.
#[derive(Debug)]
pub struct Ratio {
    pub default: f64,
    pub max: f64,
    pub noun: &'static str,
}

impl Doc for Ratio {
    fn default_doc(&self) -> String {
        code(self.default)
    }
    fn accepts_doc(&self) -> Option<String> {
        Some(format!("above 0, at most {}", code(self.max)))
    }
    fn kind(&self) -> String {
        "a number".into()
    }
    fn example(&self) -> String {
        self.default.to_string()
    }
}

impl FlagShape for Ratio {}

impl Key<Ratio> {
    pub fn get(&self, value: Option<f64>) -> Result<f64, ConfigError> {
        let Ratio { default, max, noun } = self.spec;
        match value.unwrap_or(default) {
            x if x.is_finite() && x > 0.0 && x <= max => Ok(x),
            x => Err(invalid(
                self.name,
                format!("{x:?} must be a {noun} above 0 and at most {max}, e.g. {default}"),
            )),
        }
    }
}

/// A whole number from `min` to `max`; `bytes` shows sizes in MiB/GiB too.
#[derive(Debug)]
pub struct Count {
    pub default: u64,
    pub min: u64,
    pub max: u64,
    pub bytes: bool,
}

impl Count {
    fn show(&self, n: u64, quote: fn(u64) -> String) -> String {
        const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
        let unit = UNITS.iter().find(|(size, _)| n >= *size && n % size == 0);
        match unit.filter(|_| self.bytes) {
            Some((size, name)) => format!("{} ({} {name})", quote(n), n / size),
            None => quote(n),
        }
    }
}

impl Doc for Count {
    fn default_doc(&self) -> String {
        code(self.default)
    }
    fn accepts_doc(&self) -> Option<String> {
        Some(format!(
            "{} to {}",
            self.show(self.min, code),
            self.show(self.max, code)
        ))
    }
    fn kind(&self) -> String {
        "a whole number".into()
    }
    fn example(&self) -> String {
        self.default.to_string()
    }
}

impl FlagShape for Count {}

impl Key<Count> {
    pub fn get(&self, value: Option<u64>) -> Result<u64, ConfigError> {
        let c = &self.spec;
        match value.unwrap_or(c.default) {
            n if (c.min..=c.max).contains(&n) => Ok(n),
            n => Err(invalid(
                self.name,
                format!(
                    "{n} is not accepted; use {} to {}, e.g. {}",
                    c.show(c.min, |n| n.to_string()),
                    c.show(c.max, |n| n.to_string()),
                    c.default
                ),
            )),
        }
    }
}

/// One of a few words, each standing for a value of `T`; `default` (one
/// of the words) when unset.
#[derive(Debug)]
pub struct Choice<T: 'static> {
    pub default: &'static str,
    pub accepted: &'static [(&'static str, T)],
}

impl<T> Choice<T> {
    fn words(&self) -> Vec<&'static str> {
        self.accepted.iter().map(|(w, _)| *w).collect()
    }
}

impl<T> Doc for Choice<T> {
    fn default_doc(&self) -> String {
        code(self.default)
    }
    fn accepts_doc(&self) -> Option<String> {
        Some(one_of(&self.words(), |w| code(w)))
    }
    fn kind(&self) -> String {
        format!("one of {}", one_of(&self.words(), |w| w.to_string()))
    }
    fn example(&self) -> String {
        self.default.into()
    }
}

impl<T> FlagShape for Choice<T> {}

impl<T: Copy> Key<Choice<T>> {
    /// The value of the word given, else of the default.
    pub fn get(&self, value: Option<String>) -> Result<T, ConfigError> {
        let text = value.as_deref().unwrap_or(self.spec.default);
        self.spec
            .accepted
            .iter()
            .find(|(w, _)| *w == text)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                invalid(
                    self.name,
                    format!(
                        "{text:?} is not accepted; use {}",
                        one_of(&self.spec.words(), |w| w.to_string())
                    ),
                )
            })
    }
}

/// A regular expression whose compiled program is at most `max_bytes`;
/// unset or empty = none.
#[derive(Debug)]
pub struct Pattern {
    pub max_bytes: usize,
}

impl Doc for Pattern {
    fn default_doc(&self) -> String {
        "none".into()
    }
    fn accepts_doc(&self) -> Option<String> {
        Some(format!(
            "a regular expression; compiled size at most {} MiB",
            self.max_bytes >> 20
        ))
    }
    fn kind(&self) -> String {
        "a regular expression (a string)".into()
    }
    fn example(&self) -> String {
        "'^nvme[0-9]+$'".into()
    }
}

impl FlagShape for Pattern {}

impl Key<Pattern> {
    pub fn get(&self, value: Option<String>) -> Result<Option<Regex>, ConfigError> {
        let Some(v) = value.filter(|v| !v.is_empty()) else {
            return Ok(None);
        };
        RegexBuilder::new(&v)
            .size_limit(self.spec.max_bytes)
            .build()
            .map(Some)
            .map_err(|e| {
                let why = match e {
                    regex::Error::CompiledTooBig(limit) => {
                        format!("compiles to more than {limit} bytes; use a simpler one")
                    }
                    e => e
                        .to_string()
                        .lines()
                        .last()
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                };
                invalid(
                    self.name,
                    format!("{v:?} is not a valid regular expression ({why})"),
                )
            })
    }
}

/// Free text (a path, an address); `default` lists what is used when
/// unset (several = tried in order), empty = none; `example` is a value
/// errors show. The caller checks the text itself. A list also takes a
/// single value in the file (`listen_address: ":10049"`).
#[derive(Debug)]
pub struct Text {
    pub default: &'static [&'static str],
    pub list: bool,
    pub example: &'static str,
}

impl Doc for Text {
    fn default_doc(&self) -> String {
        match self.default {
            [] => "none".into(),
            d => d.iter().map(code).collect::<Vec<_>>().join(", else "),
        }
    }
    fn list(&self) -> bool {
        self.list
    }
    fn kind(&self) -> String {
        match self.list {
            true => "a list (or a single value)".into(),
            false => "a string".into(),
        }
    }
    fn example(&self) -> String {
        match self.list {
            true => format!("[{:?}]", self.example),
            false => format!("{:?}", self.example),
        }
    }
}

impl FlagShape for Text {}
