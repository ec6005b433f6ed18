//! The config file: any YAML text either validates or fails with one line
//! naming the key; nothing panics, and every validated number is within the
//! bounds the configuration documents.
#![no_main]

use std::net::SocketAddr;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use ssd_exporter::config::{Config, RawFile, bounds, parse_duration};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_duration(text);
    // A key naming a file the validation reads (`web.config_file`, TLS and
    // auth settings) would have the fuzzer read /dev/zero or a FIFO: such
    // inputs are left to the file's own tests.
    if let Ok(v) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text)
        && v.get("web").and_then(|w| w.get("config_file")).is_some()
    {
        return;
    }
    let Ok(mut raw) = RawFile::parse(text) else {
        return;
    };
    // A host name would be resolved (DNS); keep only literal addresses.
    raw.web
        .listen_address
        .retain(|a| a.starts_with(':') || a.parse::<SocketAddr>().is_ok());
    match Config::try_from(raw) {
        Ok(c) => {
            assert!(c.probe.rate > 0.0 && c.probe.rate <= bounds::MAX_PROBE_RATE);
            let within = |d: Duration, max: Duration| assert!(!d.is_zero() && d <= max, "{d:?}");
            within(c.poll_interval, bounds::MAX_INTERVAL);
            within(c.discovery_interval, bounds::MAX_INTERVAL);
            within(c.probe.window, bounds::MAX_INTERVAL);
            within(c.poll_timeout, bounds::MAX_TIMEOUT);
            within(c.probe.timeout, bounds::MAX_TIMEOUT);
            within(c.health.rules.throttle_recent, bounds::MAX_HISTORY);
            if let Some(w) = c.health.increase_window {
                within(w, bounds::MAX_HISTORY);
            }
            if let Some(w) = &c.probe.write {
                assert!(w.rate > 0.0 && w.rate <= bounds::MAX_WRITE_RATE);
                assert!((bounds::MIN_WRITE_BYTES..=ssd_exporter::probe::writer::MAX_BYTES).contains(&w.max_bytes));
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
    }
});
