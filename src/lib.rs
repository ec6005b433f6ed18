//! ssd_exporter: SSD health and latency as Prometheus metrics, read through
//! the exporter's own NVMe admin-passthrough and SG_IO (ATA PASS-THROUGH
//! and plain SCSI commands) ioctls — no smartctl, no nvme-cli, no forks,
//! and no device I/O on the scrape path.
//!
//! # Layout
//!
//! Data flows one way:
//!
//! ```text
//! device (live ioctl | replay folder | demo) → decode (pure) → reading (unified)
//!     → verdict (health) → snapshot (per drive) → /metrics, check, landing page
//! probe (O_DIRECT, rate-limited) → histogram + sliding window → /metrics
//! ```
//!
//! - [`sys`]: the only `unsafe` in the crate: ioctls, the open-file limit and
//!   the systemd socket wrapped as safe functions.
//! - [`decode`]: bounds-checked little-endian field helpers and [`decode::ParseError`].
//! - [`files`]: the one way a file the operator names is read (config,
//!   web config, certificates, drivedb.h): non-blocking open, regular files
//!   only, capped in size.
//! - [`nvme`]: pure decoders for NVMe pages (Identify, SMART/Health, OCP C0h,
//!   error and self-test logs, UUID list, firmware slots, the telemetry
//!   header, endurance groups and their list, the persistent event log),
//!   each reading through its page's one layout struct, and NVMe status codes.
//! - [`ata`]: SATA over SG_IO: pass-through CDBs and what a completion means, and pure decoders
//!   for IDENTIFY, SMART data/thresholds/status, Device Statistics, self-tests,
//!   each reading through its page's one layout struct (`ata::sector`);
//!   attribute names and raw formats (built-in table, drivedb.h) in `ata::attributes`.
//! - [`scsi`]: SAS/SCSI disks: the CDBs, status and sense data (`scsi::sense`, the ATA
//!   registers of a pass-through answer included) and what a completion means, and
//!   pure decoders (INQUIRY, VPD, READ CAPACITY(16), LOG SENSE pages, the
//!   self-test log, grown defects) and what an informational exception means
//!   (`scsi::exceptions`), reading through big-endian layouts and the one framing of log
//!   parameters and VPD designators (`scsi::layout`, `scsi::log_layout`).
//! - [`usb`]: drives behind USB bridges as protocol: drivedb.h's device
//!   types, the `bridge` label, and the frames that carry NVMe admin
//!   commands through JMicron, ASMedia and Realtek bridges (SAT is
//!   `ata::passthrough`).
//! - [`device`]: where page bytes come from — a live controller, a replay
//!   folder or the `--demo` simulation, behind one trait per transport —
//!   plus sysfs discovery (which transport drives each disk, and whether it
//!   is a physical drive or a virtual volume: `device::discovery::volume`).
//! - [`poll`]: one poll of one drive: which pages, what a failure means,
//!   what the drive supports ([`poll::Source`] names every page), the
//!   identity-refresh schedule (`poll::refresh`); every poller is made in
//!   `poll::factory` (serve, check, dump, demo and the tests).
//! - [`dump`]: `ssd_exporter dump`, a poll whose pages are written to a folder.
//! - [`reading`]: the unified reading that NVMe, SATA and SCSI pages map onto,
//!   the pages each transport reads, and the pure mappers from pages to the
//!   reading (one file per transport); a poll fills it.
//! - [`health`]: the judge of a reading: the verdict (rules over the reading and its history, with each drive's
//!   thresholds and mutes passed in as values: `health::tuning`), wear-out
//!   forecast and datasheet ratings.
//! - [`probe`]: the latency probe: Poisson schedule, busy back-off, read and
//!   opt-in write I/O, histogram and sliding-window quantiles, one thread per
//!   drive; its `op` and `result` labels as enums (`probe::op`).
//! - [`snapshot`]: the latest state of every drive, shared with the server.
//! - [`state`]: what the exporter saw of each drive, kept across restarts
//!   in one checksummed, atomically written file under `state.path`
//!   (counter baselines, wear samples, temperature range, first seen, last
//!   self-test), by identity; the memory a drive's history is restored
//!   from when it identifies itself.
//! - [`metrics`]: every metric's name, help, type and typed label set, in
//!   one place; the one owner of a scrape's body (`metrics::Bodies`: text,
//!   OpenMetrics or protobuf, plain or gzip), each drive's series encoded
//!   once per snapshot and format and copied into a scrape (on the
//!   server's async thread when nothing needs encoding); the probes'
//!   series, which change every second, written straight into text; the
//!   probe latency as a native histogram on protobuf; gzip bodies made of
//!   runs compressed apart, the unchanged ones reused.
//! - [`http`]: the server: `/metrics` (negotiating the format and the
//!   encoding, then moving the body's bytes), the landing page,
//!   `/healthz`; TLS, basic auth and headers from the exporter-toolkit web
//!   config; the connection and request caps and the connection timers.
//! - [`report`], [`check`]: one row per drive for people — `ssd_exporter
//!   check` (text, JSON, Nagios exit codes) and the landing page share it.
//! - [`config`], [`cli`], [`logging`], [`timefmt`], [`app`]: flags and config
//!   file (every key once, in `config::keys`: YAML section, flag, default
//!   from the module that uses it, bound, docs/configuration.md row; per-drive
//!   `health.overrides` in `config::overrides`; `config::yaml`: the
//!   file's errors in YAML's terms), log output and
//!   timestamps, and the wiring that runs it all (`app::schedule`: each
//!   drive's supervised poll loop with its deadline; `app::pool`: the few
//!   worker threads every drive's polls run on, and the watchdog that
//!   writes off and replaces a worker stuck past a deadline; `app::persist`: the
//!   state file loaded at start, saved each poll interval and at shutdown;
//!   `app::reload`: the config reload on SIGHUP).
//!
//! ## Who imports whom
//!
//! No module imports one that imports it back, at the level of the
//! top-level modules and of sibling files (`tests/integration/layering.rs`
//! fails on a new cycle). Today's edges, lowest first:
//!
//! ```text
//! decode, sys, timefmt, files   (nothing of the crate)
//! nvme                          → decode
//! scsi                          → decode
//! ata                           → decode, files (drivedb.h), scsi (sense data: SAT carries the registers)
//! usb                           → decode, sys (the NVMe command's fields)
//! device                        → sys, nvme, ata, scsi, usb, decode
//! reading                       → nvme, ata, scsi, device (transport, kind and PCIe names)
//! health                        → reading, nvme, scsi, device (PCIe facts), timefmt, probe (op)
//! poll                          → device, nvme, ata, scsi, usb, decode, reading
//! snapshot                      → poll, reading, health, probe (op; quantiles for the judge), device (place), timefmt (mute ends)
//! state                         → snapshot, reading, health, files, timefmt
//! report                        → snapshot, health, probe (views, QoS: the landing page's latency), timefmt
//! probe                         (nothing of the crate outside it)
//! metrics                       → snapshot, poll, probe, reading, device, nvme, state (counters)
//! http                          → report, files, metrics (the formats and encodings), sys (unread bytes, free memory)
//! dump                          → poll (factory, fallback), device, nvme, scsi (page layouts), timefmt
//! config                        → reading, health, probe, http, poll, device, ata (defaults; namer, scan, poller), metrics (detail), state (default path), timefmt (mute dates), files
//! cli                           → config
//! logging                       → config, timefmt
//! check                         → config, poll, snapshot, report, reading, health, device (demo), sys (terminal width)
//! app                           → everything it wires
//! ```
//!
//! The layers run one way: device → reading ← poll, then health judges the
//! reading a poll filled (`reading` holds the unified reading, the pages each
//! transport reads and the pure mappers from pages to the reading).
#![deny(unsafe_code)]

pub mod app;
pub mod ata;
pub mod check;
pub mod cli;
pub mod config;
pub mod decode;
pub mod device;
pub mod dump;
pub mod files;
pub mod health;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod nvme;
pub mod poll;
pub mod probe;
pub mod reading;
pub mod report;
pub mod scsi;
pub mod snapshot;
pub mod state;
pub mod sys;
pub mod timefmt;
pub mod usb;
