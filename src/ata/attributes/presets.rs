//! The `presets` string of a drivedb.h entry: smartctl options
//! `-v ID,FORMAT[:BYTEORDER][,NAME[,HDD|SSD]]`, `-v N,FORMAT[,NAME]` and
//! `-F BUG` (ignored here), as `smartmontools:lib/atacmds.cpp`
//! `parse_attribute_def` accepts them.

use super::rawfmt::{ByteOrder, RawFormat};

/// The drive kind an entry of the DEFAULT table is limited to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    /// Spinning disk only; smartctl shows `Unknown_SSD_Attribute` on an SSD.
    Hdd,
    /// Solid state only; smartctl shows `Unknown_HDD_Attribute` on a disk.
    Ssd,
}

/// One parsed `-v` option.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    /// The attribute id, or `None` for `-v N,...` (every attribute).
    pub id: Option<u8>,
    pub format: RawFormat,
    pub order: Option<ByteOrder>,
    /// `None` keeps the name from the DEFAULT table.
    pub name: Option<String>,
    pub only: Option<Media>,
}

/// Old `-v` spellings smartctl still maps to the current syntax.
const OLD_SPELLINGS: [(&str, &str); 14] = [
    ("9,halfminutes", "9,halfmin2hour,Power_On_Half_Minutes"),
    ("9,minutes", "9,min2hour,Power_On_Minutes"),
    ("9,seconds", "9,sec2hour,Power_On_Seconds"),
    ("9,temp", "9,tempminmax,Temperature_Celsius"),
    (
        "192,emergencyretractcyclect",
        "192,raw48,Emerg_Retract_Cycle_Ct",
    ),
    ("193,loadunload", "193,raw24/raw24"),
    ("194,10xCelsius", "194,temp10x,Temperature_Celsius_x10"),
    ("194,unknown", "194,raw48,Unknown_Attribute"),
    ("197,increasing", "197,raw48+,Total_Pending_Sectors"),
    (
        "198,offlinescanuncsectorct",
        "198,raw48,Offline_Scan_UNC_SectCt",
    ),
    ("198,increasing", "198,raw48+,Total_Offl_Uncorrectabl"),
    ("200,writeerrorcount", "200,raw48,Write_Error_Count"),
    ("201,detectedtacount", "201,raw48,Detected_TA_Count"),
    ("220,temp", "220,tempminmax,Temperature_Celsius"),
];

/// smartctl reads format and name with `%32[^,]`.
const MAX_FIELD: usize = 32;

/// Parses a whole presets string. `default` allows the `,HDD|SSD` suffix and
/// forbids byte orders, as for smartmontools' DEFAULT entry.
pub fn parse_presets(s: &str, default: bool) -> Result<Vec<Preset>, String> {
    let mut out = Vec::new();
    let mut words = s.split_ascii_whitespace();
    while let Some(opt) = words.next() {
        let arg = words
            .next()
            .ok_or_else(|| format!("option {opt} without argument"))?;
        match opt {
            "-v" => out.push(parse_v(arg, default)?),
            // Firmware bug workarounds and USB device types do not name attributes.
            "-F" | "-d" => {}
            _ => return Err(format!("unknown preset option {opt:?}")),
        }
    }
    Ok(out)
}

/// Parses one `-v` argument.
pub fn parse_v(arg: &str, default: bool) -> Result<Preset, String> {
    let arg = OLD_SPELLINGS
        .iter()
        .find(|(old, _)| *old == arg)
        .map_or(arg, |(_, new)| new);
    let bad = || format!("bad -v argument {arg:?}");
    let fields: Vec<&str> = arg.split(',').collect();
    let (id, rest) = match fields.split_first() {
        Some((&"N", rest)) => (None, rest),
        Some((id, rest)) => match id.parse::<u8>() {
            Ok(n) if n >= 1 => (Some(n), rest),
            _ => return Err(bad()),
        },
        None => return Err(bad()),
    };
    let max_fields = if id.is_some() && default { 3 } else { 2 };
    if rest.is_empty()
        || rest.len() > max_fields
        || rest.iter().any(|f| f.is_empty() || f.len() > MAX_FIELD)
    {
        return Err(bad());
    }
    // A trailing '+' marks 197/198 as increasing counters; the name is what matters here.
    let fmt = rest[0].strip_suffix('+').unwrap_or(rest[0]);
    let (fmt, order) = match fmt.split_once(':') {
        Some(_) if default => return Err(format!("{}: byte order not allowed in DEFAULT", bad())),
        Some((f, o)) => (f, Some(ByteOrder::parse(o).ok_or_else(bad)?)),
        None => (fmt, None),
    };
    let format =
        RawFormat::from_name(fmt).ok_or_else(|| format!("{}: unknown format {fmt:?}", bad()))?;
    let name = rest.get(1).map(|n| (*n).to_owned());
    let only = match rest.get(2) {
        None => None,
        Some(&"HDD") => Some(Media::Hdd),
        Some(&"SSD") => Some(Media::Ssd),
        Some(_) => return Err(bad()),
    };
    Ok(Preset {
        id,
        format,
        order,
        name,
        only,
    })
}

#[cfg(test)]
mod tests;
