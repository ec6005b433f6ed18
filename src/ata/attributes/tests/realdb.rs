//! Parses the drivedb.h installed with smartmontools. Expected names were
//! read from that file (smartmontools 7.3, r5319), not from this code.

use crate::ata::attributes::drivedb::DriveDb;
use crate::ata::attributes::{Namer, RawFormat};

const PATH: &str = "/usr/share/smartmontools/drivedb.h";

/// The installed drivedb.h; a test that asked for it fails without it.
///
/// The tests that read it are ignored by a plain `cargo test`: the file
/// comes with smartmontools, which a developer's machine may lack.
/// `scripts/test-all.sh` installs smartmontools and runs them
/// (`--include-ignored`), so there a missing file fails them.
fn installed() -> String {
    match std::fs::read(PATH) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => panic!("{PATH} not readable ({e}): install smartmontools"),
    }
}

#[test]
#[ignore = "reads /usr/share/smartmontools/drivedb.h; scripts/test-all.sh runs it"]
fn real_drivedb_parses() {
    let text = installed();
    let (db, errors) = DriveDb::parse(&text);
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(
        db.version
            .as_deref()
            .is_some_and(|v| v.starts_with("VERSION: "))
    );
    assert!(db.entries.len() > 300, "{} entries", db.entries.len());
    assert!(db.default.len() > 60);
    assert!(db.entries.iter().all(|e| !e.family.starts_with("USB:")));
    assert!(
        db.usb.entries.len() > 150,
        "{} USB entries",
        db.usb.entries.len()
    );
}

