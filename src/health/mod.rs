//! Readings unified across transports: one model that NVMe, SATA and SCSI
//! pages are all mapped onto, so one dashboard and one alert rule cover both.

pub mod datasheet;
pub mod forecast;
pub mod history;
mod judgement;
pub mod mute;
pub mod nvme;
pub mod nvme_depth;
mod pcie_rules;
pub mod reading;
mod rules;
pub mod sata;
pub mod scsi;
pub mod tuning;
pub mod verdict;
mod verdict_nvme;
mod verdict_rules;

pub use reading::{AtaAttribute, Counters, Identity, Reading, ScsiReading};
