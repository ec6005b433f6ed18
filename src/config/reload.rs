//! What a reload (SIGHUP) can change in a running exporter: the `health`
//! section and its overrides, applied from each drive's next poll.
//! Everything else is read once at start — addresses, paths, which drives
//! and how often they are polled, the probe, logging — so a reload that
//! changes one of those says "needs a restart" for it and keeps the value
//! in force. (The web config file's contents are watched and reloaded on
//! their own; only its path needs a restart.)

use super::keys::{
    RawDevice, RawDiscovery, RawFile, RawLog, RawMetrics, RawPath, RawPoll, RawProbe,
    RawProbeWrite, RawState, RawWeb,
};
use super::{Config, Probe, ProbeWrite};

impl Config {
    /// The keys whose value in `new` differs from `self`'s (the
    /// configuration the exporter started with) and that a reload does not
    /// apply. Exhaustive: a new field does not compile until it is listed
    /// here or as reloaded.
    pub fn needs_restart(&self, new: &Config) -> Vec<&'static str> {
        let Config {
            listen,
            telemetry_path,
            web,
            max_connections,
            max_requests,
            systemd_socket,
            poll_interval,
            poll_timeout,
            wake_standby,
            standby_max_skips,
            discovery_interval,
            megaraid,
            fabrics,
            usb,
            include,
            exclude,
            log_level,
            log_format,
            replay,
            demo,
            sysfs,
            dev,
            probe,
            health: _, // reloaded
            drivedb,
            state_path,
            metrics,
            selftest: _, // reloaded
        } = self;
        let pattern = |r: &Option<regex::Regex>| r.as_ref().map(|r| r.as_str().to_string());
        let changed = [
            (RawWeb::listen_address.name, *listen != new.listen),
            (
                RawWeb::telemetry_path.name,
                *telemetry_path != new.telemetry_path,
            ),
            (RawWeb::config_file.name, web.file != new.web.file),
            (
                RawWeb::max_connections.name,
                *max_connections != new.max_connections,
            ),
            (RawWeb::max_requests.name, *max_requests != new.max_requests),
            (
                RawWeb::systemd_socket.name,
                *systemd_socket != new.systemd_socket,
            ),
            (RawPoll::interval.name, *poll_interval != new.poll_interval),
            (RawPoll::timeout.name, *poll_timeout != new.poll_timeout),
            (
                RawPoll::wake_standby.name,
                *wake_standby != new.wake_standby,
            ),
            (
                RawPoll::standby_max_skips.name,
                *standby_max_skips != new.standby_max_skips,
            ),
            (RawState::path.name, *state_path != new.state_path),
            (
                RawDiscovery::interval.name,
                *discovery_interval != new.discovery_interval,
            ),
            (RawDiscovery::megaraid.name, *megaraid != new.megaraid),
            (RawDiscovery::fabrics.name, *fabrics != new.fabrics),
            (RawDiscovery::usb.name, *usb != new.usb),
            (
                RawDevice::include.name,
                pattern(include) != pattern(&new.include),
            ),
            (
                RawDevice::exclude.name,
                pattern(exclude) != pattern(&new.exclude),
            ),
            (RawLog::level.name, *log_level != new.log_level),
            (RawLog::format.name, *log_format != new.log_format),
            (RawFile::replay.name, *replay != new.replay),
            (RawFile::demo.name, *demo != new.demo),
            (RawPath::sysfs.name, *sysfs != new.sysfs),
            (RawPath::dev.name, *dev != new.dev),
            (RawPath::drivedb.name, *drivedb != new.drivedb),
            (
                RawMetrics::probe_buckets.name,
                metrics.probe_buckets != new.metrics.probe_buckets,
            ),
            (
                RawMetrics::diagnostics.name,
                metrics.diagnostics != new.metrics.diagnostics,
            ),
        ];
        let mut out: Vec<&'static str> = changed
            .into_iter()
            .filter(|(_, c)| *c)
            .map(|(k, _)| k)
            .collect();
        probe_changes(probe, &new.probe, &mut out);
        out
    }
}

fn probe_changes(old: &Probe, new: &Probe, out: &mut Vec<&'static str>) {
    let Probe {
        enabled,
        rate,
        window,
        timeout,
        busy_threshold,
        devices,
        write,
    } = old;
    let changed = [
        (RawProbe::disable.name, *enabled != new.enabled),
        (RawProbe::rate.name, *rate != new.rate),
        (RawProbe::window.name, *window != new.window),
        (RawProbe::timeout.name, *timeout != new.timeout),
        (
            RawProbe::busy_threshold.name,
            *busy_threshold != new.busy_threshold,
        ),
        (RawProbe::device.name, *devices != new.devices),
    ];
    out.extend(changed.into_iter().filter(|(_, c)| *c).map(|(k, _)| k));
    let write_key = |w: &Option<ProbeWrite>| {
        w.as_ref().map(
            |ProbeWrite {
                 path,
                 rate,
                 flush,
                 max_bytes,
             }| { (path.clone(), rate.to_bits(), *flush, *max_bytes) },
        )
    };
    match (write_key(write), write_key(&new.write)) {
        (a, b) if a == b => {}
        (Some((path, rate, flush, max)), Some((p2, r2, f2, m2))) => {
            let changed = [
                (RawProbeWrite::path.name, path != p2),
                (RawProbeWrite::rate.name, rate != r2),
                (RawProbeWrite::mode.name, flush != f2),
                (RawProbeWrite::max_bytes.name, max != m2),
            ];
            out.extend(changed.into_iter().filter(|(_, c)| *c).map(|(k, _)| k));
        }
        _ => out.push(RawProbeWrite::path.name),
    }
}
