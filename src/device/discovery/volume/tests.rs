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
fn inquiry_strings_and_vpd_name_virtual_disks() {
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
    assert_eq!(v("LIO-ORG", "disk0"), Virtual);
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
        "a QEMU virtual disk (INQUIRY vendor \"QEMU\", product \"QEMU SCSI TEST\")"
    );
    let iscsi = VolumeFacts {
        port_protocols: &[PROTOCOL_ISCSI],
        ..facts("", None, "NETAPP", "LUN C-Mode")
    };
    assert_eq!(kind(iscsi), Virtual);
    let session = VolumeFacts {
        iscsi_session: true,
        ..facts("iscsi_tcp", Some(0), "NETAPP", "LUN C-Mode")
    };
    assert_eq!(classify(&session).1.unwrap(), "a LUN of an iSCSI session");
    // A SAS target port (protocol 6) says nothing of the kind.
    let sas = VolumeFacts {
        port_protocols: &[6],
        ..facts("mpt3sas", Some(0), "SEAGATE", "XS1920SE70004")
    };
    assert_eq!(classify(&sas), (Physical, None));
    assert_eq!(Kind::ALL.map(Kind::as_label), ["physical", "virtual"]);
}
