//! Prometheus' protobuf format (`io.prometheus.client.MetricFamily`,
//! length-delimited): what prometheus-client's protobuf encoder makes of
//! an [`super::Exposition`], cut into the pieces the [`super::Cache`]
//! keeps.
//!
//! A `MetricFamily` is its name, help and type (fields 1–3), then one
//! field 4 per series. Protobuf concatenates repeated fields, so a family
//! whose series come from several drives is its fields 1–3 once (the
//! *head*) followed by each drive's field-4 entries (its *body*), and the
//! whole preceded by its length as a varint: byte for byte what encoding
//! the family whole gives (the tests compare the two).

use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model as pb;
use prost::Message;

pub(super) type Family = pb::MetricFamily;
pub(super) type Metric = pb::Metric;

/// The field number of `MetricFamily.metric`.
const METRIC: u32 = 4;

/// Appends `f` as one length-delimited message.
pub(super) fn delimited(f: &Family, out: &mut Vec<u8>) {
    // Writing into a Vec cannot fail for want of space.
    let _ = f.encode_length_delimited(out);
}

/// Appends the head of `f` (its fields but the series); `None` if it has
/// a unit (field 5, which would follow the series: not cut this way; the
/// exporter gives no family a unit of the library's).
pub(super) fn head(f: &Family, out: &mut Vec<u8>) -> Option<()> {
    if !f.unit.is_empty() {
        return None;
    }
    let bare = Family {
        name: f.name.clone(),
        help: f.help.clone(),
        r#type: f.r#type,
        metric: Vec::new(),
        unit: String::new(),
    };
    bare.encode_raw(out);
    Some(())
}

/// Appends series `m` as a field-4 entry of its family.
pub(super) fn series(m: &Metric, out: &mut Vec<u8>) {
    prost::encoding::message::encode(METRIC, m, out);
}

/// The value of the series' first label when it is `device`.
pub(super) fn device(m: &Metric) -> Option<&str> {
    m.label
        .first()
        .filter(|l| l.name == "device")
        .map(|l| l.value.as_str())
}

/// Appends `len` as a protobuf varint (the length before a message).
pub(super) fn varint(len: usize, out: &mut Vec<u8>) {
    prost::encoding::encode_varint(len as u64, out);
}
