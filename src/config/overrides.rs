//! `health.overrides`: per-drive health settings. Each entry matches drives
//! by `serial` (exact), `model` and `device` (regular expressions, all
//! given must match), and sets any `health.*` key, `mute` (problem names,
//! or one cause of a problem, each maybe until a date: `config::mutes`),
//! `until` (when its mutes end) and `rated_endurance_bytes`; the first
//! entry that matches a drive wins.
//! Raw entries (serde, unknown keys refused) become validated
//! [`Override`]s whose errors name the entry: `health.overrides[2].mute[0]`.

use std::sync::Arc;

use regex::Regex;

use super::keys::{RawHealth, RawHealthSection, RawOverride};
use super::spec::{Key, KeyDoc, Pattern};
use super::{ConfigError, Health, bounds, invalid};
use crate::health::tuning::{Tuner, Tuning};
use crate::reading::Identity;

impl RawHealthSection {
    /// As every section's: a value set in `later` (the flags) wins. No
    /// flag sets overrides, so the file's stand unless `later` has some.
    pub fn overlay(self, later: Self) -> Self {
        Self {
            overrides: match later.overrides.is_empty() {
                true => self.overrides,
                false => later.overrides,
            },
            keys: self.keys.overlay(later.keys),
        }
    }

    /// The table's health keys, then `health.overrides`.
    pub fn docs(out: &mut Vec<KeyDoc>) {
        RawHealth::docs(out);
        out.push(KeyDoc {
            name: "health.overrides",
            flag: None,
            meaning: "per-drive health settings, the first entry matching a drive wins: \
                match on `serial` (exact), `model`, `device` (regular expressions; all \
                given must match); set any `health.*` key, `mute` (problem names, or \
                `{problem, cause, until}`), `until` (a date: when the entry's mutes end) \
                and `rated_endurance_bytes` (docs/configuration.md, \"Overrides and reload\")",
            default: "none".into(),
            accepts: Some(format!("at most `{}` entries", bounds::MAX_OVERRIDES)),
            list: true,
            kind: "a list of mappings".into(),
            example: "[{serial: S123, mute: [media_errors_increasing]}]".into(),
        });
    }
}

/// Both are a mapping of their own keys and the table's `health.*` keys,
/// read key by key (not with serde's `flatten`, which loses the key's
/// name and the accepted ones from errors): an error names its path,
/// `health.overrides[0].wear_warning`, and an unknown key what is
/// accepted, as serde's own do for every other section.
mod de {
    use std::fmt;

    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

    use super::{RawHealth, RawHealthSection, RawOverride};

    /// The value of a `health.*` key, into its field.
    struct Key<'a>(&'a mut RawHealth, &'a str);

    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            self.0.set_field(self.1, d)
        }
    }

    /// Reads a mapping: each key in `own` through `own_value`, each of
    /// the table's into `keys`; any other is an error listing both.
    fn mapping<'de, A: MapAccess<'de>>(
        mut map: A,
        own: &[&str],
        keys: &mut RawHealth,
        mut own_value: impl FnMut(&str, &mut A) -> Result<(), A::Error>,
    ) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if own.contains(&key.as_str()) {
                own_value(&key, &mut map)?;
            } else if RawHealth::FIELDS.contains(&key.as_str()) {
                map.next_value_seed(Key(keys, &key))?;
            } else {
                let all: Vec<String> = (own.iter().chain(RawHealth::FIELDS))
                    .map(|k| format!("`{k}`"))
                    .collect();
                return Err(de::Error::custom(format_args!(
                    "unknown field `{key}`, expected one of {}",
                    all.join(", ")
                )));
            }
        }
        Ok(())
    }

    struct Section;

    impl<'de> Visitor<'de> for Section {
        type Value = RawHealthSection;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the health section: thresholds and overrides")
        }
        fn visit_unit<E: de::Error>(self) -> Result<RawHealthSection, E> {
            Ok(RawHealthSection::default())
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawHealthSection, A::Error> {
            let mut out = RawHealthSection::default();
            let mut overrides = None;
            mapping(map, &["overrides"], &mut out.keys, |_, m| {
                overrides = Some(m.next_value()?);
                Ok(())
            })?;
            out.overrides = overrides.unwrap_or_default();
            Ok(out)
        }
    }

    impl<'de> serde::Deserialize<'de> for RawHealthSection {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(Section)
        }
    }

    struct Entry;

    impl<'de> Visitor<'de> for Entry {
        type Value = RawOverride;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an override: serial, model or device to match, and health keys")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawOverride, A::Error> {
            let own = [
                "serial",
                "model",
                "device",
                "mute",
                "until",
                "rated_endurance_bytes",
            ];
            let mut keys = RawHealth::default();
            let mut o = RawOverride::default();
            mapping(map, &own, &mut keys, |key, m| {
                match key {
                    "serial" => o.serial = m.next_value()?,
                    "model" => o.model = m.next_value()?,
                    "device" => o.device = m.next_value()?,
                    "mute" => o.mute = m.next_value()?,
                    "until" => o.until = Some(m.next_value()?),
                    _ => o.rated_endurance_bytes = m.next_value()?,
                }
                Ok(())
            })?;
            o.keys = keys;
            Ok(o)
        }
    }

    impl<'de> serde::Deserialize<'de> for RawOverride {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(Entry)
        }
    }
}

