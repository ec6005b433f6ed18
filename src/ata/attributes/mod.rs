//! ATA SMART attribute naming: which name and raw format an attribute id has
//! on a given drive, how its raw bytes decode, and which attributes carry the
//! exporter's unified meanings (wear, host writes, unsafe shutdowns, …).
//!
//! Names and formats come from a built-in table (smartctl's DEFAULT names and
//! a few datacenter SSD families, see `families.rs`) that a smartmontools
//! `drivedb.h` on the host can override ([`Namer::with_drivedb`]): a drive
//! the file knows takes the file's entry, a drive it does not know falls back
//! to the built-in families, and the file's DEFAULT entry replaces built-in
//! default names id by id. Meanings always come from the built-in family the
//! model matches (the file carries no meanings), else from a few DEFAULT
//! names every drive shares (power-on hours, power cycles, temperature, CRC
//! errors, reported uncorrectables, reallocated sectors).

mod builtin;
pub mod drivedb;
mod families;
mod namer;
pub mod presets;
pub mod rawfmt;
mod temp;

pub use namer::{DrivePresets, MediaKind, Namer};
pub use rawfmt::{AttrBytes, ByteOrder, Decoded, RawFormat, decode, decode_bytes};

/// How one attribute is named and decoded on a drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttrDef {
    /// smartctl's ATTRIBUTE_NAME.
    pub name: String,
    pub format: RawFormat,
    /// An explicit byte order (`raw24/raw24:z54z10`); `None` uses the
    /// format's default.
    pub byte_order: Option<ByteOrder>,
}

impl AttrDef {
    /// Decodes the attribute's bytes as smartctl would.
    pub fn decode(&self, bytes: &AttrBytes) -> Decoded {
        decode_bytes(self.format, self.byte_order.as_ref(), bytes)
    }

    /// Whether the normalized and worst bytes still mean normalized values:
    /// false when the raw value is built from them (raw64/hex64 by default, or
    /// a byte order with `v`/`w`), as smartctl then prints `---`.
    pub fn normalized_valid(&self) -> bool {
        match &self.byte_order {
            Some(o) => !o.uses_value_bytes(),
            None => !matches!(self.format, RawFormat::Raw64 | RawFormat::Hex64),
        }
    }
}

/// A unified meaning an attribute can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Meaning {
    /// Percentage of rated endurance used; counts up, may exceed 100.
    PercentageUsed,
    /// Percentage of rated life left; counts down from 100.
    LifeLeftPercent,
    /// Bytes written by the host.
    HostWrittenBytes,
    /// Bytes read by the host.
    HostReadBytes,
    /// Bytes written to NAND (host writes plus write amplification).
    NandWrittenBytes,
    /// NAND pages programmed, page size unknown; several ids may add up
    /// (Micron: host-initiated plus background programs).
    NandProgramPages,
    /// Power-on time; the decoded value is hours, the scale 3600.
    PowerOnSeconds,
    PowerCycles,
    /// Current temperature, °C.
    Temperature,
    /// Power losses without a clean shutdown.
    UnsafeShutdowns,
    /// Health of the power-loss-protection capacitors as a documented
    /// percentage (100 = healthy). No built-in family has one today.
    PlpHealthPercent,
    /// The drive's own capacitor self-test (Intel 175 normalized): 100
    /// passed, 1 failed, 11 tested at an excessive temperature (not a
    /// failure); any other value says nothing.
    PlpCapacitorTest,
    /// Thermal throttling events.
    ThermalThrottleEvents,
    /// SATA interface CRC errors.
    CrcErrors,
    /// Uncorrectable errors reported to the host.
    MediaErrors,
    /// Reallocated sectors (DEFAULT `Reallocated_Sector_Ct`).
    ReallocatedSectors,
}

/// Which number of an attribute a meaning reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueSource {
    /// [`Decoded::value`] of the raw bytes.
    Raw,
    /// [`Decoded::second`]: the second number of an `a/b` format (Intel's
    /// Thermal_Throttle_Status `percent/events`).
    RawSecond,
    /// The normalized current value (attribute entry byte 3).
    Normalized,
}

/// One attribute carrying one meaning: `base unit = number × scale` (GiB →
/// 2^30, 32 MiB units → 2^25, LBAs → 512, hours → 3600).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeaningDef {
    pub id: u8,
    pub meaning: Meaning,
    pub source: ValueSource,
    pub scale: f64,
}

#[cfg(test)]
mod tests;
