//! Whether a SCSI disk is a physical drive or a virtual volume: a RAID
//! controller's logical drive, a hypervisor's virtual disk or a storage
//! target's LUN. A virtual volume is not an SSD the exporter can judge — its
//! temperature, wear and spare (if it reports any) are the controller's or
//! the host's, not a drive's — so it is watched for its identity only
//! (`kind="virtual"` on `ssd_device_info`), never judged, and never probed
//! unless named in `probe.device`.
//!
//! The one classification, [`classify`], from three kinds of evidence, the
//! first that speaks deciding:
//! 1. **The host adapter** (sysfs `scsi_host/hostN/proc_name`) of a RAID
//!    driver, and the SCSI channel its drivers reserve for logical drives
//!    ([`RAID_HOSTS`]); physical drives such a controller passes through
//!    (JBOD, HBA mode) sit on its other channels and stay physical. An iSCSI
//!    session in the device path (the iSCSI transport class's `sessionN`)
//!    is a target's LUN.
//! 2. **The INQUIRY vendor and product** a logical drive or virtual disk
//!    reports ([`VIRTUAL_INQUIRY`]).
//! 3. **VPD page 83h:** a target port designator whose protocol identifier
//!    is iSCSI (5).
//!
//! Replayed dumps and the poller (which sees no sysfs) decide from 2 and 3.

/// Physical drive or virtual volume: the `kind` label of `ssd_device_info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Kind {
    /// A drive: NVMe, SATA, SAS or another SCSI disk of its own.
    #[default]
    Physical,
    /// A RAID logical drive, a virtual disk or a storage target's LUN.
    Virtual,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Self::Physical, Self::Virtual];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Physical => "physical",
            Self::Virtual => "virtual",
        }
    }
}

/// Which disks of a RAID host adapter are the controller's logical drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channels {
    /// Every disk on the host (the controller exposes no physical drive).
    All,
    /// The disks on these SCSI channels (`H:C:T:L`'s C).
    Only(&'static [u32]),
    /// The disks on this channel and above.
    From(u32),
}

/// RAID drivers by `proc_name`, with the channels they put logical drives
/// on, as the Linux drivers define them:
/// - `megaraid_sas`: channels 0–1 are physical drives passed through
///   (`MEGASAS_MAX_PD_CHANNELS` 2), 2 and up logical drives
///   (`MEGASAS_IS_LOGICAL`);
/// - `mpt3sas`, `mpt2sas`, `mptsas`: integrated RAID volumes on channel 1
///   (`RAID_CHANNEL`, `MPTSAS_RAID_CHANNEL`); 0 SAS/SATA drives, 2 NVMe;
/// - `hpsa`: 1 RAID volumes, 2 external RAID volumes
///   (`HPSA_RAID_VOLUME_BUS`, `HPSA_EXTERNAL_RAID_VOLUME_BUS`); 0 physical
///   and HBA-mode drives;
/// - `smartpqi`: 1 RAID volumes, 3 external RAID volumes
///   (`PQI_RAID_VOLUME_BUS`, `PQI_EXTERNAL_RAID_VOLUME_BUS`); 0 physical, 2
///   HBA-mode drives;
/// - `aacraid`: channel 0 containers (`CONTAINER_CHANNEL`); 1 native
///   (physical) drives, 3 the enclosure;
/// - `3w-9xxx`, `3w-sas`, `3w-xxxx` (3ware/AMCC) and `arcmsr` (Areca):
///   every disk is a unit of the controller (smartmontools reaches their
///   drives only through the controller: `-d 3ware,N`, `-d areca,N`).
pub const RAID_HOSTS: [(&str, Channels); 11] = [
    ("megaraid_sas", Channels::From(2)),
    ("mpt3sas", Channels::Only(&[1])),
    ("mpt2sas", Channels::Only(&[1])),
    ("mptsas", Channels::Only(&[1])),
    ("hpsa", Channels::Only(&[1, 2])),
    ("smartpqi", Channels::Only(&[1, 3])),
    ("aacraid", Channels::Only(&[0])),
    ("3w-9xxx", Channels::All),
    ("3w-sas", Channels::All),
    ("3w-xxxx", Channels::All),
    ("arcmsr", Channels::All),
];