/// One validated entry: what it matches and the settings it gives.
#[derive(Debug, Clone)]
pub struct Override {
    pub serial: Option<String>,
    pub model: Option<Regex>,
    pub device: Option<Regex>,
    pub tuning: Arc<Tuning>,
}

impl Override {
    /// Whether every match the entry gives holds for the drive.
    pub fn matches(&self, device: &str, identity: &Identity) -> bool {
        self.serial.as_ref().is_none_or(|s| *s == identity.serial)
            && self
                .model
                .as_ref()
                .is_none_or(|r| r.is_match(&identity.model))
            && self.device.as_ref().is_none_or(|r| r.is_match(device))
    }
}

/// `rated_endurance_bytes`: at least a gigabyte, at most 10 EB (the
/// largest drives are rated for tens of PB written).
const RATED_ENDURANCE: (f64, f64) = (1e9, 1e19);

fn rated_endurance(at: &str, bytes: f64) -> Result<f64, ConfigError> {
    let (min, max) = RATED_ENDURANCE;
    match bytes {
        b if b.is_finite() && (min..=max).contains(&b) => Ok(b),
        b => Err(invalid(
            &format!("{at}.rated_endurance_bytes"),
            format!(
                "{b} is not accepted; use {min:e} to {max:e} bytes written, e.g. 600e12 for 600 TBW"
            ),
        )),
    }
}

fn pattern(name: &'static str) -> Key<Pattern> {
    Key {
        name,
        flag: None,
        meaning: "",
        spec: Pattern {
            max_bytes: bounds::MAX_REGEX_BYTES,
        },
    }
}

/// `e` with its key placed inside `entry` (`health.overrides[2]`): a
/// `health.*` key or one of the entry's own.
fn within(entry: &str, e: ConfigError) -> ConfigError {
    match e {
        ConfigError::Invalid { key, message } => {
            let own = key.strip_prefix("health.").unwrap_or(&key);
            invalid(&format!("{entry}.{own}"), message)
        }
        other => other,
    }
}

impl Health {
    /// The settings of drives no override matches.
    pub fn base(&self) -> Tuning {
        Tuning {
            rules: self.rules.clone(),
            increase_window: self.increase_window,
            rated_endurance_bytes: None,
            source: None,
            by_device_only: false,
        }
    }

    /// The settings of one drive: the first matching override's, else
    /// the section's.
    pub fn tuning_for(&self, device: &str, identity: &Identity) -> Arc<Tuning> {
        match self.overrides.iter().find(|o| o.matches(device, identity)) {
            Some(o) => Arc::clone(&o.tuning),
            None => Arc::new(self.base()),
        }
    }
}

/// The configuration as loaded, never reloaded (`check`).
impl Tuner for Health {
    fn generation(&self) -> u64 {
        0
    }

    fn tuning(&self, device: &str, identity: &Identity) -> Arc<Tuning> {
        self.tuning_for(device, identity)
    }
}

/// Validates the entries; each one's `health.*` keys are laid over the
/// section's (`base`, already valid) and checked as the section's are.
pub(super) fn validate(
    base: &RawHealth,
    raw: Vec<RawOverride>,
) -> Result<Vec<Override>, ConfigError> {
    if raw.len() > bounds::MAX_OVERRIDES {
        return Err(invalid(
            "health.overrides",
            format!(
                "{} entries; use at most {}",
                raw.len(),
                bounds::MAX_OVERRIDES
            ),
        ));
    }
    raw.into_iter()
        .enumerate()
        .map(|(i, entry)| one(base, format!("health.overrides[{i}]"), entry))
        .collect()
}

fn one(base: &RawHealth, at: String, raw: RawOverride) -> Result<Override, ConfigError> {
    let serial = raw.serial.filter(|s| !s.is_empty());
    let model = pattern("model")
        .get(raw.model)
        .map_err(|e| within(&at, e))?;
    let device = pattern("device")
        .get(raw.device)
        .map_err(|e| within(&at, e))?;
    if serial.is_none() && model.is_none() && device.is_none() {
        return Err(invalid(
            &at,
            "matches no drive by anything; give serial, model or device (a regular expression, e.g. \"^nvme3$\")",
        ));
    }
    let until = match &raw.until {
        None => None,
        Some(t) => Some(super::mutes::until(&format!("{at}.until"), t)?),
    };
    let mute = super::mutes::validate(&at, &raw.mute, until)?;
    let rated_endurance_bytes = match raw.rated_endurance_bytes {
        None => None,
        Some(b) => Some(rated_endurance(&at, b)?),
    };
    let (mut rules, increase_window) =
        super::health_keys(base.clone().overlay(raw.keys)).map_err(|e| within(&at, e))?;
    rules.mute = mute;
    let device_only = device.is_some() && serial.is_none() && model.is_none();
    Ok(Override {
        serial,
        model,
        device,
        tuning: Arc::new(Tuning {
            rules,
            increase_window,
            rated_endurance_bytes,
            source: Some(at),
            by_device_only: device_only,
        }),
    })
}
