use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::metrics::{BuildInfo, Format, encode_string as encode};

fn served(reloads: Option<Arc<ConfigReloads>>) -> Vec<String> {
    let build = BuildInfo {
        config: reloads,
        ..BuildInfo::default()
    };
    let text = encode(Vec::new(), Vec::new(), &build, Format::Prometheus);
    text.lines()
        .filter(|l| l.starts_with("ssd_exporter_config_"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_failed_reload_is_0_and_keeps_the_time_of_the_last_good_load() {
    let t0 = UNIX_EPOCH + Duration::from_millis(1_796_083_200_500);
    let r = Arc::new(ConfigReloads::loaded(t0));
    assert_eq!(
        served(Some(r.clone())),
        [
            "ssd_exporter_config_last_reload_successful 1.0",
            "ssd_exporter_config_last_reload_success_timestamp_seconds 1796083200.5",
        ]
    );
    r.record(false, t0 + Duration::from_secs(60));
    assert_eq!(
        served(Some(r.clone())),
        [
            "ssd_exporter_config_last_reload_successful 0.0",
            "ssd_exporter_config_last_reload_success_timestamp_seconds 1796083200.5",
        ]
    );
    r.record(true, t0 + Duration::from_secs(120));
    assert_eq!(
        served(Some(r)),
        [
            "ssd_exporter_config_last_reload_successful 1.0",
            "ssd_exporter_config_last_reload_success_timestamp_seconds 1796083320.5",
        ]
    );
    assert!(served(None).is_empty());
}
