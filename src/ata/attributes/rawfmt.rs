//! smartmontools' raw-value print formats (`smartctl -v ID,FORMAT[:BYTEORDER]`):
//! which attribute bytes make up the raw value, and how smartctl prints it.
//!
//! Behaviour follows `smartmontools:lib/atacmds.cpp` (`format_names`,
//! `ata_get_attr_raw_value`, `ata_format_attr_raw_value`) and smartctl(8) `-v`.

use std::fmt;

/// A raw-value format, one per smartmontools format name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RawFormat {
    /// `raw8`: six bytes printed high to low, `"5 4 3 2 1 0"`.
    Raw8,
    /// `raw16`: three 16-bit words printed high to low.
    Raw16,
    /// `raw48`: bytes 0..5 as one little-endian integer (the default).
    Raw48,
    /// `hex48`: like raw48, printed `0x%012x`.
    Hex48,
    /// `raw56`: reserved byte on top of raw48.
    Raw56,
    /// `hex56`: raw56 printed `0x%014x`.
    Hex56,
    /// `raw64`: worst and normalized bytes on top of raw48.
    Raw64,
    /// `hex64`: raw64 printed `0x%016x`.
    Hex64,
    /// `raw16(raw16)`: low word, then `(word2 word1)` if either is set.
    Raw16Raw16,
    /// `raw16(avg16)`: low word, then `(Average word1)` if set.
    Raw16Avg16,
    /// `raw24(raw8)`: low 24 bits, then `(b5 b4 b3)` if any is set.
    Raw24Raw8,
    /// `raw24/raw24`: bits 24..48 `/` bits 0..24.
    Raw24Raw24,
    /// `raw24/raw32`: bits 32..56 `/` bits 0..32 (reserved byte on top).
    Raw24Raw32,
    /// `sec2hour`: seconds printed `"Hh+MMm+SSs"`.
    Sec2Hour,
    /// `min2hour`: minutes in the low 32 bits printed `"Hh+MMm"`.
    Min2Hour,
    /// `halfmin2hour`: 30-second units printed `"Hh+MMm"`.
    HalfMin2Hour,
    /// `msec24hour32`: hours in the low 32 bits, milliseconds above.
    Msec24Hour32,
    /// `tempminmax`: current temperature in byte 0, min/max where found.
    TempMinMax,
    /// `temp10x`: tenths of a degree in the low word.
    Temp10x,
}

/// Every format with its smartmontools name.
const NAMES: [(RawFormat, &str); 19] = [
    (RawFormat::Raw8, "raw8"),
    (RawFormat::Raw16, "raw16"),
    (RawFormat::Raw48, "raw48"),
    (RawFormat::Hex48, "hex48"),
    (RawFormat::Raw56, "raw56"),
    (RawFormat::Hex56, "hex56"),
    (RawFormat::Raw64, "raw64"),
    (RawFormat::Hex64, "hex64"),
    (RawFormat::Raw16Raw16, "raw16(raw16)"),
    (RawFormat::Raw16Avg16, "raw16(avg16)"),
    (RawFormat::Raw24Raw8, "raw24(raw8)"),
    (RawFormat::Raw24Raw24, "raw24/raw24"),
    (RawFormat::Raw24Raw32, "raw24/raw32"),
    (RawFormat::Sec2Hour, "sec2hour"),
    (RawFormat::Min2Hour, "min2hour"),
    (RawFormat::HalfMin2Hour, "halfmin2hour"),
    (RawFormat::Msec24Hour32, "msec24hour32"),
    (RawFormat::TempMinMax, "tempminmax"),
    (RawFormat::Temp10x, "temp10x"),
];

impl RawFormat {
    /// The format for a smartmontools name (`"raw24(raw8)"`), if known.
    pub fn from_name(name: &str) -> Option<RawFormat> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }

    /// The smartmontools name of this format.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("raw48", |(_, n)| n)
    }

    /// The byte order smartctl uses when none is given (`atacmds.cpp`).
    fn default_order(self) -> &'static [u8] {
        match self {
            RawFormat::Raw64 | RawFormat::Hex64 => b"543210wv",
            RawFormat::Raw56
            | RawFormat::Hex56
            | RawFormat::Raw24Raw32
            | RawFormat::Msec24Hour32 => b"r543210",
            _ => b"543210",
        }
    }
}

