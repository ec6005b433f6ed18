//! NVMe depth families (`shared/reference/metrics.md`, "NVMe depth"):
//! endurance groups (09h), write amplification, firmware slots (03h), the
//! persistent event log (0Dh), the telemetry header (08h), and the OCP C0h
//! fields served as they are.

use std::fmt;

use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, Wide, counter, family};
use crate::nvme::{CriticalWarning, EnduranceGroupLog};
use crate::reading::nvme_depth::NvmeReading;
use crate::snapshot::DriveSnapshot;

/// The NVMe drives with their NVMe-only reading.
pub(super) type Drives<'a> = Vec<(&'a DriveSnapshot, &'a NvmeReading)>;

/// Every endurance group of every drive, its identifier as a label.
type Groups<'a> = Vec<(&'a DriveSnapshot, String, &'a EnduranceGroupLog)>;

/// A per-group gauge: name, help, value.
type GroupGauge = (
    &'static str,
    &'static str,
    fn(&EnduranceGroupLog) -> Option<f64>,
);
/// A per-group counter: name without `_total`, help, value.
type GroupCounter = (
    &'static str,
    &'static str,
    fn(&EnduranceGroupLog) -> Option<u128>,
);

const GROUP_GAUGES: &[GroupGauge] = &[
    (
        "ssd_endurance_group_percentage_used_ratio",
        "Endurance group's estimate of its life used, 0-1; may exceed 1 (log 09h byte 5).",
        |g| Some(g.percentage_used_ratio),
    ),
    (
        "ssd_endurance_group_available_spare_ratio",
        "Endurance group's remaining spare capacity, 0-1 (log 09h byte 3).",
        |g| Some(g.available_spare_ratio),
    ),
    (
        "ssd_endurance_group_available_spare_threshold_ratio",
        "Spare capacity below which the endurance group raises a critical warning, 0-1 (log 09h byte 4).",
        |g| Some(g.available_spare_threshold_ratio),
    ),
    (
        "ssd_endurance_group_estimate_bytes",
        "Bytes the endurance group may take over its life at a write amplification of 1 (log 09h Endurance Estimate x 10^9).",
        |g| g.endurance_estimate_bytes.map(|b| b as f64),
    ),
    (
        "ssd_endurance_group_capacity_bytes",
        "Endurance group's total capacity (log 09h TEGCAP).",
        |g| g.total_capacity_bytes.map(|b| b as f64),
    ),
    (
        "ssd_endurance_group_unallocated_bytes",
        "Endurance group's capacity not allocated to NVM sets or namespaces (log 09h UEGCAP).",
        |g| g.unallocated_capacity_bytes.map(|b| b as f64),
    ),
];

const GROUP_COUNTERS: &[GroupCounter] = &[
    (
        "ssd_endurance_group_host_read_bytes",
        "Bytes the host read from the endurance group (log 09h Data Units Read x 10^9).",
        |g| g.data_read_bytes,
    ),
    (
        "ssd_endurance_group_host_written_bytes",
        "Bytes the host wrote to the endurance group (log 09h Data Units Written x 10^9).",
        |g| g.data_written_bytes,
    ),
    (
        "ssd_endurance_group_media_written_bytes",
        "Bytes written to the endurance group's media, host and internal writes (log 09h Media Units Written x 10^9).",
        |g| g.media_written_bytes,
    ),
    (
        "ssd_endurance_group_host_read_commands",
        "Read commands completed for the endurance group (log 09h).",
        |g| Some(g.host_read_commands),
    ),
    (
        "ssd_endurance_group_host_write_commands",
        "Write commands completed for the endurance group (log 09h).",
        |g| Some(g.host_write_commands),
    ),
    (
        "ssd_endurance_group_media_errors",
        "Unrecovered data integrity errors in the endurance group (log 09h).",
        |g| Some(g.media_errors),
    ),
    (
        "ssd_endurance_group_error_log_entries",
        "Error information log entries of the endurance group over its life (log 09h).",
        |g| Some(g.error_log_entries),
    ),
];

impl Exposition {
    pub(super) fn nvme(&self, enc: &mut Enc) -> fmt::Result {
        let drives: Drives = self
            .drives
            .iter()
            .filter_map(|d| Some((d.as_ref(), d.reading.as_ref()?.nvme.as_ref()?)))
            .collect();
        let groups: Groups = drives
            .iter()
            .flat_map(|(d, n)| {
                n.endurance_groups
                    .iter()
                    .map(move |(g, log)| (*d, g.to_string(), log))
            })
            .collect();
        self.endurance_groups(enc, &groups)?;
        let wa = drives
            .iter()
            .filter_map(|(d, n)| n.write_amplification.map(|v| (Self::base(d), v)));
        family(
            enc,
            "ssd_write_amplification_ratio",
            "Bytes written to the media per byte the host wrote (endurance groups' media/data units written, else OCP C0h physical media units written / SMART host bytes written).",
            MetricType::Gauge,
            wa,
        )?;
        self.firmware(enc, &drives)?;
        self.pel(enc, &drives)?;
        self.telemetry(enc, &drives)?;
        self.ocp_depth(enc, &drives)
    }

