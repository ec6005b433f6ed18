//! Readings unified across transports: one model that NVMe and SATA pages
//! are both mapped onto, so one dashboard and one alert rule cover both.

pub mod nvme;
pub mod reading;

pub use reading::{Counters, Identity, Reading};
