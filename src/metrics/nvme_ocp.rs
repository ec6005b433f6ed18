//! The OCP C0h fields with no unified series, served as the page gives
//! them, each only where the log page version defines it (`nvme::ocp`):
//! media dies, erase counts, free blocks, command timeouts, system-area
//! failures, namespace utilization, the raw endurance estimate, and the
//! specification versions the drive follows.

use std::fmt;

use prometheus_client::metrics::MetricType;

use super::nvme::Drives;
use super::{Enc, Exposition, Wide, counter, family};
use crate::nvme::OcpSmartLog;
use crate::snapshot::DriveSnapshot;

type Gauge = (&'static str, &'static str, fn(&OcpSmartLog) -> Option<f64>);

const GAUGES: &[Gauge] = &[
    (
        "ssd_media_dies",
        "NAND dies in the drive (OCP C0h Total Media Dies, log page version 5 on).",
        |o| o.total_media_dies.map(f64::from),
    ),
    (
        "ssd_media_die_failure_tolerance",
        "Dies that may fail with the drive still working (OCP C0h Total Die Failure Tolerance, version 5 on).",
        |o| o.total_die_failure_tolerance.map(f64::from),
    ),
    (
        "ssd_media_dies_offline",
        "Dies taken offline (OCP C0h Media Dies Offline, version 5 on); at the tolerance the drive is critical.",
        |o| o.media_dies_offline.map(f64::from),
    ),
    (
        "ssd_free_blocks_ratio",
        "Share of the spare blocks erased and free, 0-1 (OCP C0h Percent Free Blocks).",
        |o| Some(f64::from(o.percent_free_blocks) / 100.0),
    ),
    (
        "ssd_namespace_utilization_blocks",
        "Logical blocks in use over all namespaces (OCP C0h Total NUSE).",
        |o| Some(o.nuse as f64),
    ),
    (
        "ssd_ocp_endurance_estimate_bytes",
        "OCP C0h Endurance Estimate (bytes 191:176), total bytes the drive expects to take, as reported; a rated endurance (source ocp) only where nothing else rates the drive and it is at least one full drive write.",
        |o| (o.endurance_estimate != 0).then_some(o.endurance_estimate as f64),
    ),
];

impl Exposition {
    pub(super) fn ocp_depth(&self, enc: &mut Enc, drives: &Drives) -> fmt::Result {
        let ocps: Vec<(&DriveSnapshot, &OcpSmartLog)> = drives
            .iter()
            .filter_map(|(d, n)| Some((*d, n.ocp.as_ref()?)))
            .collect();
        for &(name, help, f) in GAUGES {
            let rows = ocps
                .iter()
                .filter_map(|(d, o)| f(o).map(|v| (Self::base(d), v)));
            family(enc, name, help, MetricType::Gauge, rows)?;
        }
        let erases = ocps.iter().flat_map(|(d, o)| {
            [
                ("max", Some(u64::from(o.max_user_data_erase_count))),
                ("min", Some(u64::from(o.min_user_data_erase_count))),
                ("average", o.nand_avg_erase_count),
            ]
            .into_iter()
            .filter_map(move |(s, v)| v.map(|v| (Self::with(d, [("stat", s)]), v as f64)))
        });
        family(
            enc,
            "ssd_nand_erase_cycles",
            "Erase cycles of the most (max) and least (min) erased user data block, and the NAND average (average, version 5 on) (OCP C0h).",
            MetricType::Gauge,
            erases,
        )?;
        let timeouts = ocps.iter().filter_map(|(d, o)| {
            o.command_timeouts
                .map(|n| (Self::base(d), Wide(u128::from(n))))
        });
        counter(
            enc,
            "ssd_command_timeouts",
            "Commands that timed out in the drive (OCP C0h Command Timeouts, version 5 on).",
            timeouts,
        )?;
        let system = ocps.iter().flat_map(|(d, o)| {
            [
                ("program", o.sys_area_program_fail_count_raw),
                ("uncorrectable_read", o.sys_area_uncorr_read_count_raw),
                ("erase", o.sys_area_erase_fail_count_raw),
            ]
            .into_iter()
            .filter_map(move |(op, v)| {
                v.map(|v| (Self::with(d, [("op", op)]), Wide(u128::from(v))))
            })
        });
        counter(
            enc,
            "ssd_system_area_failures",
            "Program, erase and uncorrectable read failures in the drive's system area (OCP C0h raw counts, version 5 on).",
            system,
        )?;
        self.ocp_info(enc, &ocps)
    }

    fn ocp_info(&self, enc: &mut Enc, ocps: &[(&DriveSnapshot, &OcpSmartLog)]) -> fmt::Result {
        let num = |v: Option<u8>| v.map(|v| v.to_string()).unwrap_or_default();
        let labels: Vec<(&DriveSnapshot, [String; 7])> = ocps
            .iter()
            .map(|(d, o)| {
                let dssd = match (
                    o.dssd_major_version,
                    o.dssd_minor_version,
                    o.dssd_point_version,
                ) {
                    (Some(ma), Some(mi), Some(pt)) => format!("{ma}.{mi}.{pt}"),
                    _ => String::new(),
                };
                let values = [
                    o.log_page_version.to_string(),
                    dssd,
                    num(o.dssd_errata_version),
                    num(o.nvme_base_errata_version),
                    num(o.nvme_cmdset_errata_version),
                    num(o.nvme_over_pcie_errata_version),
                    num(o.nvme_mi_errata_version),
                ];
                (*d, values)
            })
            .collect();
        let rows = labels.iter().map(|(d, v)| {
            let own = [
                ("log_page_version", v[0].as_str()),
                ("dssd_version", v[1].as_str()),
                ("dssd_errata", v[2].as_str()),
                ("nvme_base_errata", v[3].as_str()),
                ("nvme_cmdset_errata", v[4].as_str()),
                ("nvme_pcie_errata", v[5].as_str()),
                ("nvme_mi_errata", v[6].as_str()),
            ];
            (Self::with(d, own), 1.0)
        });
        family(
            enc,
            "ssd_ocp_info",
            "The OCP C0h log page version and the specification versions it reports (empty where the version does not define the field); always 1.",
            MetricType::Gauge,
            rows,
        )
    }
}
