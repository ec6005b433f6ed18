//! SATA SMART attributes as the drive reports them, named.

use std::fmt;
use std::sync::OnceLock;

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, family};
use crate::reading::AtaAttribute;

/// `(name, help, field)` of the four attribute families.
type AttrField = (&'static str, &'static str, fn(&AtaAttribute) -> Option<f64>);

const FIELDS: [AttrField; 4] = [
    (
        "ssd_ata_attribute_value",
        "Normalized current value of a SATA SMART attribute.",
        |a| a.value.map(f64::from),
    ),
    (
        "ssd_ata_attribute_worst",
        "Worst normalized value of a SATA SMART attribute.",
        |a| a.worst.map(f64::from),
    ),
    (
        "ssd_ata_attribute_threshold",
        "Failure threshold of a SATA SMART attribute's normalized value.",
        |a| a.threshold.map(f64::from),
    ),
    (
        "ssd_ata_attribute_raw",
        "Raw value of a SATA SMART attribute: its six raw bytes as one little-endian integer.",
        |a| Some(a.raw as f64),
    ),
];

/// Attribute ids 0–255 as label values, formatted once per process.
fn attribute_ids() -> &'static [String; 256] {
    static IDS: OnceLock<[String; 256]> = OnceLock::new();
    IDS.get_or_init(|| std::array::from_fn(|i| i.to_string()))
}

impl Exposition {
    pub(super) fn ata(&self, enc: &mut Enc) -> fmt::Result {
        let ids = attribute_ids();
        for (name, help, field) in FIELDS {
            let rows = self.drives.iter().flat_map(|d| {
                let attrs = d
                    .reading
                    .as_ref()
                    .map_or(&[][..], |r| &r.ata_attributes[..]);
                attrs.iter().filter_map(move |a| {
                    let l = Self::with(
                        d,
                        [
                            ("id", ids[usize::from(a.id)].as_str()),
                            ("name", a.name.as_str()),
                        ],
                    );
                    field(a).map(|v| (l, v))
                })
            });
            family(enc, name, help, MetricType::Gauge, rows)?;
        }
        Ok(())
    }
}
