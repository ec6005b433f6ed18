//! Built-in drive families: model patterns, attribute names and formats as
//! smartmontools' drivedb.h gives them (7.3 and later upstream revisions;
//! where upstream renamed, the newer name), plus which attribute carries
//! which unified meaning. Model patterns of the Samsung entry keep only the
//! datacenter models of drivedb's "Samsung based SSDs".
//!
//! Every meaning row names where its meaning comes from. A name alone is a
//! source only where it states the quantity and unit (`Lifetime_Writes_GiB`,
//! `Unsafe_Shutdown_Count`): drivedb.h's names are smartmontools' reading of
//! the vendors' attribute documents its entries cite. An attribute whose
//! meaning or scale has no public definition (Phison's 195
//! `Power_Fail_Health` and 231 `SSD_Life_Left` on the Kingston DC4x0/DC500/
//! DC600M) is served as a raw attribute only, never as a unified metric.

use super::rawfmt::RawFormat::{self, *};
use super::{Meaning as M, MeaningDef, ValueSource as S};

/// One attribute preset: id, format, byte order, name.
pub(super) type Attr = (u8, RawFormat, Option<&'static str>, &'static str);

/// A built-in family.
pub(super) struct FamilyDef {
    pub family: &'static str,
    /// POSIX ERE, full match.
    pub model: &'static str,
    pub attrs: &'static [Attr],
    pub meanings: &'static [MeaningDef],
}

const GIB: f64 = 1_073_741_824.0;
const MIB32: f64 = 33_554_432.0;
const LBA: f64 = 512.0;

const fn m(id: u8, meaning: M, source: S, scale: f64) -> MeaningDef {
    MeaningDef {
        id,
        meaning,
        source,
        scale,
    }
}

pub(super) const FAMILIES: &[FamilyDef] = &[
    PHISON,
    INTEL_S4X10,
    INTEL_S3520,
    INTEL_S3X00,
    MICRON_5X00,
    CRUCIAL,
    MICRON_MARVELL,
    SAMSUNG_DC,
    NYTRO,
];