/// How an INQUIRY string is matched (after trimming, ASCII case ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    Any,
    Is(&'static str),
    StartsWith(&'static str),
}

impl Text {
    fn matches(self, s: &str) -> bool {
        let s = s.trim();
        match self {
            Self::Any => true,
            Self::Is(t) => s.eq_ignore_ascii_case(t),
            Self::StartsWith(t) => s.get(..t.len()).is_some_and(|p| p.eq_ignore_ascii_case(t)),
        }
    }
}

/// INQUIRY vendor and product of virtual volumes, and what they are:
/// - RAID logical drives as smartmontools recognises them before refusing
///   to drive them as disks (`os_linux.cpp`, `autodetect_open`: vendor
///   "3ware" or "AMCC", "MegaRAID", "LSI", product "PERC …"), and the
///   "LOGICAL VOLUME" HPE Smart Array (`hpsa`, `smartpqi`) logical drives
///   report;
/// - hypervisors' virtual disks: QEMU's `scsi-hd` (vendor "QEMU"), VMware
///   ("VMware"), Hyper-V ("Msft" "Virtual Disk"), VirtualBox ("VBOX");
/// - software targets' LUNs: Linux LIO ("LIO-ORG"), the iSCSI Enterprise
///   Target ("IET"), SCST ("SCST_FIO", "SCST_BIO").
pub const VIRTUAL_INQUIRY: [(Text, Text, &str); 13] = [
    (Text::StartsWith("3ware"), Text::Any, "a 3ware RAID unit"),
    (Text::StartsWith("AMCC"), Text::Any, "a 3ware RAID unit"),
    (Text::Is("MegaRAID"), Text::Any, "a MegaRAID logical drive"),
    (
        Text::Any,
        Text::StartsWith("PERC "),
        "a Dell PERC logical drive",
    ),
    (Text::Is("LSI"), Text::Any, "an LSI RAID volume"),
    (
        Text::Any,
        Text::Is("LOGICAL VOLUME"),
        "a Smart Array logical drive",
    ),
    (Text::Is("QEMU"), Text::Any, "a QEMU virtual disk"),
    (
        Text::StartsWith("VMware"),
        Text::Any,
        "a VMware virtual disk",
    ),
    (
        Text::Is("Msft"),
        Text::Is("Virtual Disk"),
        "a Hyper-V virtual disk",
    ),
    (Text::Is("VBOX"), Text::Any, "a VirtualBox virtual disk"),
    (Text::Is("LIO-ORG"), Text::Any, "a Linux LIO target's LUN"),
    (Text::Is("IET"), Text::Any, "an iSCSI Enterprise Target LUN"),
    (Text::StartsWith("SCST_"), Text::Any, "an SCST target's LUN"),
];

/// SPC-5 table "PROTOCOL IDENTIFIER values": 5 is iSCSI.
pub const PROTOCOL_ISCSI: u8 = 0x5;

/// What tells a virtual volume from a physical drive; empty fields are
/// evidence not at hand (a replayed dump has no sysfs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VolumeFacts<'a> {
    /// sysfs `scsi_host/hostN/proc_name` of the disk's host adapter.
    pub proc_name: &'a str,
    /// The disk's SCSI channel (`H:C:T:L`).
    pub channel: Option<u32>,
    /// An iSCSI session (`sessionN`) in the disk's sysfs path.
    pub iscsi_session: bool,
    /// INQUIRY T10 vendor identification and product identification.
    pub vendor: &'a str,
    pub product: &'a str,
    /// PROTOCOL IDENTIFIERs of VPD 83h's target port designators (PIV set).
    pub port_protocols: &'a [u8],
}

/// Physical or virtual, and for a virtual volume why (for the log).
pub fn classify(f: &VolumeFacts) -> (Kind, Option<String>) {
    let host = RAID_HOSTS.iter().find(|(name, _)| *name == f.proc_name);
    if let Some(&(name, channels)) = host {
        let logical = match (channels, f.channel) {
            (Channels::All, _) => true,
            (Channels::Only(list), Some(c)) => list.contains(&c),
            (Channels::From(first), Some(c)) => c >= first,
            (_, None) => false,
        };
        if logical {
            let on = f.channel.map_or(String::new(), |c| format!(" channel {c}"));
            return virtual_because(format!("a logical drive of a {name} RAID controller{on}"));
        }
    }
    if f.iscsi_session {
        return virtual_because("a LUN of an iSCSI session".into());
    }
    let inquiry = VIRTUAL_INQUIRY
        .iter()
        .find(|(vendor, product, _)| vendor.matches(f.vendor) && product.matches(f.product));
    if let Some((_, _, what)) = inquiry {
        let (v, p) = (f.vendor.trim(), f.product.trim());
        return virtual_because(format!("{what} (INQUIRY vendor {v:?}, product {p:?})"));
    }
    if f.port_protocols.contains(&PROTOCOL_ISCSI) {
        return virtual_because("a LUN behind an iSCSI target port (VPD 83h)".into());
    }
    (Kind::Physical, None)
}

fn virtual_because(why: String) -> (Kind, Option<String>) {
    (Kind::Virtual, Some(why))
}

#[cfg(test)]
mod tests;
