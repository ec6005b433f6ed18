//! Log output: logfmt (the default, like Prometheus' own exporters) or JSON,
//! to stderr.

use std::fmt::{self, Write as _};
use std::time::{SystemTime, UNIX_EPOCH};

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
            rfc3339(SystemTime::now()),
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

/// UTC RFC 3339 with milliseconds, without a date-time crate.
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil-from-days (H. Hinnant's algorithm), days since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        // `date -u -d @951782400` = 2000-02-29 00:00:00 (a leap day).
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_123);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.123Z");
        // `date -u -d @1796000000` = 2026-11-30 00:53:20.
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_796_000_000)),
            "2026-11-30T00:53:20.000Z"
        );
    }

    #[test]
    fn logfmt_quoting() {
        assert_eq!(quote("nvme0"), "nvme0");
        assert_eq!(quote("two words"), "\"two words\"");
        assert_eq!(quote("a=\"b\"\n"), "\"a=\\\"b\\\"\\n\"");
        assert_eq!(quote(""), "\"\"");
    }
}
