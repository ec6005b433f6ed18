//! Log output: logfmt (the default, like Prometheus' own exporters) or JSON,
//! to stderr.

use std::fmt::{self, Write as _};
use std::time::SystemTime;

use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use crate::config::LogFormat;

/// Installs the global subscriber. Call once.
pub fn init(level: tracing::Level, format: LogFormat) {
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr);
    let result = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Logfmt => builder.event_format(Logfmt).try_init(),
    };
    // Already installed (tests): keep the first one.
    drop(result);
}

/// `ts=… level=… target=… msg="…" key=value` lines.
struct Logfmt;

impl<S, N> FormatEvent<S, N> for Logfmt
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _: &FmtContext<'_, S, N>,
        mut w: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        let level = meta.level().as_str().to_ascii_lowercase();
        write!(
            w,
            "ts={} level={level} target={}",
            crate::timefmt::utc_millis(SystemTime::now()),
            meta.target()
        )?;
        let mut fields = Fields::default();
        event.record(&mut fields);
        if let Some(msg) = fields.message {
            write!(w, " msg={}", quote(&msg))?;
        }
        w.write_str(&fields.rest)?;
        writeln!(w)
    }
}

#[derive(Default)]
struct Fields {
    message: Option<String>,
    rest: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, format!("{value:?}"));
    }
}

impl Fields {
    fn put(&mut self, field: &Field, value: String) {
        if field.name() == "message" {
            self.message = Some(value);
        } else {
            let _ = write!(self.rest, " {}={}", field.name(), quote(&value));
        }
    }
}

/// A logfmt value: bare when it is safe, else double-quoted with escapes.
pub fn quote(v: &str) -> String {
    let bare = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_graphic() && c != '"' && c != '=' && c != '\\');
    if bare {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
