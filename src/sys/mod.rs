//! The only `unsafe` in the crate: the kernel interfaces the exporter uses,
//! wrapped as safe functions. Every `unsafe` block carries a `// SAFETY:`
//! comment; structures the kernel writes back into are passed `&mut`.
#![allow(unsafe_code)]

pub mod megaraid;
pub mod nvme;
pub mod process;
pub mod sg;
pub mod socket;
