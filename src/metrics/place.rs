//! Where a drive sits and the PCIe link it sits on
//! (`shared/reference/metrics.md`, "Additions"): the place labels of
//! `ssd_device_info` (`fabric`, `pci_address`, `slot`, `sas_address`,
//! `sas_phy`, `enclosure`, `path`; only those sysfs gives, so a replayed or
//! simulated drive's identity is unchanged), and an NVMe controller's link
//! speed and width and AER counters.

use std::fmt;

use prometheus_client::encoding::{EncodeLabel, EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::MetricType;

use super::{Enc, Exposition, Wide, counter, family};
use crate::device::sysfs::pcie::Pcie;
use crate::device::sysfs::place::Place;
use crate::snapshot::DriveSnapshot;

/// The place labels of `ssd_device_info` that have a value.
#[derive(Debug, Clone, Copy)]
pub(super) struct PlaceLabels<'a>(pub &'a Place);

impl EncodeLabelSet for PlaceLabels<'_> {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> fmt::Result {
        for (name, value) in self.0.labels() {
            if !value.is_empty() {
                (name, value).encode(encoder.encode_label())?;
            }
        }
        Ok(())
    }
}

impl Exposition {
    pub(super) fn pcie(&self, enc: &mut Enc) -> fmt::Result {
        let links: Vec<(&DriveSnapshot, &Pcie)> = self
            .drives
            .iter()
            .filter_map(|d| Some((d.as_ref(), d.reading.as_ref()?.pcie.as_ref()?)))
            .collect();
        let speeds = links.iter().flat_map(|(d, p)| {
            [("current", p.link.current_speed), ("max", p.link.max_speed)]
                .into_iter()
                .filter_map(|(l, v)| v.map(|v| (Self::with(d, [("link", l)]), v as f64)))
        });
        family(
            enc,
            "ssd_pcie_link_speed_transfers_per_second",
            "PCIe link speed of the NVMe controller's PCI function, now and at most (sysfs current_link_speed, max_link_speed; GT/s x 1e9).",
            MetricType::Gauge,
            speeds,
        )?;
        let widths = links.iter().flat_map(|(d, p)| {
            [("current", p.link.current_width), ("max", p.link.max_width)]
                .into_iter()
                .filter_map(|(l, v)| v.map(|v| (Self::with(d, [("link", l)]), f64::from(v))))
        });
        family(
            enc,
            "ssd_pcie_link_width_lanes",
            "PCIe link width of the NVMe controller's PCI function, now and at most (sysfs current_link_width, max_link_width).",
            MetricType::Gauge,
            widths,
        )?;
        let errors = links.iter().flat_map(|(d, p)| {
            p.aer.iter().map(move |a| {
                let l = Self::with(d, [("severity", a.severity.as_label())]);
                (l, Wide(u128::from(a.total)))
            })
        });
        counter(
            enc,
            "ssd_pcie_errors",
            "PCIe errors the NVMe controller's PCI function reported, by AER severity, since the kernel found it (sysfs aer_dev_*, TOTAL_ERR_*).",
            errors,
        )
    }
}

#[cfg(test)]
mod tests;
