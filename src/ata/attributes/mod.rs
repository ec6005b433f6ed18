//! ATA SMART attribute naming: raw-value formats so far.

pub mod rawfmt;
mod temp;

#[cfg(test)]
mod tests;

pub use rawfmt::{AttrBytes, ByteOrder, Decoded, RawFormat, decode, decode_bytes};
