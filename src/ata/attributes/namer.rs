//! Name lookup for one drive: the drivedb.h file's entry if it has one, else
//! the built-in family, over the DEFAULT names (file DEFAULT over built-in).

use std::path::Path;
use std::sync::Arc;

use super::builtin::DEFAULTS;
use super::drivedb::usb::UsbTable;
use super::drivedb::{DbEntry, DriveDb, Pattern};
use super::families::{FAMILIES, FamilyDef};
use super::presets::{Media, Preset};
use super::{AttrDef, ByteOrder, Meaning, MeaningDef, RawFormat, ValueSource};

/// What the drive is, for DEFAULT names limited to disks or SSDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MediaKind {
    /// Not known: DEFAULT names are used as they are (smartctl with rotation
    /// rate 0).
    #[default]
    Unknown,
    /// Identify word 217 = 1: disk-only names become `Unknown_SSD_Attribute`.
    Ssd,
    /// Rotating: SSD-only names become `Unknown_HDD_Attribute`.
    Hdd,
}

#[derive(Debug, Clone)]
struct DefaultDef {
    name: String,
    format: RawFormat,
    only: Option<Media>,
}

/// Attribute naming for all drives: built-in table plus an optional
/// drivedb.h; and that file's USB bridge entries (there is no built-in
/// USB table: without drivedb.h every bridge is unknown).
#[derive(Debug, Clone)]
pub struct Namer {
    defaults: Arc<Vec<Option<DefaultDef>>>,
    file: Vec<DbEntry>,
    builtin: Vec<(DbEntry, &'static [MeaningDef])>,
    usb: Arc<UsbTable>,
}

/// The attribute definitions for one drive.
#[derive(Debug, Clone)]
pub struct DrivePresets {
    /// The matched family (drivedb `modelfamily`), if any.
    pub family: Option<String>,
    defaults: Arc<Vec<Option<DefaultDef>>>,
    presets: Vec<Preset>,
    media: MediaKind,
    family_meanings: &'static [MeaningDef],
}

impl Namer {
    /// The built-in table only.
    pub fn builtin() -> Namer {
        let mut defaults = vec![None; 256];
        for &(id, format, name, only) in DEFAULTS {
            defaults[usize::from(id)] = Some(DefaultDef {
                name: name.to_owned(),
                format,
                only,
            });
        }
        let builtin = FAMILIES
            .iter()
            .filter_map(|f| Some((builtin_entry(f)?, f.meanings)))
            .collect();
        Namer {
            defaults: Arc::new(defaults),
            file: Vec::new(),
            builtin,
            usb: Arc::default(),
        }
    }

    /// The drivedb.h file's USB bridge entries (empty without a file).
    pub fn usb_bridges(&self) -> &Arc<UsbTable> {
        &self.usb
    }

    /// How many drive entries came from a drivedb.h file (0: the built-in
    /// table alone).
    pub fn drivedb_entries(&self) -> usize {
        self.file.len()
    }

    /// The built-in table overridden by a drivedb.h text, parsed as data.
    /// Returns the parse errors: bad entries are skipped, and a file that
    /// cannot be parsed at all leaves only the built-in table.
    pub fn with_drivedb(text: &str) -> (Namer, Vec<String>) {
        let (db, errors) = DriveDb::parse(text);
        let mut namer = Namer::builtin();
        let defaults = Arc::make_mut(&mut namer.defaults);
        for p in &db.default {
            if let (Some(id), Some(name)) = (p.id, &p.name) {
                defaults[usize::from(id)] = Some(DefaultDef {
                    name: name.clone(),
                    format: p.format,
                    only: p.only,
                });
            }
        }
        namer.file = db.entries;
        namer.usb = Arc::new(db.usb);
        (namer, errors)
    }

    /// Loads the first of `paths` that exists (normally
    /// `/var/lib/smartmontools/drivedb/drivedb.h`, then
    /// `/usr/share/smartmontools/drivedb.h`). No file is not an error; an
    /// unreadable one is (a FIFO, a device or a file over
    /// [`super::drivedb::FILE_LIMIT`] among them: see [`crate::files`]).
    /// Logs nothing: the caller logs the errors. Blocking: parsing 16 MiB
    /// takes seconds.
    pub fn load(paths: &[&Path]) -> (Namer, Vec<String>) {
        let Some(path) = paths.iter().find(|p| p.exists()) else {
            return (Namer::builtin(), Vec::new());
        };
        match crate::files::read(path, super::drivedb::FILE_LIMIT) {
            Ok(bytes) => {
                let (namer, errors) = Namer::with_drivedb(&String::from_utf8_lossy(&bytes));
                let errors = errors
                    .into_iter()
                    .map(|e| format!("{}: {e}", path.display()))
                    .collect();
                (namer, errors)
            }
            Err(e) => (
                Namer::builtin(),
                vec![format!(
                    "read {}: {e} (using the built-in attribute names)",
                    path.display()
                )],
            ),
        }
    }

    /// The definitions for a drive of unknown media kind.
    pub fn for_drive(&self, model: &str, firmware: &str) -> DrivePresets {
        self.for_drive_kind(model, firmware, MediaKind::Unknown)
    }