impl fmt::Display for RawFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An explicit byte order (`-v ID,FORMAT:BYTEORDER`), most significant byte
/// first: `0`..`5` raw bytes, `r` reserved, `v` normalized, `w` worst, `z` zero.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ByteOrder(String);

impl ByteOrder {
    /// Parses a byte order; smartctl accepts 1 to 8 of `012345rvwz`.
    pub fn parse(s: &str) -> Option<ByteOrder> {
        let ok = !s.is_empty() && s.len() <= 8 && s.bytes().all(|b| b"012345rvwz".contains(&b));
        ok.then(|| ByteOrder(s.to_owned()))
    }

    /// The order as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the order takes the normalized or worst byte, which then no
    /// longer mean a normalized value (smartctl's `ATTRFLAG_NO_NORMVAL`).
    pub fn uses_value_bytes(&self) -> bool {
        self.0.contains(['v', 'w'])
    }
}

/// One attribute's bytes as SMART READ DATA returns them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AttrBytes {
    /// Raw bytes 0..5 (entry offsets 5..10).
    pub raw: [u8; 6],
    /// Reserved byte (entry offset 11).
    pub reserved: u8,
    /// Normalized current value (entry offset 3).
    pub current: u8,
    /// Worst value (entry offset 4).
    pub worst: u8,
}

/// Builds the raw integer from the selected bytes, most significant first.
pub(super) fn assemble(order: &[u8], b: &AttrBytes) -> u64 {
    order.iter().take(8).fold(0u64, |acc, c| {
        let byte = match c {
            b'0'..=b'5' => b.raw[usize::from(c - b'0')],
            b'r' => b.reserved,
            b'v' => b.current,
            b'w' => b.worst,
            _ => 0,
        };
        (acc << 8) | u64::from(byte)
    })
}

/// A decoded raw value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The number the exporter maps onto unified metrics. `i128` holds every
    /// case exactly: raw64 values up to `u64::MAX` and negative temperatures.
    /// Per format: the whole assembled integer (raw8/16/48/56/64, hex*);
    /// the low word (raw16(raw16), raw16(avg16)); the low 24 bits
    /// (raw24(raw8), usually hours); the first printed number (raw24/raw24,
    /// raw24/raw32; the second is in `second`); whole hours (sec2hour,
    /// min2hour, halfmin2hour, msec24hour32); °C (tempminmax: signed byte 0;
    /// temp10x: rounded to whole degrees, as smartctl does).
    pub value: i128,
    /// What smartctl prints in its RAW_VALUE column.
    pub text: String,
    /// The second number of `a/b` formats, the average of raw16(avg16), the
    /// lowest temperature of tempminmax when one was found.
    pub second: Option<i128>,
    /// The highest temperature of tempminmax when one was found.
    pub third: Option<i128>,
}

impl Decoded {
    fn new(value: impl Into<i128>, text: String) -> Decoded {
        Decoded {
            value: value.into(),
            text,
            second: None,
            third: None,
        }
    }
}

/// Decodes the raw bytes with the format's default byte order. For raw64 and
/// hex64, whose default order includes the normalized and worst bytes, use
/// [`decode_bytes`]; here those bytes count as zero.
pub fn decode(format: &RawFormat, raw: [u8; 6], reserved: u8) -> Decoded {
    let bytes = AttrBytes {
        raw,
        reserved,
        current: 0,
        worst: 0,
    };
    decode_bytes(*format, None, &bytes)
}