const PHISON: FamilyDef = FamilyDef {
    family: "Phison Driven SSDs",
    model: r"KINGSTON SEDC400S37(400|480|800|960|1600|1800)G|KINGSTON SEDC(450R|500[MR]|600ME?)(480|960|1920|3840|7680)G",
    attrs: &[
        (2, Raw48, None, "Not_In_Use"),
        (3, Raw48, None, "Not_In_Use"),
        (5, Raw48, None, "Retired_Block_Count"),
        (7, Raw48, None, "Not_In_Use"),
        (8, Raw48, None, "Not_In_Use"),
        (10, Raw48, None, "Not_In_Use"),
        (167, Raw48, None, "Write_Protect_Mode"),
        (168, Raw48, None, "SATA_Phy_Error_Count"),
        (169, Raw48, None, "Bad_Block_Rate"),
        (170, Raw24Raw24, Some("z54z10"), "Bad_Blk_Ct_Lat/Erl"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (173, Raw16Avg16, None, "MaxAvgErase_Ct"),
        (175, Raw48, None, "Not_In_Use"),
        (181, Raw48, None, "Program_Fail_Count"),
        (182, Raw48, None, "Erase_Fail_Count"),
        (183, Raw48, None, "Unknown_Phison_Attr"),
        (192, Raw48, None, "Unsafe_Shutdown_Count"),
        (193, Raw48, None, "Power_Fail_Uncompl_Cnt"),
        (195, Raw48, None, "Power_Fail_Health"),
        (197, Raw48, None, "Not_In_Use"),
        (199, Raw48, None, "SATA_CRC_Error_Count"),
        (207, Raw48, None, "Thermal_Throttling_Cnt"),
        (218, Raw48, None, "CRC_Error_Count"),
        (231, Raw48, None, "SSD_Life_Left"),
        (232, Raw48, None, "Read_Fail_Count"),
        (233, Raw48, None, "Flash_Writes_GiB"),
        (240, Raw48, None, "Not_In_Use"),
        (241, Raw48, None, "Lifetime_Writes_GiB"),
        (242, Raw48, None, "Lifetime_Reads_GiB"),
        (244, Raw48, None, "Average_Erase_Count"),
        (245, Raw48, None, "Max_Erase_Count"),
        (246, Raw48, None, "Total_Erase_Count"),
    ],
    // Names from drivedb.h's entry, which cites Phison's MKP_521 attribute
    // document; each states its quantity and unit. Not mapped: 231
    // SSD_Life_Left and 195 Power_Fail_Health (no public definition of
    // their scale or of normalized vs raw; served raw).
    meanings: &[
        m(241, M::HostWrittenBytes, S::Raw, GIB), // Lifetime_Writes_GiB
        m(242, M::HostReadBytes, S::Raw, GIB),    // Lifetime_Reads_GiB
        m(233, M::NandWrittenBytes, S::Raw, GIB), // Flash_Writes_GiB
        m(192, M::UnsafeShutdowns, S::Raw, 1.0),  // Unsafe_Shutdown_Count
        m(207, M::ThermalThrottleEvents, S::Raw, 1.0), // Thermal_Throttling_Cnt
        m(199, M::CrcErrors, S::Raw, 1.0),        // SATA_CRC_Error_Count
    ],
};

/// Attributes shared by Intel's datacenter SATA families. Sources: Intel's
/// DC S3500/S3610/S3700/S4510 product specifications (SMART attribute
/// tables) as drivedb.h's Intel entries name and format them.
const INTEL_DC_MEANINGS: &[MeaningDef] = &[
    // E9h Media Wearout Indicator: normalized 100 (new) down to 1.
    m(233, M::LifeLeftPercent, S::Normalized, 1.0),
    // Host_Writes_32MiB / Host_Reads_32MiB / NAND_Writes_32MiB.
    m(241, M::HostWrittenBytes, S::Raw, MIB32),
    m(242, M::HostReadBytes, S::Raw, MIB32),
    m(243, M::NandWrittenBytes, S::Raw, MIB32),
    m(174, M::UnsafeShutdowns, S::Raw, 1.0), // Unsafe_Shutdown_Count
    // AFh Power_Loss_Cap_Test: a test result, not a percentage. Intel
    // defines the normalized value as 100 passed, 1 failed, 11 tested at
    // an excessive temperature.
    m(175, M::PlpCapacitorTest, S::Normalized, 1.0),
    // EAh Thermal_Throttle(_Status), raw24/raw32:04321: byte 0 the
    // throttle status, bytes 4..1 the number of throttling events.
    m(234, M::ThermalThrottleEvents, S::RawSecond, 1.0),
    m(199, M::CrcErrors, S::Raw, 1.0), // CRC_Error_Count
];

const INTEL_S4X10: FamilyDef = FamilyDef {
    family: "Intel S4510/S4610/S4500/S4600 Series SSDs",
    model: r"(INTEL|SOLIDIGM) SSDSC(2K|KK)(B|G)(240G|480G|960G|019T|038T|076T)[78Z].?",
    attrs: &[
        (170, Raw48, None, "Available_Reservd_Space"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (174, Raw48, None, "Unsafe_Shutdown_Count"),
        (175, Raw16Raw16, None, "Power_Loss_Cap_Test"),
        (183, Raw48, None, "SATA_Downshift_Count"),
        (184, Raw48, None, "End-to-End_Error_Count"),
        (187, Raw48, None, "Uncorrectable_Error_Cnt"),
        (190, TempMinMax, None, "Drive_Temperature"),
        (192, Raw48, None, "Unsafe_Shutdown_Count"),
        (197, Raw48, None, "Pending_Sector_Count"),
        (199, Raw48, None, "CRC_Error_Count"),
        (225, Raw48, None, "Host_Writes_32MiB"),
        (226, Raw48, None, "Workld_Media_Wear_Indic"),
        (227, Raw48, None, "Workld_Host_Reads_Perc"),
        (228, Raw48, None, "Workload_Minutes"),
        (234, Raw24Raw32, Some("04321"), "Thermal_Throttle_Status"),
        (235, Raw16Raw16, None, "Power_Loss_Cap_Test"),
        (241, Raw48, None, "Host_Writes_32MiB"),
        (242, Raw48, None, "Host_Reads_32MiB"),
        (243, Raw48, None, "NAND_Writes_32MiB"),
    ],
    meanings: INTEL_DC_MEANINGS,
};

const INTEL_S3520: FamilyDef = FamilyDef {
    family: "Intel S3520 Series SSDs",
    model: r"INTEL SSDSC(2|K)(J|B)B(240G|480G|960G|150G|760G|800G|012T|016T)7.?",
    attrs: &[
        (170, Raw48, None, "Available_Reservd_Space"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (174, Raw48, None, "Unsafe_Shutdown_Count"),
        (175, Raw16Raw16, None, "Power_Loss_Cap_Test"),
        (183, Raw48, None, "SATA_Downshift_Count"),
        (184, Raw48, None, "End-to-End_Error_Count"),
        (187, Raw48, None, "Uncorrectable_Error_Cnt"),
        (190, TempMinMax, None, "Case_Temperature"),
        (192, Raw48, None, "Unsafe_Shutdown_Count"),
        (194, TempMinMax, None, "Drive_Temperature"),
        (197, Raw48, None, "Pending_Sector_Count"),
        (199, Raw48, None, "CRC_Error_Count"),
        (225, Raw48, None, "Host_Writes_32MiB"),
        (226, Raw48, None, "Workld_Media_Wear_Indic"),
        (227, Raw48, None, "Workld_Host_Reads_Perc"),
        (228, Raw48, None, "Workload_Minutes"),
        (234, Raw24Raw32, Some("04321"), "Thermal_Throttle_Status"),
        (241, Raw48, None, "Host_Writes_32MiB"),
        (242, Raw48, None, "Host_Reads_32MiB"),
        (243, Raw48, None, "NAND_Writes_32MiB"),
    ],
    meanings: INTEL_DC_MEANINGS,
};

const INTEL_S3X00: FamilyDef = FamilyDef {
    family: "Intel 730 and DC S35x0/3610/3700 Series SSDs",
    // drivedb.h tests SSDSC2BB240G4C, SSDSC2BA800G3E, SSDSC1BG400G4 and the
    // HPE-branded VK000480GWSXF (an SSDSC2BB480G4) in this family.
    model: r"INTEL SSDSC(1N|[12]B)[ABGPX]((080|100|120|150|160|200|240|300|400|480|600|800)[GH][3467][CERT]?|(012|016)T[46])|VK000(120|240|480)GWSXF",
    attrs: &[
        // drivedb.h names these for the HPE VK000480GWSXF.
        (11, Raw48, None, "Unknown_Intel_Attribute"),
        (170, Raw48, None, "Available_Reservd_Space"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (173, Raw48, None, "Unknown_Intel_Attribute"),
        (174, Raw48, None, "Unsafe_Shutdown_Count"),
        (175, Raw16Raw16, None, "Power_Loss_Cap_Test"),
        (183, Raw48, None, "SATA_Downshift_Count"),
        (190, TempMinMax, None, "Temperature_Case"),
        (192, Raw48, None, "Unsafe_Shutdown_Count"),
        (194, TempMinMax, None, "Temperature_Internal"),
        (199, Raw48, None, "CRC_Error_Count"),
        (225, Raw48, None, "Host_Writes_32MiB"),
        (226, Raw48, None, "Workld_Media_Wear_Indic"),
        (227, Raw48, None, "Workld_Host_Reads_Perc"),
        (228, Raw48, None, "Workload_Minutes"),
        (234, Raw24Raw32, Some("04321"), "Thermal_Throttle"),
        (241, Raw48, None, "Host_Writes_32MiB"),
        (242, Raw48, None, "Host_Reads_32MiB"),
        (243, Raw48, None, "NAND_Writes_32MiB"),
    ],
    meanings: INTEL_DC_MEANINGS,
};

const MICRON_5X00: FamilyDef = FamilyDef {
    family: "Micron 5100 / 52x0 / 5300 / 5400 SSDs",
    model: concat!(
        r"(Micron_5100_)?(EE|MT)FDDA[KV](240|480|960|1T9|3T8|7T6)T(BY|CB|CC)(_SED)?|",
        r"(Micron_5200_)?MTFDDAK(240|480|960|1T9|3T8|7T6)TD(C|D|N)|",
        r"Micron_5210_MTFDDAK(480|960|1T9|3T8|7T6)QDE|",
        // Stock, SED, Cisco/Lenovo OEM suffixes (drivedb.h: `_CISCO`, `-1AW1ZA …`).
        r"(Micron_5300(HC)?_)?MTFDDA[KV](240|480|960|1T9|3T8|7T6)TD[STU]([-_].*)?|",
        r"(Micron_5400_)?(EE|MT)FDDA[KV](240|480|960|1T9|3T8|7T6)TG[ABC](_SED)?|",
        // HPE OEM (drivedb.h: VK001920GWSXK, VK001920GXAWN).
        r"VK001920G(WSXK|XAWN)"
    ),
    attrs: &[
        (170, Raw48, None, "Reserved_Block_Pct"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (173, Raw48, None, "Avg_Block-Erase_Count"),
        (174, Raw48, None, "Unexpect_Power_Loss_Ct"),
        (183, Raw48, None, "SATA_Int_Downshift_Ct"),
        (202, Raw48, None, "Percent_Lifetime_Remain"),
        (206, Raw48, None, "Write_Error_Rate"),
        (210, Raw48, None, "RAIN_Success_Recovered"),
        (211, Raw48, None, "Integ_Scan_Complete_Cnt"),
        (212, Raw48, None, "Integ_Scan_Folding_Cnt"),
        (213, Raw48, None, "Integ_Scan_Progress"),
        (246, Raw48, None, "Total_LBAs_Written"),
        (247, Raw48, None, "Host_Program_Page_Count"),
        (248, Raw48, None, "Bckgnd_Program_Page_Cnt"),
    ],
    // drivedb.h's Micron 5x00 entry: 202 Percent_Lifetime_Remain,
    // "Remaining endurance, trips at 10%" (normalized = life left), 246
    // Total_LBAs_Written (512-byte LBAs), 247/248 program page counts, 174
    // Unexpect_Power_Loss_Ct.
    meanings: &[
        m(202, M::LifeLeftPercent, S::Normalized, 1.0),
        m(246, M::HostWrittenBytes, S::Raw, LBA),
        m(247, M::NandProgramPages, S::Raw, 1.0),
        m(248, M::NandProgramPages, S::Raw, 1.0),
        m(174, M::UnsafeShutdowns, S::Raw, 1.0),
    ],
};

const CRUCIAL: FamilyDef = FamilyDef {
    family: "Crucial/Micron Client SSDs",
    model: concat!(
        r"Crucial_CT(128|256|512)MX100SSD1|",
        r"Crucial_CT(200|250|256|500|512|1000|1024)MX200SSD[1346]|",
        r"Crucial_CT(275|525|750|1050|2050)MX300SSD[14]|",
        r"Crucial_CT(120|240|480|960)M500SSD[134]|",
        r"Crucial_CT(128|256|512|1024)M550SSD[134]|",
        r"CT(120|240|480)BX300SSD1|",
        r"CT(120|240|480|960|[124]000)BX500SSD1|",
        // drivedb.h: CT4000MX500SSD1, and letter suffixes (CT500MX500SSD1N).
        r"CT(250|500|[124]000)MX500SSD[14][A-Z]?|",
        r"Micron_M500_MTFDDA[KTV](120|240|480|960)MAV|",
        r"Micron_M500DC_(EE|MT)FDDA[AK](120|240|480|800)MBB|",
        r"(Micron[_ ])?M500IT[_ ]MTFDDA[KTY](032|050|060|064|120|128|240|256)[MS]BD|",
        r"(Micron_)?M510[_-]MTFDDA[KTV](128|256)MAZ|",
        r"MICRON_M510DC_(EE|MT)FDDAK(120|240|480|800|960)MBP|",
        r"(Micron_)?M550[_-]MTFDDA[KTV](064|128|256|512|1T0)MAY|",
        r"(Micron_M600_)?(EE|MT)FDDA[KTV](128|256|512|1T0)MBF[25Z]?(-.*)?|",
        r"(Micron_1100_)?MTFDDA[KV](256|512|1T0|2T0)TBN(-.*)?|",
        r"Micron 1100 SATA (256G|512G|1T|2T)B|",
        r"(Micron_1300_)?(EE|MT)FDDA[KV](256|512|1T0|2T0)TDL(-.*)?"
    ),
    attrs: &[
        (5, Raw48, None, "Reallocate_NAND_Blk_Cnt"),
        (170, Raw48, None, "Reserved_Block_Count"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (173, Raw48, None, "Ave_Block-Erase_Count"),
        (174, Raw48, None, "Unexpect_Power_Loss_Ct"),
        (180, Raw48, None, "Unused_Reserve_NAND_Blk"),
        (183, Raw48, None, "SATA_Interfac_Downshift"),
        (184, Raw48, None, "Error_Correction_Count"),
        (195, Raw48, None, "Cumulativ_Corrected_ECC"),
        (197, Raw48, None, "Current_Pending_ECC_Cnt"),
        (202, Raw48, None, "Percent_Lifetime_Remain"),
        (206, Raw48, None, "Write_Error_Rate"),
        (210, Raw48, None, "Success_RAIN_Recov_Cnt"),
        // 223 and 249..254: named in drivedb.h after 7.3 (MX500).
        (223, Raw48, None, "Tot_Bg_Scan_ECC_Fail_Ct"),
        (246, Raw48, None, "Total_LBAs_Written"),
        (247, Raw48, None, "Host_Program_Page_Count"),
        (248, Raw48, None, "FTL_Program_Page_Count"),
        (249, Raw48, None, "Total_Refresh_ISP_Count"),
        (250, Raw48, None, "Total_Do_RefCal_Count"),
        (251, Hex48, None, "Tot_NAND_Rd_Plane_Cnt_L"),
        (252, Hex48, None, "Tot_NAND_Rd_Plane_Cnt_H"),
        (253, Raw48, None, "Tot_Blk_Remap_Pass_Cnt"),
        (254, Raw48, None, "Tot_Bg_Scan_Over_Limit"),
    ],
    // drivedb: for 202, "norm = max(100-raw,0); raw = percent_lifetime_used".
    meanings: &[
        m(202, M::PercentageUsed, S::Raw, 1.0),
        m(246, M::HostWrittenBytes, S::Raw, LBA),
        m(247, M::NandProgramPages, S::Raw, 1.0),
        m(248, M::NandProgramPages, S::Raw, 1.0),
        m(174, M::UnsafeShutdowns, S::Raw, 1.0),
    ],
};

/// The Marvell-based Crucial m4, C400 and Micron P400e/P400m: drivedb.h's
/// "Crucial/Micron RealSSD m4/C400/P400" entries (both firmware ranges).
const MICRON_MARVELL: FamilyDef = FamilyDef {
    family: "Crucial/Micron RealSSD m4/C400/P400",
    model: concat!(
        r"C400-MTFDDA[ACK](064|128|256|512)MAM|",
        r"M4-CT(032|064|128|256|512)M4SSD[123]|",
        r"MTFDDA[AK](064|128|256|512|050|100|200|400)MA[MNR]-1[JKS]1.*"
    ),
    attrs: &[
        (170, Raw48, None, "Grown_Failing_Block_Ct"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (173, Raw48, None, "Wear_Leveling_Count"),
        (174, Raw48, None, "Unexpect_Power_Loss_Ct"),
        (181, Raw16, None, "Non4k_Aligned_Access"),
        (183, Raw48, None, "SATA_Iface_Downshift"),
        (189, Raw48, None, "Factory_Bad_Block_Ct"),
        (202, Raw48, None, "Perc_Rated_Life_Used"),
        (206, Raw48, None, "Write_Error_Rate"),
    ],
    // 202 Perc_Rated_Life_Used: the raw value is the percent of the rated
    // life used, 0 when new and past 100 beyond it (drivedb.h's name states
    // the quantity and unit, the rule of this file; Micron's SMART
    // attribute references define CAh so for its client drives). 174
    // Unexpect_Power_Loss_Ct as on the client family.
    meanings: &[
        m(202, M::PercentageUsed, S::Raw, 1.0),
        m(174, M::UnsafeShutdowns, S::Raw, 1.0),
    ],
};

const SAMSUNG_DC: FamilyDef = FamilyDef {
    family: "Samsung based SSDs",
    model: concat!(
        r"Samsung SSD 883 DCT ((240|480|960)G|(1\.92|3\.84)T)B|",
        r"Samsung SSD 845DC EVO .*|",
        r"SAMSUNG MZ7WD((120|240)H[AC]FV|480H[AC]GM|960H[AC]GP)-.*|",
        r"SAMSUNG MZ7GE(240HMGR|(480|960)HMHP)-00003|",
        r"SAMSUNG MZ7LM(120|240|480|960|1T9|3T8)HC(JM|HP|GR|FD)-.*|",
        r"(SAMSUNG )?MZ7LM(240|480|960|1T9|3T8)HM(JP|HQ|LP)(-.*|0D3)|",
        r"(SAMSUNG )?MZ7KM(120|240|480|960|1T9)H[AM](FD|GR|H[PQ]|J[MP])(-.*|0D3)|",
        r"SAMSUNG MZ7LH(240|480|960|1T9|3T8|7T6)H[AM](HQ|JR|LT|LA)-.*|",
        r"SAMSUNG MZ7L3(240|480|960|1T9|3T8|7T6)H(B[LN][AT]|CHQ|CJR)-.*|",
        r"MK000(240|480|960)GZXR[AB]|",
        r"SAMSUNG MZ7KH(240|480|960|1T9|3T8)HA(HQ|JR|LS)-.*"
    ),
    attrs: &[
        (170, Raw48, None, "Unused_Rsvd_Blk_Ct_Chip"),
        (171, Raw48, None, "Program_Fail_Count_Chip"),
        (172, Raw48, None, "Erase_Fail_Count_Chip"),
        (173, Raw48, None, "Wear_Leveling_Count"),
        (174, Raw48, None, "Unexpect_Power_Loss_Ct"),
        (187, Raw48, None, "Uncorrectable_Error_Cnt"),
        (191, Raw48, None, "Unknown_Samsung_Attr"),
        (195, Raw48, None, "ECC_Error_Rate"),
        (199, Raw48, None, "CRC_Error_Count"),
        (201, Raw48, None, "Supercap_Status"),
        (202, Raw48, None, "Exception_Mode_Status"),
        (234, Raw48, None, "Unknown_Samsung_Attr"),
        (235, Raw48, None, "POR_Recovery_Count"),
        (236, Raw48, None, "Unknown_Samsung_Attr"),
        (237, Raw48, None, "Unknown_Samsung_Attr"),
        (238, Raw48, None, "Unknown_Samsung_Attr"),
        (243, Raw48, None, "SATA_Downshift_Ct"),
        (244, Raw48, None, "Thermal_Throttle_St"),
        (245, Raw48, None, "Timed_Workld_Media_Wear"),
        (246, Raw48, None, "Timed_Workld_RdWr_Ratio"),
        (247, Raw48, None, "Timed_Workld_Timer"),
        (249, Raw48, None, "NAND_Writes_1GiB"),
        (250, Raw48, None, "SATA_Iface_Downshift"),
        (251, Raw48, None, "NAND_Writes"),
        (252, Raw48, None, "Added_Bad_Flash_Blk_Ct"),
    ],
    // 177 is the DEFAULT table's Wear_Leveling_Count (SSD only): its
    // normalized value is the remaining endurance, 100 down to 0, as
    // AnandTech measured it on Samsung drives (the normalized value drops
    // by one per 1 % of rated P/E cycles consumed). 241/242
    // Total_LBAs_Written/Read (DEFAULT names, 512-byte LBAs), 199
    // CRC_Error_Count. Not mapped: 235 POR_Recovery_Count (no public
    // definition that it counts unsafe shutdowns; served raw).
    meanings: &[
        m(177, M::LifeLeftPercent, S::Normalized, 1.0),
        m(241, M::HostWrittenBytes, S::Raw, LBA),
        m(242, M::HostReadBytes, S::Raw, LBA),
        m(199, M::CrcErrors, S::Raw, 1.0),
    ],
};

const NYTRO: FamilyDef = FamilyDef {
    family: "Seagate Nytro SATA SSD",
    model: r"XA(240|480|960|1920|3840)[LM]E10(00|02|04|06|08|10)3",
    attrs: &[
        (100, Raw48, None, "Flash_GB_Erased"),
        (102, Raw48, None, "Lifetime_PS4_Entry_Ct"),
        (103, Raw48, None, "Lifetime_PS3_Exit_Ct"),
        (170, Raw48, None, "Grown_Bad_Block_Ct"),
        (171, Raw48, None, "Program_Fail_Count"),
        (172, Raw48, None, "Erase_Fail_Count"),
        (173, Raw48, None, "Avg_Program/Erase_Ct"),
        (174, Raw48, None, "Unexpected_Pwr_Loss_Ct"),
        (177, Raw16, None, "Wear_Range_Delta"),
        (183, Hex56, None, "SATA_Downshift_Count"),
        (187, Raw48, None, "Uncorrectable_ECC_Ct"),
        (195, Raw16Raw16, None, "RAISE_ECC_Cor_Ct"),
        (198, Raw48, None, "Uncor_Read_Error_Ct"),
        (230, Raw56, None, "Drv_Life_Protect_Status"),
        (231, Hex56, None, "SSD_Life_Left"),
        (233, Raw48, None, "Lifetime_Wts_To_Flsh_GB"),
        (241, Raw48, None, "Lifetime_Wts_Frm_Hst_GB"),
        (242, Raw48, None, "Lifetime_Rds_Frm_Hst_GB"),
        (243, Hex56, None, "Free_Space"),
    ],
    // drivedb.h's entry says it is "written to Seagate documentation":
    // 231 SSD_Life_Left (normalized, percent left), Lifetime_Wts_Frm_Hst_GB,
    // Lifetime_Rds_Frm_Hst_GB, Lifetime_Wts_To_Flsh_GB, Unexpected_Pwr_Loss_Ct.
    meanings: &[
        m(231, M::LifeLeftPercent, S::Normalized, 1.0),
        m(241, M::HostWrittenBytes, S::Raw, GIB),
        m(242, M::HostReadBytes, S::Raw, GIB),
        m(233, M::NandWrittenBytes, S::Raw, GIB),
        m(174, M::UnsafeShutdowns, S::Raw, 1.0),
    ],
};
