//! Whether a SCSI disk is a physical drive or not a drive of its own: a RAID
//! controller's logical drive or a hypervisor's virtual disk (`virtual`),
//! or a LUN of a storage array or target reached over a fabric or the
//! network (`volume`). Neither is an SSD the exporter can judge — its
//! temperature, wear and spare (if it reports any) are the controller's,
//! the host's or the array's, not a drive's — so it is watched for its
//! identity only (`kind` on `ssd_device_info`), its verdict says "not
//! judged", it is never self-tested, and never probed unless named in
//! `probe.device`.
//!
//! The one classification, [`classify`], from four kinds of evidence, the
//! first that speaks deciding:
//! 1. **The host adapter** (sysfs `scsi_host/hostN/proc_name`) of a RAID
//!    driver, and the SCSI channel its drivers reserve for logical drives
//!    ([`RAID_HOSTS`]); physical drives such a controller passes through
//!    (JBOD, HBA mode) sit on its other channels and stay physical.
//! 2. **The transport** in sysfs: a Fibre Channel remote port (`rport-H:B-R`,
//!    the FC transport class) or an iSCSI session (`sessionN`) in the
//!    disk's device path, or a device-mapper multipath map holding the disk
//!    (`holders/dm-N` whose `dm/uuid` begins `mpath-`, multipath-tools'
//!    prefix): a LUN. A map over a disk on the SAS transport is left to the
//!    other evidence: that is how a dual-ported SAS drive is reached over
//!    two HBAs, and it is still a drive.
//! 3. **VPD page 83h:** a target port designator (PIV set) whose protocol
//!    identifier is Fibre Channel (0), SRP (4) or iSCSI (5): a LUN behind a
//!    fabric's target port. (An ALUA target port group designator is no
//!    proof: dual-ported physical devices report one too; VPD B1h and B2h
//!    say nothing of it either — a rotation rate of 0 is "not reported" on
//!    older drives as on LUNs, and thin provisioning is an SSD's feature
//!    as much as an array's.)
//! 4. **The INQUIRY vendor and product** of logical drives, virtual disks
//!    and arrays' LUNs ([`inquiry::INQUIRY`]).
//!
//! Replayed dumps and the poller (which sees no sysfs) decide from 3 and 4.

mod inquiry;

pub use inquiry::{Entry, INQUIRY, Text};

/// Physical drive, virtual volume or remote LUN: the `kind` label of
/// `ssd_device_info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Kind {
    /// A drive: NVMe, SATA, SAS or another SCSI disk of its own.
    #[default]
    Physical,
    /// A RAID controller's logical drive or a hypervisor's virtual disk:
    /// the drives behind it are on this host's controller or on the
    /// hypervisor's host.
    Virtual,
    /// A LUN of a storage array or a software target, reached over Fibre
    /// Channel, iSCSI, SRP or a multipath map: the drives behind it are the
    /// array's, often shared with other hosts.
    Volume,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Self::Physical, Self::Virtual, Self::Volume];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Physical => "physical",
            Self::Virtual => "virtual",
            Self::Volume => "volume",
        }
    }

    /// A drive of its own, which the verdict judges, the probe reads and a
    /// scheduled self-test may be sent to.
    pub fn is_physical(self) -> bool {
        self == Self::Physical
    }

    /// Why the verdict does not judge a device of this kind, and where to
    /// look instead; `None` for a physical drive.
    pub fn not_judged_because(self) -> Option<&'static str> {
        match self {
            Self::Physical => None,
            Self::Virtual => Some(
                "a RAID controller's logical drive or a hypervisor's virtual disk, not a drive: \
                 judge the physical drives behind it (behind a MegaRAID controller: \
                 --discovery.megaraid; other controllers: their own tools; a virtual disk: \
                 on the hypervisor's host)",
            ),
            Self::Volume => Some(
                "a LUN of a storage array or target, not a drive: its drives are the array's; \
                 judge them with the array's own monitoring",
            ),
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

/// SPC-5 table "PROTOCOL IDENTIFIER values": the protocols of a target
/// port that is reached over a fabric or a network, not a drive's own
/// port: Fibre Channel (0), SCSI RDMA / SRP (4), iSCSI (5).
pub const REMOTE_PROTOCOLS: [(u8, &str); 3] =
    [(0x0, "Fibre Channel"), (0x4, "SRP"), (0x5, "iSCSI")];

/// What tells a virtual volume or a LUN from a physical drive; empty fields
/// are evidence not at hand (a replayed dump has no sysfs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VolumeFacts<'a> {
    /// sysfs `scsi_host/hostN/proc_name` of the disk's host adapter.
    pub proc_name: &'a str,
    /// The disk's SCSI channel (`H:C:T:L`).
    pub channel: Option<u32>,
    /// An iSCSI session (`sessionN`) in the disk's sysfs path.
    pub iscsi_session: bool,
    /// A Fibre Channel remote port (`rport-H:B-R`) in the disk's sysfs path.
    pub fc_remote_port: bool,
    /// The device-mapper multipath map holding the disk (`dm-3 (mpatha)`),
    /// empty when none does.
    pub multipath: &'a str,
    /// On the SAS transport (the SAS transport class in the device path).
    pub sas: bool,
    /// INQUIRY T10 vendor identification and product identification.
    pub vendor: &'a str,
    pub product: &'a str,
    /// PROTOCOL IDENTIFIERs of VPD 83h's target port designators (PIV set).
    pub port_protocols: &'a [u8],
}

/// Physical, virtual or a LUN, and for anything but a drive why (for the
/// log).
pub fn classify(f: &VolumeFacts) -> (Kind, Option<String>) {
    if let Some(why) = raid_host(f) {
        return (Kind::Virtual, Some(why));
    }
    if let Some(why) = remote_transport(f) {
        return (Kind::Volume, Some(why));
    }
    let remote = REMOTE_PROTOCOLS
        .iter()
        .find(|(p, _)| f.port_protocols.contains(p));
    if let Some((_, name)) = remote {
        return (
            Kind::Volume,
            Some(format!("a LUN behind a {name} target port (VPD 83h)")),
        );
    }
    if let Some(e) = inquiry::lookup(f.vendor, f.product) {
        let (v, p) = (f.vendor.trim(), f.product.trim());
        let why = format!("{} (INQUIRY vendor {v:?}, product {p:?})", e.what);
        return (e.kind, Some(why));
    }
    (Kind::Physical, None)
}

/// A logical drive by its RAID host adapter and channel.
fn raid_host(f: &VolumeFacts) -> Option<String> {
    let &(name, channels) = RAID_HOSTS.iter().find(|(name, _)| *name == f.proc_name)?;
    let logical = match (channels, f.channel) {
        (Channels::All, _) => true,
        (Channels::Only(list), Some(c)) => list.contains(&c),
        (Channels::From(first), Some(c)) => c >= first,
        (_, None) => false,
    };
    let on = f.channel.map_or(String::new(), |c| format!(" channel {c}"));
    logical.then(|| format!("a logical drive of a {name} RAID controller{on}"))
}

/// A LUN by the transport sysfs shows it on.
fn remote_transport(f: &VolumeFacts) -> Option<String> {
    if f.fc_remote_port {
        return Some("a LUN behind a Fibre Channel remote port".into());
    }
    if f.iscsi_session {
        return Some("a LUN of an iSCSI session".into());
    }
    // Over SAS, a multipath map is a dual-ported drive's two paths.
    (!f.multipath.is_empty() && !f.sas)
        .then(|| format!("a path of the device-mapper multipath map {}", f.multipath))
}

#[cfg(test)]
mod tests;
