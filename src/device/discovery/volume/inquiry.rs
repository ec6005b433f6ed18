//! The INQUIRY vendor and product strings that mark a device that is not a
//! drive of its own, and what it is. One table, first match wins; each
//! block names where its strings come from. A string is matched after
//! trimming, ASCII case ignored ([`Text`]).
//!
//! The strings are the fallback where the host adapter and the transport do
//! not speak (a replayed dump, a controller whose driver
//! `volume::RAID_HOSTS` does not list, a LUN on an unknown transport):
//! every MegaRAID logical drive sits on channel 2 or above whatever its
//! INQUIRY says, and every FC or iSCSI LUN under a remote port or session.

use super::Kind::{self, Virtual, Volume};

/// How an INQUIRY string is matched (after trimming, ASCII case ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    Any,
    Is(&'static str),
    StartsWith(&'static str),
}

impl Text {
    pub fn matches(self, s: &str) -> bool {
        let s = s.trim();
        match self {
            Self::Any => true,
            Self::Is(t) => s.eq_ignore_ascii_case(t),
            Self::StartsWith(t) => s.get(..t.len()).is_some_and(|p| p.eq_ignore_ascii_case(t)),
        }
    }
}

/// One row: vendor, product, what such a device is, and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub vendor: Text,
    pub product: Text,
    pub kind: Kind,
    pub what: &'static str,
}

const fn row(vendor: Text, product: Text, kind: Kind, what: &'static str) -> Entry {
    Entry {
        vendor,
        product,
        kind,
        what,
    }
}

use Text::{Any, Is, StartsWith as Starts};

const RAID: &str = "a RAID controller's logical drive";
const HYPERVISOR: &str = "a hypervisor's virtual disk";
const ARRAY: &str = "a storage array's LUN";
const TARGET: &str = "a software storage target's LUN";

