use std::path::Path;

use crate::ata::attributes::{Meaning, MeaningDef, MediaKind, Namer, RawFormat, ValueSource};

const DC600M: &str = "KINGSTON SEDC600M960G";

fn meaning(m: &[MeaningDef], id: u8) -> Option<(Meaning, ValueSource, f64)> {
    m.iter()
        .find(|d| d.id == id)
        .map(|d| (d.meaning, d.source, d.scale))
}

#[test]
fn dc600m_names_from_drives_md() {
    let p = Namer::builtin().for_drive(DC600M, "SCEKH5.1");
    assert_eq!(p.family.as_deref(), Some("Phison Driven SSDs"));
    let expected = [
        (1, "Raw_Read_Error_Rate"),
        (9, "Power_On_Hours"),
        (12, "Power_Cycle_Count"),
        (167, "Write_Protect_Mode"),
        (168, "SATA_Phy_Error_Count"),
        (169, "Bad_Block_Rate"),
        (170, "Bad_Blk_Ct_Lat/Erl"),
        (172, "Erase_Fail_Count"),
        (173, "MaxAvgErase_Ct"),
        (181, "Program_Fail_Count"),
        (182, "Erase_Fail_Count"),
        (187, "Reported_Uncorrect"),
        (192, "Unsafe_Shutdown_Count"),
        (193, "Power_Fail_Uncompl_Cnt"),
        (194, "Temperature_Celsius"),
        (195, "Power_Fail_Health"),
        (196, "Reallocated_Event_Count"),
        (199, "SATA_CRC_Error_Count"),
        (207, "Thermal_Throttling_Cnt"),
        (218, "CRC_Error_Count"),
        (231, "SSD_Life_Left"),
        (232, "Read_Fail_Count"),
        (233, "Flash_Writes_GiB"),
        (241, "Lifetime_Writes_GiB"),
        (242, "Lifetime_Reads_GiB"),
        (244, "Average_Erase_Count"),
        (245, "Max_Erase_Count"),
        (246, "Total_Erase_Count"),
    ];
    for (id, name) in expected {
        assert_eq!(p.get(id).name, name, "id {id}");
    }
    assert_eq!(p.get(9).format, RawFormat::Raw24Raw8);
    assert_eq!(p.get(194).format, RawFormat::TempMinMax);
    assert_eq!(p.get(196).format, RawFormat::Raw16Raw16);
    let bad = p.get(170);
    assert_eq!(
        (bad.format, bad.byte_order.as_ref().map(|o| o.as_str())),
        (RawFormat::Raw24Raw24, Some("z54z10"))
    );
    assert_eq!(p.get(173).format, RawFormat::Raw16Avg16);
    let unknown = p.get(100);
    assert_eq!(
        (unknown.name.as_str(), unknown.format),
        ("Unknown_Attribute", RawFormat::Raw48)
    );
}

#[test]
fn dc600m_meanings() {
    let m = Namer::builtin().for_drive(DC600M, "").meanings();
    // 231 SSD_Life_Left and 195 Power_Fail_Health have no public
    // definition: served raw, not mapped.
    assert_eq!(meaning(&m, 231), None);
    assert_eq!(meaning(&m, 195), None);
    assert_eq!(
        meaning(&m, 241),
        Some((Meaning::HostWrittenBytes, ValueSource::Raw, 1_073_741_824.0))
    );
    assert_eq!(
        meaning(&m, 233),
        Some((Meaning::NandWrittenBytes, ValueSource::Raw, 1_073_741_824.0))
    );
    assert_eq!(
        meaning(&m, 192),
        Some((Meaning::UnsafeShutdowns, ValueSource::Raw, 1.0))
    );
    assert_eq!(
        meaning(&m, 207).map(|x| x.0),
        Some(Meaning::ThermalThrottleEvents)
    );
    assert_eq!(meaning(&m, 199).map(|x| x.0), Some(Meaning::CrcErrors));
    assert_eq!(meaning(&m, 187).map(|x| x.0), Some(Meaning::MediaErrors));
    assert_eq!(
        meaning(&m, 9),
        Some((Meaning::PowerOnSeconds, ValueSource::Raw, 3600.0))
    );
    assert_eq!(meaning(&m, 12).map(|x| x.0), Some(Meaning::PowerCycles));
    assert_eq!(meaning(&m, 194).map(|x| x.0), Some(Meaning::Temperature));
    // Phison's 5 is Retired_Block_Count, not reallocated sectors.
    assert_eq!(meaning(&m, 5), None);
    assert_eq!(m.iter().filter(|d| d.id == 199).count(), 1);
}

