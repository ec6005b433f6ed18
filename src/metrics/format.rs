//! The formats and encodings a `/metrics` body comes in: what a scraper
//! may ask for, and what each response says it is.

/// An exposition format (`/metrics` content negotiation picks one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// OpenMetrics 1.0.0 text.
    OpenMetrics,
    /// The classic Prometheus text format 0.0.4, what every scraper reads.
    Prometheus,
    /// Prometheus' protobuf format, length-delimited `MetricFamily`
    /// messages: the one that carries the probe latency as a native
    /// histogram.
    Protobuf,
}

impl Format {
    pub const ALL: [Format; 3] = [Format::OpenMetrics, Format::Prometheus, Format::Protobuf];

    /// The `Content-Type` a response in this format carries.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
            Format::Protobuf => {
                "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"
            }
        }
    }

    /// Whether it is one of the text formats.
    pub fn is_text(self) -> bool {
        self != Format::Protobuf
    }

    /// Its slot in per-format arrays.
    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// How a body is sent: as it is or gzipped (`Accept-Encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Identity,
    Gzip,
}
