//! The evidence of each rule, one case at a time, against what the kernel
//! drivers and smartmontools say (see the tables' docs).

use super::*;

fn facts<'a>(
    proc_name: &'a str,
    channel: Option<u32>,
    vendor: &'a str,
    product: &'a str,
) -> VolumeFacts<'a> {
    VolumeFacts {
        proc_name,
        channel,
        vendor,
        product,
        ..VolumeFacts::default()
    }
}

fn kind(f: VolumeFacts) -> Kind {
    classify(&f).0
}

#[test]
fn raid_hosts_put_logical_drives_on_their_own_channels() {
    use Kind::{Physical, Virtual};
    // MegaRAID: a JBOD drive on channel 0 is the drive, channel 2 a
    // logical drive (QEMU's megasas puts its disks there).
    let k = |host, channel| kind(facts(host, Some(channel), "SEAGATE", "ST1200MM0009"));
    assert_eq!(k("megaraid_sas", 0), Physical);
    assert_eq!(k("megaraid_sas", 1), Physical);
    assert_eq!(k("megaraid_sas", 2), Virtual);
    assert_eq!(k("megaraid_sas", 3), Virtual);
    // mpt3sas: channel 0 drives, 1 IR volumes, 2 NVMe drives.
    assert_eq!(k("mpt3sas", 0), Physical);
    assert_eq!(k("mpt3sas", 1), Virtual);
    assert_eq!(k("mpt3sas", 2), Physical);
    assert_eq!(k("mptsas", 0), Physical);
    assert_eq!(k("mptsas", 1), Virtual);
    // hpsa / smartpqi: 0 physical; 1 (and 2 / 3) logical.
    assert_eq!(k("hpsa", 0), Physical);
    assert_eq!(k("hpsa", 2), Virtual);
    assert_eq!(k("smartpqi", 2), Physical);
    assert_eq!(k("smartpqi", 3), Virtual);
    // aacraid: containers on channel 0, native drives on 1.
    assert_eq!(k("aacraid", 0), Virtual);
    assert_eq!(k("aacraid", 1), Physical);
    // 3ware and Areca: every disk.
    assert_eq!(k("3w-9xxx", 0), Virtual);
    assert_eq!(
        kind(facts("arcmsr", None, "Areca", "ARC-1880-VOL#00")),
        Virtual
    );
    // A plain HBA, or no channel known for a channel rule.
    assert_eq!(k("ahci", 0), Physical);
    assert_eq!(kind(facts("megaraid_sas", None, "X", "Y")), Physical);
    let (_, why) = classify(&facts("megaraid_sas", Some(2), "X", "Y"));
    assert_eq!(
        why.unwrap(),
        "a logical drive of a megaraid_sas RAID controller channel 2"
    );
}

#[test]
fn inquiry_strings_name_virtual_disks() {
    use Kind::{Physical, Virtual};
    let v = |vendor, product| kind(facts("", None, vendor, product));
    assert_eq!(v("QEMU", "QEMU HARDDISK"), Virtual);
    assert_eq!(v("VMware", "Virtual disk"), Virtual);
    assert_eq!(v("VMware,", "VMware Virtual S"), Virtual);
    assert_eq!(v("Msft", "Virtual Disk"), Virtual);
    assert_eq!(v("HP", "LOGICAL VOLUME"), Virtual);
    assert_eq!(v("HPE", "logical volume"), Virtual);
    assert_eq!(v("DELL", "PERC H730 Mini"), Virtual);
    assert_eq!(v("LSI", "Logical Volume"), Virtual);
    assert_eq!(v("AMCC", "9650SE-8LPML DISK"), Virtual);
    // Drives, and near misses: a Microsoft product that is not a virtual
    // disk, a vendor that only begins like a listed one.
    assert_eq!(v("SEAGATE", "XS1920SE70004"), Physical);
    assert_eq!(v("Msft", "Storage Space"), Physical);
    assert_eq!(v("QEMUX", "QEMU HARDDISK"), Physical);
    assert_eq!(v("DELL", "PERCY"), Physical);
    let (k, why) = classify(&facts("", None, "QEMU", "QEMU SCSI TEST"));
    assert_eq!(k, Virtual);
    assert_eq!(
        why.unwrap(),
        "a hypervisor's virtual disk (INQUIRY vendor \"QEMU\", product \"QEMU SCSI TEST\")"
    );
    assert_eq!(
        Kind::ALL.map(Kind::as_label),
        ["physical", "virtual", "volume"]
    );
}

/// Issue 37 part 2: the logical drives of the common RAID controllers and
/// the hypervisors' disks, as their INQUIRY strings read (the sources are
/// in `inquiry.rs`): Broadcom/LSI MegaRAID under the Avago and Broadcom
/// firmware, Dell PERC, Intel RAID, HPE Smart Array, Adaptec, IBM Power
/// RAID; Hyper-V, PowerVM, Google Compute Engine.
#[test]
fn the_common_controllers_logical_drives_are_virtual() {
    for (vendor, product) in [
        ("AVAGO", "MR9361-8i"),
        ("BROADCOM", "MR9560-16i"),
        ("MegaRAID", "LD"),
        ("DELL", "PERC H730P Mini"),
        ("DELL", "PERCRAID"),
        ("Intel", "RMS3CC080"),
        ("Intel", "RS3DC080"),
        ("HP", "LOGICAL VOLUME"),
        ("COMPAQ", "LOGICAL VOLUME"),
        ("ADAPTEC", "AACRAID"),
        ("IBM", "IPR-0   5EC10000"),
        ("MSFT", "Virtual HD"),
        ("AIX", "VDASD"),
        ("Google", "PersistentDisk"),
    ] {
        let (k, why) = classify(&facts("", None, vendor, product));
        assert_eq!(k, Kind::Virtual, "{vendor} {product}: {why:?}");
    }
    // An Intel SSD behind a SAT layer reports "ATA"; an Intel product that
    // is no RAID module stays a drive.
    assert_eq!(
        kind(facts("", None, "Intel", "SSDSC2KB960G8")),
        Kind::Physical
    );
}

