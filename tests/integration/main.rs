//! The one integration test binary: the real `ssd_exporter` binary serving
//! dump fixtures, the command line, and the exposition.

mod check;
mod common;
mod demo;
mod docs;
mod exit_codes;
mod fixtures;
mod golden;
mod gzip;
mod landing;
mod layering;
mod overrides;
mod probe;
mod probe_protobuf;
mod rules;
mod sas_verdict;
mod series;
mod single_series;
mod state;
mod verdict;