    fn endurance_groups(&self, enc: &mut Enc, groups: &Groups) -> fmt::Result {
        let warnings = groups.iter().flat_map(|(d, g, log)| {
            CriticalWarning::ENDURANCE_GROUP_CONDITIONS
                .iter()
                .map(move |&(c, bit)| {
                    let labels = [("group", g.as_str()), ("condition", c.as_label())];
                    (
                        Self::with(d, labels),
                        f64::from(log.critical_warning.is_set(bit)),
                    )
                })
        });
        family(
            enc,
            "ssd_endurance_group_warning",
            "1 while the endurance group raises this critical warning condition (log 09h byte 0).",
            MetricType::Gauge,
            warnings,
        )?;
        for &(name, help, f) in GROUP_GAUGES {
            let rows = groups.iter().filter_map(|(d, g, log)| {
                f(log).map(|v| (Self::with(d, [("group", g.as_str())]), v))
            });
            family(enc, name, help, MetricType::Gauge, rows)?;
        }
        for &(name, help, f) in GROUP_COUNTERS {
            let rows = groups.iter().filter_map(|(d, g, log)| {
                f(log).map(|v| (Self::with(d, [("group", g.as_str())]), Wide(v)))
            });
            counter(enc, name, help, rows)?;
        }
        Ok(())
    }

    fn firmware(&self, enc: &mut Enc, drives: &Drives) -> fmt::Result {
        let slots: Vec<_> = drives
            .iter()
            .filter_map(|(d, n)| Some((*d, n.firmware.as_ref()?)))
            .flat_map(|(d, fw)| {
                fw.slots.iter().map(move |s| {
                    let active = if s.slot == fw.active_slot {
                        "true"
                    } else {
                        "false"
                    };
                    (d, s.slot.to_string(), s.revision.as_str(), active)
                })
            })
            .collect();
        let rows = slots.iter().map(|(d, slot, rev, active)| {
            let labels = [
                ("slot", slot.as_str()),
                ("revision", *rev),
                ("active", *active),
            ];
            (Self::with(d, labels), 1.0)
        });
        family(
            enc,
            "ssd_firmware_slot_info",
            "A firmware slot holding an image (log 03h); active is the slot the running firmware came from; always 1.",
            MetricType::Gauge,
            rows,
        )?;
        let pending = drives.iter().filter_map(|(d, n)| {
            let fw = n.firmware.as_ref()?;
            Some((Self::base(d), f64::from(fw.activation_pending())))
        });
        family(
            enc,
            "ssd_firmware_activation_pending",
            "1 when the next controller reset activates another firmware slot (log 03h AFI bits 6:4 name a slot other than the active one).",
            MetricType::Gauge,
            pending,
        )
    }

    fn pel(&self, enc: &mut Enc, drives: &Drives) -> fmt::Result {
        let pels: Vec<_> = drives
            .iter()
            .filter_map(|(d, n)| Some((*d, n.pel.as_ref()?)))
            .collect();
        // A type never logged is served only with diagnostics (lazy).
        let lazy = self.build.detail.lazy();
        let counts = pels.iter().flat_map(|(d, p)| {
            p.counts
                .iter()
                .filter(move |&&(_, n)| n > 0 || !lazy)
                .map(move |&(t, n)| (Self::with(d, [("type", t.as_label())]), Wide(u128::from(n))))
        });
        counter(
            enc,
            "ssd_pel_events",
            "Persistent event log events of this type the exporter has seen, each counted once (log 0Dh); served from the first event of the type (from 0 with metrics.diagnostics).",
            counts,
        )?;
        let newest = pels.iter().flat_map(|(d, p)| {
            p.newest
                .iter()
                .map(move |&(t, s)| (Self::with(d, [("type", t.as_label())]), s))
        });
        family(
            enc,
            "ssd_pel_last_event_timestamp_seconds",
            "When the newest event of this type in the persistent event log happened, for events the drive timed with a host-set clock (log 0Dh).",
            MetricType::Gauge,
            newest,
        )
    }

    fn telemetry(&self, enc: &mut Enc, drives: &Drives) -> fmt::Result {
        let headers: Vec<_> = drives
            .iter()
            .filter_map(|(d, n)| Some((*d, n.telemetry.as_ref()?)))
            .collect();
        family(
            enc,
            "ssd_telemetry_ctrl_data_available",
            "1 while the drive holds internal state it captured on its own, not yet collected (log 08h byte 382).",
            MetricType::Gauge,
            headers
                .iter()
                .map(|(d, t)| (Self::base(d), f64::from(t.data_available))),
        )?;
        family(
            enc,
            "ssd_telemetry_ctrl_generation",
            "Generation number of the drive's own internal-state captures (log 08h byte 383, wraps at 255); a change means the drive recorded an internal failure.",
            MetricType::Gauge,
            headers
                .iter()
                .map(|(d, t)| (Self::base(d), f64::from(t.generation))),
        )
    }
}