#[test]
fn other_builtin_families() {
    let n = Namer::builtin();
    let intel = n.for_drive("INTEL SSDSC2KB960G8", "XCV10132");
    assert_eq!(
        intel.family.as_deref(),
        Some("Intel S4510/S4610/S4500/S4600 Series SSDs")
    );
    assert_eq!(intel.get(241).name, "Host_Writes_32MiB");
    assert_eq!(intel.get(233).name, "Media_Wearout_Indicator");
    let m = intel.meanings();
    assert_eq!(
        meaning(&m, 241),
        Some((Meaning::HostWrittenBytes, ValueSource::Raw, 33_554_432.0))
    );
    assert_eq!(
        meaning(&m, 233),
        Some((Meaning::LifeLeftPercent, ValueSource::Normalized, 1.0))
    );
    assert_eq!(
        meaning(&m, 234),
        Some((Meaning::ThermalThrottleEvents, ValueSource::RawSecond, 1.0))
    );
    assert_eq!(meaning(&m, 187).map(|x| x.0), Some(Meaning::MediaErrors));

    let samsung = n.for_drive("SAMSUNG MZ7LH960HAJR-00005", "HXT7404Q");
    assert_eq!(samsung.family.as_deref(), Some("Samsung based SSDs"));
    assert_eq!(samsung.get(177).name, "Wear_Leveling_Count");
    assert_eq!(
        meaning(&samsung.meanings(), 177),
        Some((Meaning::LifeLeftPercent, ValueSource::Normalized, 1.0))
    );
    assert_eq!(
        meaning(&samsung.meanings(), 241),
        Some((Meaning::HostWrittenBytes, ValueSource::Raw, 512.0))
    );

    let micron = n.for_drive("Micron_5300_MTFDDAK960TDS", "D3MU001");
    assert_eq!(
        micron.family.as_deref(),
        Some("Micron 5100 / 52x0 / 5300 / 5400 SSDs")
    );
    assert_eq!(micron.get(202).name, "Percent_Lifetime_Remain");
    assert_eq!(
        meaning(&micron.meanings(), 246),
        Some((Meaning::HostWrittenBytes, ValueSource::Raw, 512.0))
    );
    assert_eq!(
        meaning(&micron.meanings(), 174).map(|x| x.0),
        Some(Meaning::UnsafeShutdowns)
    );

    let crucial = n.for_drive("CT1000MX500SSD1", "M3CR032");
    assert_eq!(
        crucial.family.as_deref(),
        Some("Crucial/Micron Client SSDs")
    );
    assert_eq!(
        meaning(&crucial.meanings(), 202),
        Some((Meaning::PercentageUsed, ValueSource::Raw, 1.0))
    );

    let nytro = n.for_drive("XA960LE10063", "");
    assert_eq!(nytro.family.as_deref(), Some("Seagate Nytro SATA SSD"));
    assert_eq!(nytro.get(231).format, RawFormat::Hex56);

    // drivedb.h's m4/C400/P400 entries: 202 Perc_Rated_Life_Used.
    for model in [
        "M4-CT256M4SSD2",
        "C400-MTFDDAC256MAM",
        "MTFDDAK256MAR-1K1AA",
    ] {
        let marvell = n.for_drive(model, "0309");
        assert_eq!(
            marvell.family.as_deref(),
            Some("Crucial/Micron RealSSD m4/C400/P400"),
            "{model}"
        );
        assert_eq!(marvell.get(202).name, "Perc_Rated_Life_Used");
        assert_eq!(
            meaning(&marvell.meanings(), 202),
            Some((Meaning::PercentageUsed, ValueSource::Raw, 1.0))
        );
    }

    for (model, family) in [
        ("INTEL SSDSC2BB960G7", "Intel S3520 Series SSDs"),
        (
            "INTEL SSDSC2BA200G3",
            "Intel 730 and DC S35x0/3610/3700 Series SSDs",
        ),
        (
            "SOLIDIGM SSDSC2KB960GZ",
            "Intel S4510/S4610/S4500/S4600 Series SSDs",
        ),
        ("SAMSUNG MZ7L3960HCJR-00A07", "Samsung based SSDs"),
        (
            "Micron_5400_MTFDDAK1T9TGB",
            "Micron 5100 / 52x0 / 5300 / 5400 SSDs",
        ),
    ] {
        assert_eq!(
            n.for_drive(model, "").family.as_deref(),
            Some(family),
            "{model}"
        );
    }
    let t = n.for_drive("INTEL SSDSC2BB960G7", "").get(234);
    assert_eq!(
        (t.format, t.byte_order.as_ref().map(|o| o.as_str())),
        (RawFormat::Raw24Raw32, Some("04321"))
    );
}