    /// The definitions for a drive whose media kind is known.
    pub fn for_drive_kind(&self, model: &str, firmware: &str, media: MediaKind) -> DrivePresets {
        let builtin = self
            .builtin
            .iter()
            .find(|(e, _)| e.matches(model, firmware));
        let named = self
            .file
            .iter()
            .find(|e| e.matches(model, firmware))
            .or(builtin.map(|(e, _)| e));
        DrivePresets {
            family: named.map(|e| e.family.clone()).filter(|f| !f.is_empty()),
            defaults: Arc::clone(&self.defaults),
            presets: named.map(|e| e.presets.clone()).unwrap_or_default(),
            media,
            family_meanings: builtin.map_or(&[], |(_, m)| m),
        }
    }
}

fn builtin_entry(f: &FamilyDef) -> Option<DbEntry> {
    let presets = f
        .attrs
        .iter()
        .map(|&(id, format, order, name)| Preset {
            id: Some(id),
            format,
            order: order.and_then(ByteOrder::parse),
            name: Some(name.to_owned()),
            only: None,
        })
        .collect();
    let model = Pattern::new(f.model).ok()?;
    Some(DbEntry {
        family: f.family.to_owned(),
        model,
        firmware: None,
        presets,
    })
}

impl DrivePresets {
    /// The definition of attribute `id`: the family's, else DEFAULT's, else
    /// `Unknown_Attribute` raw48, as smartctl names it.
    pub fn get(&self, id: u8) -> AttrDef {
        let own = self.presets.iter().rev().find(|p| p.id == Some(id));
        let all = self.presets.iter().rev().find(|p| p.id.is_none());
        let default = self.defaults.get(usize::from(id)).and_then(Option::as_ref);
        let default_name = || match default {
            None => "Unknown_Attribute".to_owned(),
            Some(d) => match (d.only, self.media) {
                (Some(Media::Hdd), MediaKind::Ssd) => "Unknown_SSD_Attribute".to_owned(),
                (Some(Media::Ssd), MediaKind::Hdd) => "Unknown_HDD_Attribute".to_owned(),
                _ => d.name.clone(),
            },
        };
        match own.or(all) {
            Some(p) => AttrDef {
                name: p.name.clone().unwrap_or_else(default_name),
                format: p.format,
                byte_order: p.order.clone(),
            },
            None => AttrDef {
                name: default_name(),
                format: default.map_or(RawFormat::Raw48, |d| d.format),
                byte_order: None,
            },
        }
    }

    /// The attributes carrying unified meanings on this drive: the built-in
    /// family's list, plus shared DEFAULT meanings for ids the family list
    /// does not cover and whose name here is still the DEFAULT one.
    pub fn meanings(&self) -> Vec<MeaningDef> {
        let mut out = self.family_meanings.to_vec();
        for (id, names, meaning, scale) in SHARED {
            if out.iter().any(|m| m.id == id) {
                continue;
            }
            let def = self.get(id);
            let ok = names.contains(&def.name.as_str())
                && (!matches!(id, 190 | 194)
                    || matches!(def.format, RawFormat::TempMinMax | RawFormat::Temp10x));
            if ok {
                out.push(MeaningDef {
                    id,
                    meaning,
                    source: ValueSource::Raw,
                    scale,
                });
            }
        }
        out
    }
}

/// Meanings every drive shares when the attribute keeps one of these names.
/// Attribute 190 is the temperature only where 194 is absent (smartctl's
/// order too); the mapping keeps the first temperature it finds.
const SHARED: [(u8, &[&str], Meaning, f64); 7] = [
    (
        5,
        &["Reallocated_Sector_Ct"],
        Meaning::ReallocatedSectors,
        1.0,
    ),
    (
        9,
        &[
            "Power_On_Hours",
            "Power_On_Hours_and_Msec",
            "Power_On_Minutes",
            "Power_On_Seconds",
            "Power_On_Half_Minutes",
        ],
        Meaning::PowerOnSeconds,
        3600.0,
    ),
    (12, &["Power_Cycle_Count"], Meaning::PowerCycles, 1.0),
    (
        187,
        &[
            "Reported_Uncorrect",
            "Uncorrectable_Error_Cnt",
            "Uncorrectable_ECC_Ct",
        ],
        Meaning::MediaErrors,
        1.0,
    ),
    (
        194,
        &[
            "Temperature_Celsius",
            "Drive_Temperature",
            "Temperature_Internal",
            "Temperature_Celsius_x10",
        ],
        Meaning::Temperature,
        1.0,
    ),
    // smartctl takes the temperature from 194, else 190, whatever their
    // names (`ata_return_temperature_value`); Intel's S4510 calls 190
    // Drive_Temperature and its S3520 Case_Temperature.
    (
        190,
        &[
            "Airflow_Temperature_Cel",
            "Temperature_Case",
            "Case_Temperature",
            "Drive_Temperature",
        ],
        Meaning::Temperature,
        1.0,
    ),
    (
        199,
        &[
            "UDMA_CRC_Error_Count",
            "SATA_CRC_Error_Count",
            "CRC_Error_Count",
        ],
        Meaning::CrcErrors,
        1.0,
    ),
];
