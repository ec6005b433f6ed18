//! ATA SMART attribute naming: raw-value formats and the drivedb.h parser so far.

pub mod drivedb;
pub mod presets;
pub mod rawfmt;
mod temp;

#[cfg(test)]
mod tests;

pub use rawfmt::{AttrBytes, ByteOrder, Decoded, RawFormat, decode, decode_bytes};
