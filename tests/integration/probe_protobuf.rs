//! The protobuf format over the real server: what Prometheus with native
//! histograms asks for gets length-delimited `MetricFamily` messages (as
//! prometheus-client's own schema decodes them), the same families as the
//! text body, the probe latency as a native histogram, and the same
//! messages gzipped.

use std::collections::BTreeSet;
use std::io::Read;

use prometheus_client::encoding::prometheus_protobuf::prometheus_data_model as pb;
use prost::Message as _;

use crate::common::{Exporter, http_get_raw};

/// What Debian's Prometheus 2.42 sends with `--enable-feature=native-histograms`.
const ACCEPT: &str = "Accept: application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n";

/// GET /metrics with `headers`: (head, raw body bytes).
fn get_raw(addr: &str, headers: &str) -> (String, Vec<u8>) {
    let raw = http_get_raw(addr, "/metrics", headers);
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
    (head, raw[at + 4..].to_vec())
}

/// Every message of a delimited body, decoded; panics on a bad frame.
fn families(mut body: &[u8]) -> Vec<pb::MetricFamily> {
    let mut out = Vec::new();
    while !body.is_empty() {
        let f = pb::MetricFamily::decode_length_delimited(&mut body).expect("a MetricFamily");
        out.push(f);
    }
    out
}

/// The families without the process's own, which change between reads.
fn steady(fams: Vec<pb::MetricFamily>) -> Vec<pb::MetricFamily> {
    fams.into_iter()
        .filter(|f| !f.name.starts_with("process_"))
        .collect()
}

#[test]
fn protobuf_is_the_text_bodys_families_with_a_native_probe_histogram_plain_or_gzip() {
    let exporter = Exporter::start(&["--demo"]);
    // The demo's probes publish within a second or two.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let (_, text) = exporter.get("/metrics", "");
    let named: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    let (head, plain) = get_raw(&exporter.addr, ACCEPT);
    assert!(
        head.contains("content-type: application/vnd.google.protobuf; proto=io.prometheus.client.metricfamily; encoding=delimited"),
        "{head}"
    );
    let plain = families(&plain);
    let got: BTreeSet<String> = plain.iter().map(|f| f.name.clone()).collect();
    // The text format names a counter's family with `_total`.
    let named: BTreeSet<String> = named
        .into_iter()
        .map(|n| {
            if got.contains(&n) {
                n
            } else {
                n.trim_end_matches("_total").to_owned()
            }
        })
        .collect();
    assert_eq!(got, named, "the same families as the text body");
    let latency = plain
        .iter()
        .find(|f| f.name == "ssd_probe_latency_seconds")
        .expect("the probe histogram");
    assert_eq!(latency.r#type, pb::MetricType::Histogram as i32);
    assert!(
        latency.metric.len() >= 4,
        "one series per probed drive and op"
    );
    for m in &latency.metric {
        let h = m.histogram.as_ref().expect("a histogram");
        assert_eq!(h.schema, 3);
        assert!(h.bucket.is_empty(), "no classic buckets by default");
        let n: u64 = h.positive_span.iter().map(|s| u64::from(s.length)).sum();
        assert_eq!(n as usize, h.positive_delta.len());
        // The deltas add up to each bucket's count; the counts to the total.
        let (mut count, mut total) = (0i64, h.zero_count);
        for d in &h.positive_delta {
            count += d;
            assert!(count >= 0);
            total += count as u64;
        }
        assert_eq!(total, h.sample_count, "{:?}", m.label);
        assert!(h.sample_count > 0);
    }
    // The gzip body is the same messages: the same families and series
    // (their values move with the demo's polls and probes between two
    // scrapes), decoded whole.
    let shape = |fams: Vec<pb::MetricFamily>| -> Vec<(String, Vec<Vec<pb::LabelPair>>)> {
        steady(fams)
            .into_iter()
            .map(|f| (f.name, f.metric.into_iter().map(|m| m.label).collect()))
            .collect()
    };
    for _ in 0..3 {
        let (head, gz) = get_raw(
            &exporter.addr,
            &format!("{ACCEPT}Accept-Encoding: gzip\r\n"),
        );
        assert!(head.contains("content-encoding: gzip"), "{head}");
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_end(&mut bytes)
            .expect("a valid gzip body");
        let (_, again) = get_raw(&exporter.addr, ACCEPT);
        assert_eq!(shape(families(&bytes)), shape(families(&again)));
    }
}