/// Issue 33 part 3: a SAN LUN by its INQUIRY strings, for the arrays the
/// issue names (NetApp, EMC/Dell, Pure, HPE 3PAR and Nimble, Hitachi, IBM,
/// Huawei) and the software targets, as multipath-tools' hwtable.c lists
/// them; the disks such vendors also sell are drives.
#[test]
fn arrays_luns_are_volumes_by_their_inquiry_strings() {
    for (vendor, product) in [
        ("NETAPP", "LUN C-Mode"),
        ("NETAPP", "LUN"),
        ("NETAPP", "INF-01-00"),
        ("LSI", "INF-01-00"),
        ("EMC", "SYMMETRIX"),
        ("DGC", "VRAID"),
        ("DellEMC", "PowerStore"),
        ("DELL", "MD32xx"),
        ("COMPELNT", "Compellent Vol"),
        ("PURE", "FlashArray"),
        ("3PARdata", "VV"),
        ("Nimble", "Server"),
        ("HPE", "MSA 2050 SAN"),
        ("HP", "OPEN-V"),
        ("HITACHI", "OPEN-V"),
        ("HITACHI", "DF600F"),
        ("IBM", "2145"),
        ("IBM", "2107900"),
        ("IBM", "1818      FAStT"),
        ("HUAWEI", "XSG1"),
        ("FUJITSU", "ETERNUS_DXM"),
        ("NFINIDAT", "InfiniBox"),
        ("LIO-ORG", "disk0"),
        ("SCST_BIO", "vg1"),
        ("IET", "VIRTUAL-DISK"),
    ] {
        let (k, why) = classify(&facts("", None, vendor, product));
        assert_eq!(k, Kind::Volume, "{vendor} {product}: {why:?}");
    }
    let v = |vendor, product| kind(facts("", None, vendor, product));
    assert_eq!(v("HITACHI", "HUS156060VLS600"), Kind::Physical);
    assert_eq!(v("HGST", "HUSMM1680ASS204"), Kind::Physical);
    assert_eq!(v("FUJITSU", "MBA3300RC"), Kind::Physical);
    assert_eq!(v("IBM-ESXS", "ST9146803SS"), Kind::Physical);
    assert_eq!(v("NETAPP", "X447_S1633800AMD"), Kind::Physical);
    let (_, why) = classify(&facts("", None, "NETAPP", "LUN C-Mode"));
    assert_eq!(
        why.unwrap(),
        "a storage array's LUN (INQUIRY vendor \"NETAPP\", product \"LUN C-Mode\")"
    );
}

/// Issue 33 part 3: the transport first (FC remote port, iSCSI session,
/// a multipath map unless over SAS), then VPD 83h's target port protocol,
/// then the strings; a RAID host's logical drive before all.
#[test]
fn the_transport_then_vpd_83_then_the_strings_decide() {
    use Kind::{Physical, Virtual, Volume};
    let drive = facts("mpt3sas", Some(0), "SEAGATE", "XS1920SE70004");
    let with = |f: VolumeFacts<'static>| classify(&f);
    let fc = VolumeFacts {
        fc_remote_port: true,
        ..drive
    };
    assert_eq!(with(fc).0, Volume);
    let session = VolumeFacts {
        iscsi_session: true,
        ..facts("iscsi_tcp", Some(0), "NETAPP", "LUN C-Mode")
    };
    assert_eq!(with(session).1.unwrap(), "a LUN of an iSCSI session");
    let mpath = VolumeFacts {
        multipath: "dm-3 (mpatha)",
        ..drive
    };
    assert_eq!(with(mpath).0, Volume);
    // A dual-ported SAS drive reached over two paths stays a drive; a SAS
    // array's LUN is still known by its strings.
    let dual = VolumeFacts { sas: true, ..mpath };
    assert_eq!(with(dual), (Physical, None));
    let md = VolumeFacts {
        vendor: "DELL",
        product: "MD32xx",
        ..dual
    };
    assert_eq!(with(md).0, Volume);
    for (protocol, name) in [(0u8, "Fibre Channel"), (4, "SRP"), (5, "iSCSI")] {
        let protocols: &'static [u8] = Box::leak(Box::new([6, protocol]));
        let (k, why) = with(VolumeFacts {
            port_protocols: protocols,
            ..drive
        });
        assert_eq!(k, Volume);
        assert_eq!(
            why.unwrap(),
            format!("a LUN behind a {name} target port (VPD 83h)")
        );
    }
    // A SAS target port (protocol 6) says nothing of the kind.
    let sas = VolumeFacts {
        port_protocols: &[6],
        ..drive
    };
    assert_eq!(with(sas), (Physical, None));
    // A MegaRAID logical drive behind an FC-looking path is the
    // controller's first.
    let logical = VolumeFacts {
        fc_remote_port: true,
        ..facts("megaraid_sas", Some(2), "AVAGO", "MR9361-8i")
    };
    assert_eq!(with(logical).0, Virtual);
}