#[test]
#[ignore = "reads /usr/share/smartmontools/drivedb.h; scripts/test-all.sh runs it"]
fn real_drivedb_lookups() {
    let text = installed();
    let (namer, errors) = Namer::with_drivedb(&text);
    assert!(errors.is_empty(), "{errors:#?}");

    let dc500 = namer.for_drive("KINGSTON SEDC500M1920G", "SCEKJ2.3");
    assert_eq!(dc500.family.as_deref(), Some("Phison Driven SSDs"));
    for (id, name) in [
        (192, "Unsafe_Shutdown_Count"),
        (195, "Power_Fail_Health"),
        (231, "SSD_Life_Left"),
        (241, "Lifetime_Writes_GiB"),
        (207, "Thermal_Throttling_Cnt"),
        (9, "Power_On_Hours"),
    ] {
        assert_eq!(dc500.get(id).name, name, "id {id}");
    }
    assert_eq!(dc500.get(170).format, RawFormat::Raw24Raw24);

    // 7.3 lists DC450R/DC500 only; the DC600M then falls back to the built-in family.
    let (db, _) = DriveDb::parse(&text);
    if db
        .version
        .as_deref()
        .is_some_and(|v| v.starts_with("VERSION: 7.3"))
    {
        assert!(db.find("KINGSTON SEDC600M960G", "SCEKH5.1").is_none());
    }
    let dc600m = namer.for_drive("KINGSTON SEDC600M960G", "SCEKH5.1");
    assert_eq!(dc600m.family.as_deref(), Some("Phison Driven SSDs"));
    for (id, name) in [
        (192, "Unsafe_Shutdown_Count"),
        (195, "Power_Fail_Health"),
        (231, "SSD_Life_Left"),
        (241, "Lifetime_Writes_GiB"),
    ] {
        assert_eq!(dc600m.get(id).name, name, "id {id}");
    }

    let samsung = namer.for_drive("SAMSUNG MZ7LH960HAJR-00005", "HXT7404Q");
    assert_eq!(samsung.family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(samsung.get(177).name, "Wear_Leveling_Count");
    assert_eq!(samsung.get(187).name, "Uncorrectable_Error_Cnt");

    let intel = namer.for_drive("INTEL SSDSC2KB960G8", "XCV10132");
    assert_eq!(
        intel.family.as_deref(),
        Some("Intel S4510/S4610/S4500/S4600 Series SSDs")
    );
    assert_eq!(intel.get(175).format, RawFormat::Raw16Raw16);
    assert_eq!(intel.get(243).name, "NAND_Writes_32MiB");

    let micron = namer.for_drive("Micron_5300_MTFDDAK960TDS", "D3MU001");
    assert!(
        micron
            .family
            .as_deref()
            .is_some_and(|f| f.starts_with("Micron 5100 ")),
        "{:?}",
        micron.family
    );
    assert_eq!(micron.get(202).name, "Percent_Lifetime_Remain");
    assert_eq!(micron.get(246).name, "Total_LBAs_Written");

    let nytro = namer.for_drive("XA960LE10063", "");
    assert_eq!(nytro.family.as_deref(), Some("Seagate Nytro SATA SSD"));
}

/// How many of the attribute names the fixtures' drives report are named
/// the same by the built-in table alone as by the host's drivedb.h (which is
/// what smartctl prints). Prints the figure; every fixture drive must agree.
///
/// `cargo test --lib fixture_attribute_names -- --include-ignored --nocapture`
#[test]
#[ignore = "reads /usr/share/smartmontools/drivedb.h; scripts/test-all.sh runs it"]
fn fixture_attribute_names_agree_with_drivedb() {
    use crate::ata::Identify;
    use crate::ata::smart::SmartData;
    let text = installed();
    let (with_db, errors) = Namer::with_drivedb(&text);
    assert!(errors.is_empty(), "{errors:#?}");
    let builtin = Namer::builtin();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sata");
    let (mut same, mut all) = (0, 0);
    let mut differ = Vec::new();
    for fixture in std::fs::read_dir(root).unwrap() {
        for dev in std::fs::read_dir(fixture.unwrap().path()).unwrap() {
            let dir = dev.unwrap().path();
            let id = Identify::parse(&std::fs::read(dir.join("identify.bin")).unwrap()).unwrap();
            let smart =
                SmartData::parse(&std::fs::read(dir.join("smart-data.bin")).unwrap()).unwrap();
            let (b, d) = (
                builtin.for_drive(&id.model, &id.firmware),
                with_db.for_drive(&id.model, &id.firmware),
            );
            for a in &smart.attributes {
                all += 1;
                if b.get(a.id).name == d.get(a.id).name {
                    same += 1;
                } else {
                    differ.push(format!(
                        "{} {}: built-in {} / drivedb {}",
                        id.model,
                        a.id,
                        b.get(a.id).name,
                        d.get(a.id).name
                    ));
                }
            }
        }
    }
    println!("attribute names equal to drivedb.h's on the fixtures: {same}/{all}");
    assert!(all > 50, "{all}");
    // Upstream renamed Phison's 170 after 7.3 (smartmontools ticket #1642:
    // "Later bad block/Early bad block"); the built-in table has the new
    // name, a 7.3 drivedb.h the old one, which then wins (as in smartctl).
    differ
        .retain(|d| !d.ends_with("170: built-in Bad_Blk_Ct_Lat/Erl / drivedb Bad_Blk_Ct_Erl/Lat"));
    assert!(differ.is_empty(), "{differ:#?}");
}

/// The built-in table against a given drivedb.h (a newer one than the
/// host's, by hand), else the host's, on models of every built-in family. A
/// measurement; with DRIVEDB unset it only proves the host's file parses:
///
/// `DRIVEDB=/path/to/upstream/drivedb.h cargo test --lib builtin_names_against -- --ignored --nocapture`
#[test]
#[ignore = "reads DRIVEDB= or /usr/share/smartmontools/drivedb.h; prints the agreement"]
fn builtin_names_against_a_given_drivedb() {
    let (path, text) = match std::env::var("DRIVEDB") {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        }
        Err(_) => ("the host's drivedb.h".to_string(), installed()),
    };
    let (with_db, errors) = Namer::with_drivedb(&text);
    assert!(errors.is_empty(), "{errors:#?}");
    let builtin = Namer::builtin();
    let models = [
        "KINGSTON SEDC600M960G",
        "KINGSTON SEDC500M1920G",
        "KINGSTON SEDC450R480G",
        "INTEL SSDSC2KB960G8",
        "SOLIDIGM SSDSC2KB960GZ",
        "INTEL SSDSC2BB960G7",
        "INTEL SSDSC2BB480G4",
        "INTEL SSDSC2BB240G4C",
        "INTEL SSDSC1BG400G4",
        "VK000480GWSXF",
        "Micron_5300_MTFDDAK1T9TDS",
        "Micron_5400_MTFDDAK960TGA_SED",
        "VK001920GWSXK",
        "Micron_5100_MTFDDAK3T8TBY_SED",
        "CT1000MX500SSD1",
        "CT4000MX500SSD1",
        "SAMSUNG MZ7LH960HAJR-00005",
        "Samsung SSD 883 DCT 960GB",
        "XA960LE10063",
    ];
    let (mut same, mut all) = (0, 0);
    for m in models {
        let (b, d) = (builtin.for_drive(m, ""), with_db.for_drive(m, ""));
        for id in 1..=255u8 {
            let (bn, dn) = (b.get(id).name, d.get(id).name);
            if bn.starts_with("Unknown_") && dn.starts_with("Unknown_") && bn == dn {
                continue;
            }
            all += 1;
            if bn == dn {
                same += 1;
            } else {
                println!("{m} {id}: built-in {bn} / drivedb {dn}");
            }
        }
    }
    println!("built-in names equal to {path}'s: {same}/{all}");
}

