//! The place labels and the PCIe families as a scrape shows them.

use std::sync::Arc;

use crate::device::discovery::Transport;
use crate::device::sysfs::pcie::{AerCounts, AerSeverity, Link, Pcie};
use crate::device::sysfs::place::Place;
use crate::metrics::{BuildInfo, Format, encode_string as encode};
use crate::poll::factory::placeholder;
use crate::reading::Reading;
use crate::snapshot::DriveSnapshot;

fn drive(place: Place, pcie: Option<Pcie>) -> Arc<DriveSnapshot> {
    let id = placeholder(Transport::Nvme, "M", "S1", "F");
    let mut s = DriveSnapshot::new("nvme0", "/dev/nvme0", id);
    s.polls = 1;
    s.place = Arc::new(place);
    s.reading = Some(Reading {
        pcie,
        ..Reading::default()
    });
    Arc::new(s)
}

fn lines(text: &str, family: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(family) && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn only_the_place_labels_sysfs_gave_are_served() {
    let place = Place {
        pci_address: "0000:01:00.0".into(),
        slot: "3".into(),
        path: "pci-0000:01:00.0-nvme-1".into(),
        ..Place::default()
    };
    let text = encode(
        vec![drive(place, None)],
        Vec::new(),
        &BuildInfo::default(),
        Format::Prometheus,
    );
    assert_eq!(
        lines(&text, "ssd_device_info"),
        [
            r#"ssd_device_info{device="nvme0",serial="S1",transport="nvme",kind="physical",model="M",firmware="F",wwn="",pci_address="0000:01:00.0",slot="3",path="pci-0000:01:00.0-nvme-1"} 1.0"#
        ]
    );
    let text = encode(
        vec![drive(Place::default(), None)],
        Vec::new(),
        &BuildInfo::default(),
        Format::Prometheus,
    );
    assert_eq!(
        lines(&text, "ssd_device_info"),
        [
            r#"ssd_device_info{device="nvme0",serial="S1",transport="nvme",kind="physical",model="M",firmware="F",wwn=""} 1.0"#
        ]
    );
    assert!(lines(&text, "ssd_pcie").is_empty());
}

#[test]
fn the_link_and_aer_totals() {
    let pcie = Pcie {
        link: Link {
            current_speed: Some(8_000_000_000),
            max_speed: Some(16_000_000_000),
            current_width: Some(2),
            max_width: Some(4),
            port_max_speed: None,
            port_max_width: None,
        },
        aer: vec![
            AerCounts {
                severity: AerSeverity::Correctable,
                total: 5,
                nonzero: Vec::new(),
            },
            AerCounts {
                severity: AerSeverity::Fatal,
                total: u64::MAX,
                nonzero: Vec::new(),
            },
        ],
    };
    let text = encode(
        vec![drive(Place::default(), Some(pcie))],
        Vec::new(),
        &BuildInfo::default(),
        Format::Prometheus,
    );
    assert_eq!(
        lines(&text, "ssd_pcie_link_speed_transfers_per_second"),
        [
            r#"ssd_pcie_link_speed_transfers_per_second{device="nvme0",serial="S1",link="current"} 8000000000.0"#,
            r#"ssd_pcie_link_speed_transfers_per_second{device="nvme0",serial="S1",link="max"} 16000000000.0"#,
        ]
    );
    assert_eq!(
        lines(&text, "ssd_pcie_link_width_lanes"),
        [
            r#"ssd_pcie_link_width_lanes{device="nvme0",serial="S1",link="current"} 2.0"#,
            r#"ssd_pcie_link_width_lanes{device="nvme0",serial="S1",link="max"} 4.0"#,
        ]
    );
    assert_eq!(
        lines(&text, "ssd_pcie_errors_total"),
        [
            r#"ssd_pcie_errors_total{device="nvme0",serial="S1",severity="correctable"} 5"#
                .to_string(),
            format!(
                r#"ssd_pcie_errors_total{{device="nvme0",serial="S1",severity="fatal"}} {}"#,
                u64::MAX
            ),
        ]
    );
}
