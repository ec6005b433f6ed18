//! The judge of a unified reading ([`crate::reading`]): the verdict with its
//! reasons, the history it remembers, the wear-out forecast, the datasheet
//! table and the tuning a site gives it.

mod attribute_rules;
pub mod datasheet;
pub mod forecast;
pub mod history;
mod judgement;
pub mod mute;
mod pcie_rules;
mod rules;
pub mod tuning;
pub mod verdict;
mod verdict_nvme;
mod verdict_rules;