/// Real model strings (the project's fixtures, the reference drives and
/// common families), plus strings that match nothing.
const MODELS: [&str; 16] = [
    "KINGSTON SEDC500M1920G",
    "KINGSTON SEDC600M960G",
    "INTEL SSDSC2KB480G8",
    "INTEL SSDSC2BB480G4",
    "Micron_5300_MTFDDAK960TDS",
    "Micron_5200_MTFDDAK1T9TDC",
    "SAMSUNG MZ7LH960HAJR-00005",
    "Samsung SSD 870 EVO 1TB",
    "Samsung SSD 860 PRO 512GB",
    "ST4000NM0035-1V4107",
    "WDC WD40EFRX-68N32N0",
    "CT1000MX500SSD1",
    "SanDisk SDSSDH3 1T00",
    "TOSHIBA MG07ACA14TE",
    "",
    "no such drive 123",
];

#[test]
#[ignore = "reads /usr/share/smartmontools/drivedb.h; scripts/test-all.sh runs it"]
fn lazy_patterns_match_exactly_as_compiled_ones() {
    use crate::ata::attributes::drivedb::compile_full;
    let text = installed();
    let (db, _) = DriveDb::parse(&text);
    let mut compared = 0;
    for e in &db.entries {
        let model = compile_full(e.model.source()).unwrap();
        for m in MODELS {
            assert_eq!(
                e.model.is_match(m),
                model.is_match(m),
                "{} against {m:?}",
                e.model.source()
            );
            compared += 1;
        }
    }
    assert!(compared > 300 * MODELS.len());
}

#[test]
#[ignore = "reads /usr/share/smartmontools/drivedb.h; scripts/test-all.sh runs it"]
fn a_lookup_compiles_only_the_entries_its_model_could_match() {
    let text = installed();
    let (db, _) = DriveDb::parse(&text);
    assert!(db.entries.iter().all(|e| !e.model.is_compiled()));
    let found = db
        .entries
        .iter()
        .find(|e| e.matches("KINGSTON SEDC500M1920G", "SCEKJ2.3"));
    assert!(found.is_some());
    let compiled = db.entries.iter().filter(|e| e.model.is_compiled()).count();
    // Only entries whose literal prefix the model starts with, or that have
    // none (a pattern that starts with a wildcard), are compiled.
    assert!(
        compiled * 20 < db.entries.len(),
        "{compiled} of {} entries compiled for one lookup",
        db.entries.len()
    );
}

#[test]
#[ignore = "reads /usr/share/smartmontools/drivedb.h; scripts/test-all.sh runs it"]
fn real_drivedb_usb_bridges() {
    use crate::ata::attributes::drivedb::usb::UsbLookup;
    let (namer, _) = Namer::with_drivedb(&installed());
    let t = namer.usb_bridges();
    // As the file (7.3, r5319) says, lines 5673, 5911, 6039 and 6045.
    for (vid, pid, bcd, want) in [
        (0x0bda, 0x9210, 0x2100, "sntrealtek"),
        (0x152d, 0x0583, 0x0214, "sntjmicron"),
        (0x174c, 0x2362, 0x0100, "sntasmedia"),
        (0x174c, 0x55aa, 0x0100, "sat"),
    ] {
        let UsbLookup::Found(e) = t.lookup(vid, pid, Some(bcd)) else {
            panic!("{vid:04x}:{pid:04x} not found");
        };
        assert_eq!(e.device_type.as_deref(), Ok(want), "{}", e.family);
    }
    // QEMU's USB disks are no bridge drivedb.h knows.
    assert!(matches!(
        t.lookup(0x46f4, 0x0001, Some(0)),
        UsbLookup::Unknown
    ));
}
