//! The `tempminmax` raw format: byte 0 is the current temperature; vendors put
//! the lifetime minimum and maximum in different bytes, which smartctl finds
//! by plausibility (`smartmontools:lib/atacmds.cpp`, `RAWFMT_TEMPMINMAX`):
//!
//! ```text
//! raw byte  5  4  3  2  1  0
//!           xx HH xx LL xx TT   Hitachi/HGST
//!           xx LL xx HH xx TT   Kingston SSDs
//!           00 00 HH LL xx TT   Maxtor, Samsung, Seagate, Toshiba
//!           00 00 00 HH LL TT   WDC
//!           CC CC HH LL xx TT   WDC, CCCC = over-temperature count
//! ```

/// A decoded tempminmax: the current temperature (°C), smartctl's text, and
/// the lifetime (min, max) when found. `rawfmt` turns it into its
/// `Decoded`; this module depends on nothing above it.
pub(super) type TempMinMax = (i128, String, Option<(i128, i128)>);

/// Whether a 16-bit word can hold a signed byte or word temperature: bit 0x10
/// set if it reads as a signed word, 0x01 if as a signed byte.
fn temp_word_kind(word: u64) -> u8 {
    match word {
        0..=0x7f => 0x11,
        0x80..=0xff => 0x01,
        0xff80..=0xffff => 0x10,
        _ => 0x00,
    }
}

/// The two bytes as an ordered (low, high) pair when they bracket `t`
/// plausibly: -60 ≤ low ≤ t ≤ high ≤ 120, and not the (-1, ≤0) pattern.
fn temp_range(t: i32, a: u8, b: u8) -> Option<(i32, i32)> {
    let (x, y) = (i32::from(a as i8), i32::from(b as i8));
    let (lo, hi) = if x > y { (y, x) } else { (x, y) };
    let plausible = -60 <= lo && lo <= t && t <= hi && hi <= 120 && !(lo == -1 && hi <= 0);
    plausible.then_some((lo, hi))
}

/// Decodes tempminmax from the assembled bytes and words (low word first).
pub(super) fn tempminmax(r: &[u8; 6], w: &[u64; 3]) -> TempMinMax {
    let t = i32::from(r[0] as i8);
    let k0 = temp_word_kind(w[0]);
    enum Shape {
        Plain,
        MinMax(i32, i32),
        OverCount(i32, i32),
        Unknown,
    }
    let shape = if w[2] == 0 {
        if w[1] == 0 && k0 != 0 {
            Shape::Plain
        } else if let Some((lo, hi)) = (k0 != 0).then(|| temp_range(t, r[2], r[3])).flatten() {
            Shape::MinMax(lo, hi)
        } else if let Some((lo, hi)) = (r[3] == 0).then(|| temp_range(t, r[1], r[2])).flatten() {
            Shape::MinMax(lo, hi)
        } else {
            Shape::Unknown
        }
    } else if k0 != 0 {
        let all = k0 & temp_word_kind(w[1]) & temp_word_kind(w[2]);
        if let Some((lo, hi)) = (all != 0).then(|| temp_range(t, r[2], r[4])).flatten() {
            Shape::MinMax(lo, hi)
        } else {
            match (w[2] < 0x7fff).then(|| temp_range(t, r[2], r[3])).flatten() {
                Some((lo, hi)) if hi >= 40 => Shape::OverCount(lo, hi),
                _ => Shape::Unknown,
            }
        }
    } else {
        Shape::Unknown
    };
    let value = i128::from(t);
    match shape {
        Shape::Plain => (value, t.to_string(), None),
        Shape::MinMax(lo, hi) => {
            let text = format!("{t} (Min/Max {lo}/{hi})");
            (value, text, Some((lo.into(), hi.into())))
        }
        Shape::OverCount(lo, hi) => {
            let text = format!("{t} (Min/Max {lo}/{hi} #{})", w[2]);
            (value, text, Some((lo.into(), hi.into())))
        }
        Shape::Unknown => {
            let text = format!("{} ({} {} {} {} {})", r[0], r[5], r[4], r[3], r[2], r[1]);
            (value, text, None)
        }
    }
}