/// Every string, first match wins (an array's row before a broader RAID
/// row of the same vendor: LSI's `INF-01-00` is an Engenio array).
pub const INQUIRY: &[Entry] = &[
    // Storage arrays whose vendor also names RAID controllers, first:
    // multipath-tools `libmultipath/hwtable.c` (NetApp E-Series, ex LSI/Engenio).
    row(Is("LSI"), Is("INF-01-00"), Volume, ARRAY),
    row(Is("ENGENIO"), Is("INF-01-00"), Volume, ARRAY),
    // RAID logical drives. smartmontools `os_linux.cpp` (`autodetect_open`)
    // refuses these as disks: vendor "3ware", "AMCC", "MegaRAID", "LSI",
    // "DELL" with "PERC", product "PERC ".
    row(Starts("3ware"), Any, Virtual, RAID),
    row(Starts("AMCC"), Any, Virtual, RAID),
    row(Is("MegaRAID"), Any, Virtual, RAID),
    row(Any, Starts("PERC "), Virtual, RAID),
    row(Is("LSI"), Any, Virtual, RAID),
    // The Linux kernel's `drivers/scsi/scsi_devinfo.c`: MegaRAID "LD",
    // aacraid's Dell "PERCRAID" and Adaptec "AACRAID", HP "NetRAID-4M";
    // HPE Smart Array (`hpsa`, `smartpqi`: also Microsemi/Adaptec
    // SmartRAID) "LOGICAL VOLUME", as hwtable.c lists it too.
    row(Is("DELL"), Is("PERCRAID"), Virtual, RAID),
    row(Is("ADAPTEC"), Is("AACRAID"), Virtual, RAID),
    row(Is("HP"), Is("NetRAID-4M"), Virtual, RAID),
    row(Any, Is("LOGICAL VOLUME"), Virtual, RAID),
    // hwtable.c: IBM Power RAID (`ipr`) arrays.
    row(Is("IBM"), Starts("IPR"), Virtual, RAID),
    // MegaRAID 9xxx logical drives of the Avago and Broadcom firmware
    // ("AVAGO MR9361-8i", "BROADCOM MR9560-16i") and Intel's MegaRAID
    // builds ("Intel RMS3CC080", RS3DC080, …), named as the controllers'
    // model numbers; lsscsi shows them so on hosts with these cards.
    row(Is("AVAGO"), Starts("MR9"), Virtual, RAID),
    row(Is("BROADCOM"), Starts("MR9"), Virtual, RAID),
    row(Is("Intel"), Starts("RMS2"), Virtual, RAID),
    row(Is("Intel"), Starts("RMS3"), Virtual, RAID),
    row(Is("Intel"), Starts("RS2"), Virtual, RAID),
    row(Is("Intel"), Starts("RS3"), Virtual, RAID),
    // Hypervisors' virtual disks: QEMU's `scsi-hd` ("QEMU", "QEMU
    // HARDDISK"), VMware, Hyper-V ("Msft" "Virtual Disk"; scsi_devinfo's
    // "MSFT" "Virtual HD"), VirtualBox, PowerVM virtual SCSI (scsi_devinfo
    // and hwtable.c: "AIX" "VDASD"), Google Compute Engine's persistent
    // disks ("Google" "PersistentDisk", as the kernel logs them there).
    row(Is("QEMU"), Any, Virtual, HYPERVISOR),
    row(Starts("VMware"), Any, Virtual, HYPERVISOR),
    row(Is("Msft"), Is("Virtual Disk"), Virtual, HYPERVISOR),
    row(Is("Msft"), Is("Virtual HD"), Virtual, HYPERVISOR),
    row(Is("VBOX"), Any, Virtual, HYPERVISOR),
    row(Is("AIX"), Is("VDASD"), Virtual, HYPERVISOR),
    row(Is("Google"), Is("PersistentDisk"), Virtual, HYPERVISOR),
    // Storage arrays, as multipath-tools' hwtable.c (the arrays device-mapper
    // multipath knows) and the kernel's scsi_devinfo.c list them.
    // NetApp ONTAP ("LUN C-Mode", 7-Mode "LUN") and SolidFire.
    row(Is("NETAPP"), Starts("LUN"), Volume, ARRAY),
    row(Is("NETAPP"), Is("INF-01-00"), Volume, ARRAY),
    row(Is("SolidFir"), Is("SSD SAN"), Volume, ARRAY),
    // Dell EMC: Symmetrix/VMAX/PowerMax, CLARiiON/VNX/Unity ("DGC"),
    // VPLEX, XtremIO, Compellent, PowerVault MD3 and ME, PowerStore,
    // EqualLogic.
    row(Is("EMC"), Is("SYMMETRIX"), Volume, ARRAY),
    row(Is("EMC"), Is("Invista"), Volume, ARRAY),
    row(Starts("DGC"), Any, Volume, ARRAY),
    row(Is("XtremIO"), Is("XtremApp"), Volume, ARRAY),
    row(Is("COMPELNT"), Starts("Compellent"), Volume, ARRAY),
    row(Is("DELL"), Starts("MD3"), Volume, ARRAY),
    row(Is("DellEMC"), Is("PowerStore"), Volume, ARRAY),
    row(Is("DellEMC"), Starts("ME"), Volume, ARRAY),
    row(Is("EQLOGIC"), Is("100E-00"), Volume, ARRAY),
    // Pure Storage FlashArray.
    row(Is("PURE"), Is("FlashArray"), Volume, ARRAY),
    // HPE: 3PAR/Primera/Alletra 9000 ("3PARdata" "VV"), Nimble/Alletra
    // 5000/6000, MSA and P2000, EVA ("HSV…"), XP ("OPEN-…", Hitachi's),
    // StoreVirtual ("LEFTHAND").
    row(Is("3PARdata"), Is("VV"), Volume, ARRAY),
    row(Is("Nimble"), Is("Server"), Volume, ARRAY),
    row(Is("HP"), Starts("MSA"), Volume, ARRAY),
    row(Is("HPE"), Starts("MSA"), Volume, ARRAY),
    row(Is("COMPAQ"), Starts("MSA"), Volume, ARRAY),
    row(Is("HP"), Starts("P2000"), Volume, ARRAY),
    row(Is("HP"), Starts("HSV"), Volume, ARRAY),
    row(Is("COMPAQ"), Starts("HSV"), Volume, ARRAY),
    row(Is("HP"), Starts("OPEN-"), Volume, ARRAY),
    row(Is("HPE"), Starts("OPEN-"), Volume, ARRAY),
    row(Is("LEFTHAND"), Any, Volume, ARRAY),
    // Hitachi VSP/USP ("OPEN-…"), AMS/HUS ("DF…"), VSP One SDS.
    row(Is("HITACHI"), Starts("OPEN-"), Volume, ARRAY),
    row(Is("HITACHI"), Starts("DF"), Volume, ARRAY),
    row(Is("HITACHI"), Is("DISK-SUBSYSTEM"), Volume, ARRAY),
    row(Is("HITACHI"), Is("Hi-SDS"), Volume, ARRAY),
    // IBM: SVC/Storwize/FlashSystem ("2145", "2076"), DS8000 ("2107900"),
    // DS6000, ESS, the DS3000-5000 family, XIV, FlashSystem/RamSan.
    row(Is("IBM"), Is("2145"), Volume, ARRAY),
    row(Is("IBM"), Is("2076"), Volume, ARRAY),
    row(Is("IBM"), Starts("2107900"), Volume, ARRAY),
    row(Is("IBM"), Starts("1750500"), Volume, ARRAY),
    row(Is("IBM"), Starts("2105"), Volume, ARRAY),
    row(Is("IBM"), Starts("1722-600"), Volume, ARRAY),
    row(Is("IBM"), Starts("1724"), Volume, ARRAY),
    row(Is("IBM"), Starts("1726"), Volume, ARRAY),
    row(Is("IBM"), Starts("1742"), Volume, ARRAY),
    row(Is("IBM"), Starts("1746"), Volume, ARRAY),
    row(Is("IBM"), Starts("1813"), Volume, ARRAY),
    row(Is("IBM"), Starts("1814"), Volume, ARRAY),
    row(Is("IBM"), Starts("1815"), Volume, ARRAY),
    row(Is("IBM"), Starts("1818"), Volume, ARRAY),
    row(Is("IBM"), Is("2810XIV"), Volume, ARRAY),
    row(Is("XIV"), Is("NEXTRA"), Volume, ARRAY),
    row(Is("IBM"), Is("FlashSystem"), Volume, ARRAY),
    // Huawei OceanStor V3 and later ("XSG1"), and Dorado.
    row(Is("HUAWEI"), Is("XSG1"), Volume, ARRAY),
    row(Is("HUAWEI"), Starts("Dorado"), Volume, ARRAY),
    // Fujitsu ETERNUS DX and AB/HB.
    row(Is("FUJITSU"), Starts("ETERNUS_DX"), Volume, ARRAY),
    row(Is("FUJITSU"), Is("ETERNUS_AHB"), Volume, ARRAY),
    // Infinidat, Kaminario, Lenovo DE, NEC, DDN, Infortrend, Dot Hill,
    // Nexsan, Violin, Xiotech, Promise, Oracle/Sun ZFS Storage, DataCore,
    // Synology and QNAP iSCSI targets (scsi_devinfo.c).
    row(Is("NFINIDAT"), Is("InfiniBox"), Volume, ARRAY),
    row(Is("KMNRIO"), Is("K2"), Volume, ARRAY),
    row(Is("LENOVO"), Is("DE_Series"), Volume, ARRAY),
    row(Is("NEC"), Is("DISK ARRAY"), Volume, ARRAY),
    row(Is("NEC"), Is("iStorage"), Volume, ARRAY),
    row(Is("DDN"), Any, Volume, ARRAY),
    row(Starts("IFT"), Any, Volume, ARRAY),
    row(Is("DotHill"), Any, Volume, ARRAY),
    row(Is("NEXSAN"), Any, Volume, ARRAY),
    row(Is("VIOLIN"), Any, Volume, ARRAY),
    row(Is("XIOTECH"), Any, Volume, ARRAY),
    row(Is("Promise"), Starts("VTrak"), Volume, ARRAY),
    row(Is("SUN"), Starts("ZFS Storage"), Volume, ARRAY),
    row(Is("DataCore"), Any, Volume, ARRAY),
    row(Is("SYNOLOGY"), Is("iSCSI Storage"), Volume, ARRAY),
    row(Is("QNAP"), Is("iSCSI Storage"), Volume, ARRAY),
    // Software targets (hwtable.c): Linux LIO ("LIO-ORG", SUSE's "SUSE"),
    // SCST ("SCST_FIO", "SCST_BIO"), the iSCSI Enterprise Target ("IET").
    row(Is("LIO-ORG"), Any, Volume, TARGET),
    row(Is("SUSE"), Any, Volume, TARGET),
    row(Starts("SCST_"), Any, Volume, TARGET),
    row(Is("IET"), Any, Volume, TARGET),
];

/// The first row matching `vendor` and `product`.
pub fn lookup(vendor: &str, product: &str) -> Option<&'static Entry> {
    INQUIRY
        .iter()
        .find(|e| e.vendor.matches(vendor) && e.product.matches(product))
}