#[test]
fn unknown_drive_gets_defaults_and_shared_meanings() {
    let n = Namer::builtin();
    let p = n.for_drive("ACME SSD 1TB", "1.0");
    assert_eq!(p.family, None);
    assert_eq!(p.get(5).name, "Reallocated_Sector_Ct");
    assert_eq!(p.get(7).name, "Seek_Error_Rate");
    let m = p.meanings();
    assert_eq!(
        meaning(&m, 5).map(|x| x.0),
        Some(Meaning::ReallocatedSectors)
    );
    assert_eq!(
        meaning(&m, 241),
        None,
        "Total_LBAs_Written units differ by vendor"
    );
    let ssd = n.for_drive_kind("ACME SSD 1TB", "1.0", MediaKind::Ssd);
    assert_eq!(ssd.get(7).name, "Unknown_SSD_Attribute");
    assert_eq!(ssd.get(233).name, "Media_Wearout_Indicator");
    let hdd = n.for_drive_kind("ACME HDD", "1.0", MediaKind::Hdd);
    assert_eq!(hdd.get(233).name, "Unknown_HDD_Attribute");
}

const SMALL_DB: &str = r#"
/* test database */
#include "nothing.h"
  { "VERSION: 9.9 test", "-", "-", "Version information", "" },
  { "DEFAULT", "-", "-", "Default settings",
    "-v 1,raw48,Read_Errors_Custom " // comment "with quotes"
    "-v 7,raw48,Seek_Error_Rate,HDD"
  },
  { "USB: Some bridge; ", "0x1234:0x5678", "", "", "-d sat" },
  { "Broken regex", "TEST(", "", "", "" },
  { "Bad preset", "TESTPRESET", "", "", "-v 300,raw48,X" },
  { "Firmware-limited", "TESTDRIVE", "FW2\\.[0-9]", "", "-v 192,raw48,Fw2_Name" },
  { "Test family", "TEST" "DRIVE|OTHER", "", "warning\n",
    "-v 192,raw48,Test_Unsafe "
    "-v 9,raw64 "
    "-F xerrorlba"
  },
  { "Kingston override", "KINGSTON SEDC600M960G", "", "", "-v 231,raw48,Life_Custom" },
  { "Shadowed", "TESTDRIVE", "", "", "-v 192,raw48,Never_Seen" },
"#;

#[test]
fn drivedb_overrides_builtin() {
    let (n, errors) = Namer::with_drivedb(SMALL_DB);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("Broken regex")));
    assert!(errors.iter().any(|e| e.contains("Bad preset")));

    let p = n.for_drive("TESTDRIVE", "FW1.0");
    assert_eq!(p.family.as_deref(), Some("Test family"));
    assert_eq!(p.get(192).name, "Test_Unsafe");
    assert_eq!(
        p.get(1).name,
        "Read_Errors_Custom",
        "file DEFAULT replaces built-in name"
    );
    let poh = p.get(9);
    assert_eq!(
        (poh.name.as_str(), poh.format),
        ("Power_On_Hours", RawFormat::Raw64)
    );
    assert!(!poh.normalized_valid());
    assert_eq!(
        n.for_drive("TESTDRIVE", "FW2.1").get(192).name,
        "Fw2_Name",
        "first match wins"
    );
    assert_eq!(
        n.for_drive("OTHER", "").family.as_deref(),
        Some("Test family")
    );
    assert_eq!(
        n.for_drive("TESTDRIVEX", "").family,
        None,
        "full-string match"
    );

    // The file names the DC600M; meanings still come from the built-in family.
    let k = n.for_drive(DC600M, "");
    assert_eq!(k.family.as_deref(), Some("Kingston override"));
    assert_eq!(k.get(231).name, "Life_Custom");
    assert_eq!(
        k.get(192).name,
        "Power-Off_Retract_Count",
        "file entry replaces the built-in presets"
    );
    assert_eq!(
        meaning(&k.meanings(), 241).map(|x| x.0),
        Some(Meaning::HostWrittenBytes)
    );
    // A drive the file does not know keeps the built-in family.
    assert_eq!(
        n.for_drive("INTEL SSDSC2KB960G8", "").family.as_deref(),
        Some("Intel S4510/S4610/S4500/S4600 Series SSDs")
    );
}

#[test]
fn unparseable_drivedb_leaves_builtin() {
    for text in [
        "{ \"DEFAULT\", \"unterminated",
        "/* never closed",
        "",
        "int x = 3;",
    ] {
        let (n, errors) = Namer::with_drivedb(text);
        assert!(!errors.is_empty(), "{text:?}");
        assert_eq!(
            n.for_drive(DC600M, "").get(192).name,
            "Unsafe_Shutdown_Count"
        );
    }
}

