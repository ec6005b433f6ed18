use super::*;
use Format::{OpenMetrics, Prometheus as PrometheusText, Protobuf};

const PROMETHEUS_DEFAULT: &str = "application/openmetrics-text;version=1.0.0,\
        application/openmetrics-text;version=0.0.1;q=0.75,\
        text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

const PROMETHEUS_NATIVE: &str = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,\
        application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,\
        text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

#[test]
fn negotiation_table() {
    let cases: &[(Option<&str>, Format)] = &[
        (None, PrometheusText),
        (Some(""), PrometheusText),
        (Some("*/*"), PrometheusText),
        (Some(PROMETHEUS_DEFAULT), OpenMetrics),
        (
            Some("application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.6"),
            PrometheusText,
        ),
        (
            Some("application/openmetrics-text;version=1.0.0;q=0.6,text/plain;version=0.0.4;q=0.5"),
            OpenMetrics,
        ),
        (Some("application/openmetrics-text"), OpenMetrics),
        (
            Some("Application/OpenMetrics-Text; Version=1.0.0"),
            OpenMetrics,
        ),
        (Some("application/openmetrics-text; q=0"), PrometheusText),
        (Some("text/plain"), PrometheusText),
        (Some("application/json"), PrometheusText),
        // a tie goes to plain text
        (
            Some("application/openmetrics-text;q=0.5,text/plain;q=0.5"),
            PrometheusText,
        ),
        // `application/*` covers OpenMetrics; text/plain then only via */*
        (Some("application/*,*/*;q=0.1"), OpenMetrics),
        // the exact range beats the wildcard, whatever their order
        (
            Some("*/*,application/openmetrics-text;q=0.2,text/plain;q=0.1"),
            OpenMetrics,
        ),
        // a malformed q drops its element
        (
            Some("application/openmetrics-text;q=abc,text/plain;q=0.1"),
            PrometheusText,
        ),
        (Some("application/openmetrics-text;q=NaN"), PrometheusText),
        (Some(" , ;;, garbage"), PrometheusText),
        // What Debian's Prometheus 2.42 asks with --enable-feature=native-histograms.
        (Some(PROMETHEUS_NATIVE), Protobuf),
        (
            Some(
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
            ),
            Protobuf,
        ),
        (
            Some(
                "Application/Vnd.Google.Protobuf; Proto=\"io.prometheus.client.MetricFamily\"; Encoding=delimited",
            ),
            Protobuf,
        ),
        // another framing, another message, or none named: not served
        (
            Some(
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text",
            ),
            PrometheusText,
        ),
        (
            Some("application/vnd.google.protobuf;proto=other.Message;encoding=delimited"),
            PrometheusText,
        ),
        (Some("application/vnd.google.protobuf"), PrometheusText),
        // q-values decide between protobuf and the text formats; a tie
        // goes to the more widely read
        (
            Some(
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.4,text/plain;q=0.5",
            ),
            PrometheusText,
        ),
        (
            Some(
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.8,application/openmetrics-text;q=0.8",
            ),
            OpenMetrics,
        ),
        (
            Some(
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0,*/*",
            ),
            PrometheusText,
        ),
        // a wildcard never picks protobuf (it must be named with its
        // parameters): `application/*` is OpenMetrics
        (Some("application/*"), OpenMetrics),
    ];
    for (accept, want) in cases {
        assert_eq!(negotiate(*accept), *want, "Accept: {accept:?}");
    }
}

#[test]
fn gzip_table() {
    let cases: &[(Option<&str>, bool)] = &[
        (None, false),
        (Some(""), false),
        (Some("gzip"), true),
        (Some("GZIP"), true),
        (Some("x-gzip"), true),
        (Some("deflate, gzip;q=1.0, *;q=0.5"), true),
        (Some("gzip;q=0"), false),
        (Some("gzip;q=0.000"), false),
        (Some("identity"), false),
        (Some("br, deflate"), false),
        (Some("*"), true),
        (Some("*;q=0"), false),
        (Some("gzip;q=0, *"), false),
        (Some("gzip;q=nope"), false),
    ];
    for (header, want) in cases {
        assert_eq!(accepts_gzip(*header), *want, "Accept-Encoding: {header:?}");
    }
}
