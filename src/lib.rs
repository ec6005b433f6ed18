//! ssd_exporter: SSD health and latency as Prometheus metrics, read through
//! the exporter's own NVMe admin-passthrough and SG_IO ioctls.
//!
//! # Layout
//!
//! Data flows one way:
//! `device → decode → reading → snapshot → /metrics`.
//!
//! - [`sys`]: the only `unsafe` in the crate: ioctls wrapped as safe functions.
//! - [`decode`]: bounds-checked little-endian helpers and [`decode::ParseError`].
//! - [`nvme`]: pure decoders for NVMe pages (Identify, SMART, OCP C0h, error and
//!   self-test logs) and NVMe status codes.
//! - [`device`]: where page bytes come from (live ioctl, replay folder), discovery.
#![deny(unsafe_code)]

pub mod decode;
pub mod http;
pub mod nvme;
pub mod sys;
pub mod device;
pub mod health;
pub mod metrics;
pub mod poll;
pub mod snapshot;
pub mod app;
pub mod cli;
pub mod config;
pub mod http;
pub mod logging;
