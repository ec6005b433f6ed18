//! The one integration test binary: the real `ssd_exporter` binary serving
//! dump fixtures, the command line, and the exposition.

mod common;
mod exit_codes;
mod docs;
mod golden;