#[test]
fn load_picks_first_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("drivedb.h");
    std::fs::write(&file, SMALL_DB).unwrap();
    let missing = dir.path().join("missing.h");
    let (n, errors) = Namer::load(&[&missing, &file]);
    assert_eq!(errors.len(), 2);
    assert!(errors[0].starts_with(&file.display().to_string()));
    assert_eq!(
        n.for_drive("OTHER", "").family.as_deref(),
        Some("Test family")
    );
    let (n, errors) = Namer::load(&[&missing]);
    assert!(errors.is_empty());
    assert_eq!(n.for_drive("OTHER", "").family, None);
    let (_, errors) = Namer::load(&[dir.path()]);
    assert_eq!(errors.len(), 1, "a directory cannot be read");
    let _ = Path::new("/");
}

/// Models drivedb.h lists as tested in each family (its "tested with"
/// comments), which the built-in patterns missed before.
#[test]
fn family_patterns_cover_the_models_operators_run() {
    let n = Namer::builtin();
    let intel_3x00 = "Intel 730 and DC S35x0/3610/3700 Series SSDs";
    for model in [
        "INTEL SSDSC2BB240G4C",
        "INTEL SSDSC2BA800G3E",
        "INTEL SSDSC1BG400G4",
        "VK000480GWSXF",
        "INTEL SSDSC2BB480G4",
    ] {
        assert_eq!(
            n.for_drive(model, "").family.as_deref(),
            Some(intel_3x00),
            "{model}"
        );
    }
    let micron = "Micron 5100 / 52x0 / 5300 / 5400 SSDs";
    for model in [
        "Micron_5100_MTFDDAK3T8TBY_SED",
        "Micron_5300_MTFDDAV960TDS_CISCO",
        "MTFDDAK960TDT-1AW1ZA 02...........10LEN",
        "Micron_5400_MTFDDAK960TGA_SED",
        "VK001920GWSXK",
        "VK001920GXAWN",
    ] {
        assert_eq!(
            n.for_drive(model, "").family.as_deref(),
            Some(micron),
            "{model}"
        );
    }
    for model in ["CT500MX500SSD1N", "CT4000MX500SSD1", "CT4000BX500SSD1"] {
        assert_eq!(
            n.for_drive(model, "").family.as_deref(),
            Some("Crucial/Micron Client SSDs"),
            "{model}"
        );
    }
}

#[test]
fn intel_175_is_a_capacitor_test_result_not_a_percentage() {
    let m = Namer::builtin()
        .for_drive("INTEL SSDSC2KB960G8", "")
        .meanings();
    assert_eq!(
        meaning(&m, 175),
        Some((Meaning::PlpCapacitorTest, ValueSource::Normalized, 1.0))
    );
    assert!(m.iter().all(|d| d.meaning != Meaning::PlpHealthPercent));
}

/// Names upstream drivedb.h gives that 7.3 did not (read from the current
/// smartmontools drivedb.h, not from this table): the built-in table agrees
/// with smartctl on these drives even without a host drivedb.h.
#[test]
fn names_added_upstream_after_7_3() {
    let n = Namer::builtin();
    let mx500 = n.for_drive("CT1000MX500SSD1", "M3CR046");
    for (id, name) in [
        (223, "Tot_Bg_Scan_ECC_Fail_Ct"),
        (249, "Total_Refresh_ISP_Count"),
        (250, "Total_Do_RefCal_Count"),
        (251, "Tot_NAND_Rd_Plane_Cnt_L"),
        (252, "Tot_NAND_Rd_Plane_Cnt_H"),
        (253, "Tot_Blk_Remap_Pass_Cnt"),
        (254, "Tot_Bg_Scan_Over_Limit"),
    ] {
        assert_eq!(mx500.get(id).name, name, "id {id}");
    }
    assert_eq!(mx500.get(251).format, RawFormat::Hex48);
    let hpe = n.for_drive("VK000480GWSXF", "HPG2");
    assert_eq!(hpe.get(11).name, "Unknown_Intel_Attribute");
    assert_eq!(hpe.get(173).name, "Unknown_Intel_Attribute");
    let hdd = n.for_drive_kind("WDC WUH721818ALE6L4", "", MediaKind::Hdd);
    assert_eq!(hdd.get(22).name, "Helium_Level");
    let ssd = n.for_drive_kind("Some SSD", "", MediaKind::Ssd);
    // smartctl names an unknown id of an SSD Unknown_SSD_Attribute.
    assert_eq!(ssd.get(22).name, "Unknown_SSD_Attribute");
}
