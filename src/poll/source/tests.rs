use super::*;
use std::collections::HashSet;

#[test]
fn labels_are_unique_and_every_devstat_page_has_its_own() {
    let all: Vec<Source> = Source::NVME
        .iter()
        .chain(&Source::SATA)
        .chain(&Source::SCSI)
        .copied()
        .collect();
    let labels: HashSet<_> = all.iter().map(|s| s.as_label()).collect();
    // identify is shared by NVMe and SATA, poll by all three.
    assert_eq!(labels.len(), all.len() - 3);
    assert!(!labels.contains("ata_devstat_other"));
    assert!(!labels.contains("scsi_vpd_other") && !labels.contains("scsi_log_other"));
    for p in SCSI_LOG_PAGES {
        assert_eq!(Source::ScsiLog(p).as_label(), format!("scsi_log_{p:02x}"));
    }
    for p in SCSI_VPD_PAGES {
        assert_eq!(Source::ScsiVpd(p).as_label(), format!("scsi_vpd_{p:02x}"));
    }
    for p in DEVSTAT_PAGES {
        assert_eq!(
            Source::AtaDevstatPage(p).as_label(),
            format!("ata_devstat_{p:02x}")
        );
    }
}
