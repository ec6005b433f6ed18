use super::*;

#[test]
fn device_types_as_drivedb_spells_them() {
    use CdbLen::*;
    use DeviceType as D;
    let nvme = |family, or_sat| D::Nvme { family, or_sat };
    for (ty, want) in [
        ("sat", D::Sat(Sixteen)),
        ("sat,12", D::Sat(Twelve)),
        ("sat,16", D::Sat(Sixteen)),
        ("sat,0", D::Sat(Sixteen)),
        ("sat,auto", D::Sat(Sixteen)),
        ("sat,auto,12", D::Sat(Twelve)),
        ("sntjmicron", nvme(NvmeBridge::Jmicron, false)),
        ("sntjmicron,0x1", nvme(NvmeBridge::Jmicron, false)),
        ("sntjmicron/sat", nvme(NvmeBridge::Jmicron, true)),
        ("sntasmedia", nvme(NvmeBridge::Asmedia, false)),
        ("sntasmedia/sat", nvme(NvmeBridge::Asmedia, true)),
        ("sntrealtek", nvme(NvmeBridge::Realtek, false)),
        ("", D::NotDriven(Bridge::Unsupported)),
        ("usbcypress", D::NotDriven(Bridge::UsbCypress)),
        ("usbjmicron,x", D::NotDriven(Bridge::UsbJmicron)),
        ("usbjmicron,p", D::NotDriven(Bridge::UsbJmicron)),
        ("usbprolific", D::NotDriven(Bridge::UsbProlific)),
        ("usbsunplus", D::NotDriven(Bridge::UsbSunplus)),
        ("usbasm1352r,0", D::NotDriven(Bridge::UsbAsm1352r)),
    ] {
        assert_eq!(DeviceType::parse(ty), Ok(want), "{ty:?}");
    }
    for bad in [
        "sat,13",
        "sntfoo",
        "sntjmicron,1",
        "scsi",
        "nvme",
        "sat,12,16",
    ] {
        assert!(DeviceType::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn bridge_labels_are_unique_and_read_back() {
    let mut labels: Vec<&str> = Bridge::ALL.iter().map(|b| b.as_label()).collect();
    for b in Bridge::ALL {
        assert_eq!(Bridge::from_label(b.as_label()), Some(b));
    }
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), Bridge::ALL.len());
    assert_eq!(Bridge::from_label("SAT"), None);
}

fn cmd(opcode: u8, nsid: u32, cdw10: u32) -> AdminCommand {
    AdminCommand {
        opcode,
        nsid,
        cdw10,
        cdw11: 0,
        cdw12: 0,
        cdw13: 0,
        cdw14: 0,
        cdw15: 0,
    }
}

#[test]
fn only_what_smartctl_sends_goes_through_a_bridge() {
    let all = [
        NvmeBridge::Jmicron,
        NvmeBridge::Asmedia,
        NvmeBridge::Realtek,
    ];
    for family in all {
        assert!(family.carries(&cmd(0x06, 0, 1), 4096).is_ok(), "{family:?}");
        assert!(family.carries(&cmd(0x06, 1, 0), 4096).is_ok());
        assert!(family.carries(&cmd(0x02, !0, 0x007F_0002), 512).is_ok());
        assert!(family.carries(&cmd(0x02, !0, 0x007F_0001), 512).is_ok());
        // OCP C0h, firmware slots, persistent event log, the UUID list, a
        // self-test: never, whatever the frame could carry.
        for (op, cdw10) in [
            (0x02, 0x007F_00C0),
            (0x02, 0x007F_0003),
            (0x02, 0x007F_000D),
        ] {
            assert!(family.carries(&cmd(op, !0, cdw10), 512).is_err());
        }
        assert!(family.carries(&cmd(0x06, 0, 0x17), 4096).is_err());
        assert!(family.carries(&cmd(0x14, !0, 1), 0).is_err());
    }
    // The self-test log: ASMedia carries it; JMicron hangs on it and
    // Realtek returns stale data past 512 bytes.
    let st = cmd(0x02, !0, 0x008C_0006);
    assert!(NvmeBridge::Asmedia.carries(&st, 564).is_ok());
    assert!(NvmeBridge::Jmicron.carries(&st, 564).is_err());
    assert!(NvmeBridge::Realtek.carries(&st, 564).is_err());
}