/// Decodes one attribute with an optional explicit byte order. Never panics.
pub fn decode_bytes(format: RawFormat, order: Option<&ByteOrder>, b: &AttrBytes) -> Decoded {
    let order = order.map_or(format.default_order(), |o| o.0.as_bytes());
    let v = assemble(order, b);
    let r: [u8; 6] = [
        v as u8,
        (v >> 8) as u8,
        (v >> 16) as u8,
        (v >> 24) as u8,
        (v >> 32) as u8,
        (v >> 40) as u8,
    ];
    let w = [v & 0xffff, (v >> 16) & 0xffff, (v >> 32) & 0xffff];
    match format {
        RawFormat::Raw8 => {
            let t = format!("{} {} {} {} {} {}", r[5], r[4], r[3], r[2], r[1], r[0]);
            Decoded::new(v, t)
        }
        RawFormat::Raw16 => Decoded::new(v, format!("{} {} {}", w[2], w[1], w[0])),
        RawFormat::Raw48 | RawFormat::Raw56 | RawFormat::Raw64 => Decoded::new(v, v.to_string()),
        RawFormat::Hex48 => Decoded::new(v, format!("0x{v:012x}")),
        RawFormat::Hex56 => Decoded::new(v, format!("0x{v:014x}")),
        RawFormat::Hex64 => Decoded::new(v, format!("0x{v:016x}")),
        RawFormat::Raw16Raw16 => {
            let mut t = w[0].to_string();
            if w[1] != 0 || w[2] != 0 {
                t += &format!(" ({} {})", w[2], w[1]);
            }
            Decoded::new(w[0], t)
        }
        RawFormat::Raw16Avg16 => {
            let mut t = w[0].to_string();
            if w[1] != 0 {
                t += &format!(" (Average {})", w[1]);
            }
            Decoded {
                second: Some(w[1].into()),
                ..Decoded::new(w[0], t)
            }
        }
        RawFormat::Raw24Raw8 => {
            let low = v & 0x00ff_ffff;
            let mut t = low.to_string();
            if r[3] != 0 || r[4] != 0 || r[5] != 0 {
                t += &format!(" ({} {} {})", r[5], r[4], r[3]);
            }
            Decoded::new(low, t)
        }
        RawFormat::Raw24Raw24 => pair(v >> 24, v & 0x00ff_ffff),
        RawFormat::Raw24Raw32 => pair(v >> 32, v & 0xffff_ffff),
        RawFormat::Sec2Hour => {
            let (h, m, s) = (v / 3600, (v % 3600) / 60, v % 60);
            Decoded::new(h, format!("{h}h+{m:02}m+{s:02}s"))
        }
        RawFormat::Min2Hour => {
            let minutes = w[0] + (w[1] << 16);
            let h = minutes / 60;
            let mut t = format!("{h}h+{:02}m", minutes % 60);
            if w[2] != 0 {
                t += &format!(" ({})", w[2]);
            }
            Decoded::new(h, t)
        }
        RawFormat::HalfMin2Hour => {
            let h = v / 120;
            Decoded::new(h, format!("{h}h+{:02}m", (v % 120) / 2))
        }
        RawFormat::Msec24Hour32 => {
            let h = v & 0xffff_ffff;
            let ms = v >> 32;
            let s = ms / 1000;
            Decoded::new(
                h,
                format!("{h}h+{:02}m+{:02}.{:03}s", s / 60, s % 60, ms % 1000),
            )
        }
        RawFormat::TempMinMax => {
            let (value, text, lo_hi) = super::temp::tempminmax(&r, &w);
            decoded(value, text, lo_hi)
        }
        RawFormat::Temp10x => {
            let t = format!("{}.{}", w[0] / 10, w[0] % 10);
            Decoded::new((w[0] + 5) / 10, t)
        }
    }
}

fn pair(a: u64, b: u64) -> Decoded {
    Decoded {
        second: Some(b.into()),
        ..Decoded::new(a, format!("{a}/{b}"))
    }
}

/// Used by [`super::temp`] to build a result.
fn decoded(value: i128, text: String, lo_hi: Option<(i128, i128)>) -> Decoded {
    Decoded {
        value,
        text,
        second: lo_hi.map(|p| p.0),
        third: lo_hi.map(|p| p.1),
    }
}
