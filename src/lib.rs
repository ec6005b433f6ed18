//! ssd_exporter: SSD health as Prometheus metrics, read through the
//! exporter's own NVMe admin-passthrough ioctls — no smartctl, no nvme-cli,
//! no forks, and no device I/O on the scrape path.
//!
//! # Layout
//!
//! Data flows one way:
//!
//! ```text
//! device (live ioctl | replay folder) → decode (pure) → reading (unified)
//!     → snapshot (per drive) → /metrics, landing page
//! ```
//!
//! - [`sys`]: the only `unsafe` in the crate: ioctls wrapped as safe functions.
//! - [`decode`]: bounds-checked little-endian field helpers and [`decode::ParseError`].
//! - [`nvme`]: pure decoders for NVMe pages (Identify, SMART/Health, OCP C0h,
//!   error and self-test logs, UUID list) and NVMe status codes.
//! - [`ata`]: SATA over SG_IO: pass-through CDBs and sense, and pure decoders
//!   for IDENTIFY, SMART data/thresholds/status, Device Statistics, self-tests;
//!   attribute names and raw formats (built-in table, drivedb.h) in `ata::attributes`.
//! - [`device`]: where page bytes come from — a live controller or a replay
//!   folder, behind one trait — plus sysfs discovery and `dump`.
//! - [`poll`]: one poll of one drive (which pages, what a failure means) and
//!   each drive's schedule with its deadline.
//! - [`health`]: the unified reading that NVMe (and later SATA) pages map onto.
//! - [`snapshot`]: the latest state of every drive, shared with the server.
//! - [`metrics`]: every metric's name, help, type and labels, in one place.
//! - [`http`]: the server: `/metrics`, the landing page, `/healthz`.
//! - [`config`], [`cli`], [`logging`], [`timefmt`], [`app`]: flags and config
//!   file, log output and timestamps, and the wiring that runs it all.
#![deny(unsafe_code)]

pub mod app;
pub mod ata;
pub mod check;
pub mod cli;
pub mod config;
pub mod decode;
pub mod device;
pub mod health;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod nvme;
pub mod poll;
pub mod probe;
pub mod report;
pub mod snapshot;
pub mod sys;
pub mod timefmt;
