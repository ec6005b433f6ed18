//! The link and AER parsers on the text the kernel writes (the tables and
//! format strings of `drivers/pci/pcie/aer.c` and `pci_speed_string`).

use super::*;

/// `aer_dev_correctable` as `aer_stats_dev_attr` prints it: every named bit
/// of `aer_correctable_error_string` with its count, an unnamed bit only
/// when it counted (`dev_cor_errs_bit[N]`), then the total.
const CORRECTABLE: &str = "RxErr 3\nBadTLP 0\nBadDLLP 1\nRollover 0\nTimeout 0\n\
NonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\ndev_cor_errs_bit[1] 2\nTOTAL_ERR_COR 5\n";

/// `aer_dev_nonfatal` with the uncorrectable names of
/// `aer_uncorrectable_error_string`, a completion timeout counted twice.
const NONFATAL: &str = "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 2\n\
CmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 1\nACSViol 0\n\
UncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\n\
PoisonTLPBlocked 0\nTOTAL_ERR_NONFATAL 3\n";

#[test]
fn aer_tables_read_their_total_and_the_types_that_counted() {
    let c = parse_aer(CORRECTABLE, AerSeverity::Correctable).unwrap();
    assert_eq!(c.total, 5);
    assert_eq!(
        c.nonzero,
        [
            ("RxErr".to_string(), 3),
            ("BadDLLP".to_string(), 1),
            ("dev_cor_errs_bit[1]".to_string(), 2),
        ]
    );
    let n = parse_aer(NONFATAL, AerSeverity::Nonfatal).unwrap();
    assert_eq!(n.total, 3);
    assert_eq!(
        n.nonzero,
        [("CmpltTO".to_string(), 2), ("UnsupReq".to_string(), 1)]
    );
    let fatal = NONFATAL.replace("TOTAL_ERR_NONFATAL 3", "TOTAL_ERR_FATAL 0");
    let f = parse_aer(&fatal, AerSeverity::Fatal).unwrap();
    assert_eq!(f.total, 0);
}

#[test]
fn a_u64_count_is_kept_whole() {
    let text = format!("RxErr {}\nTOTAL_ERR_COR {}\n", u64::MAX, u64::MAX);
    let c = parse_aer(&text, AerSeverity::Correctable).unwrap();
    assert_eq!(c.total, u64::MAX);
    let over = format!("TOTAL_ERR_COR {}0\n", u64::MAX);
    assert!(parse_aer(&over, AerSeverity::Correctable).is_err());
}

#[test]
fn aer_text_the_kernel_does_not_write_is_an_error() {
    use AerSeverity::*;
    // The total of another file, no total, a line after it, a malformed line.
    for (text, sev) in [
        ("RxErr 0\nTOTAL_ERR_NONFATAL 0\n", Correctable),
        ("RxErr 0\n", Correctable),
        ("", Fatal),
        ("TOTAL_ERR_COR 1\nRxErr 0\n", Correctable),
        ("RxErr\nTOTAL_ERR_COR 0\n", Correctable),
        ("RxErr -1\nTOTAL_ERR_COR 0\n", Correctable),
        ("RxErr 1 2\nTOTAL_ERR_COR 0\n", Correctable),
        ("Rx Err 1\nTOTAL_ERR_COR 0\n", Correctable),
        ("\nTOTAL_ERR_COR 0\n", Correctable),
        ("TOTAL_ERR_COR 0x10\n", Correctable),
    ] {
        assert!(parse_aer(text, sev).is_err(), "{text:?} parsed");
    }
}

#[test]
fn link_speeds_in_both_kernel_spellings() {
    for (text, gts) in [
        ("2.5 GT/s PCIe", 2_500_000_000),
        ("5.0 GT/s PCIe", 5_000_000_000),
        ("8.0 GT/s PCIe", 8_000_000_000),
        ("16.0 GT/s PCIe", 16_000_000_000),
        ("32.0 GT/s PCIe", 32_000_000_000),
        ("64.0 GT/s PCIe\n", 64_000_000_000),
        // Before Linux 5.7.
        ("2.5 GT/s", 2_500_000_000),
        ("5 GT/s", 5_000_000_000),
        ("8 GT/s", 8_000_000_000),
        ("16 GT/s\n", 16_000_000_000),
    ] {
        assert_eq!(parse_speed(text), Some(gts), "{text:?}");
    }
    for text in [
        "Unknown",
        "Unknown speed",
        "",
        "8.0",
        "GT/s PCIe",
        "0 GT/s",
        "8.00 GT/s PCIe",
        "-8 GT/s",
        "8,0 GT/s",
        "99999 GT/s",
    ] {
        assert_eq!(parse_speed(text), None, "{text:?}");
    }
}

#[test]
fn link_widths() {
    assert_eq!(parse_width("4\n"), Some(4));
    assert_eq!(parse_width("16"), Some(16));
    assert_eq!(parse_width("x8"), Some(8));
    for text in ["0", "", "-1", "4 lanes", "65", "+4"] {
        assert_eq!(parse_width(text), None, "{text:?}");
    }
}

fn link(cur: (u64, u16), max: (u64, u16), port: Option<(u64, u16)>) -> Link {
    Link {
        current_speed: Some(cur.0 * 1_000_000_000),
        current_width: Some(cur.1),
        max_speed: Some(max.0 * 1_000_000_000),
        max_width: Some(max.1),
        port_max_speed: port.map(|p| p.0 * 1_000_000_000),
        port_max_width: port.map(|p| p.1),
    }
}

#[test]
fn a_link_is_degraded_below_what_both_ends_can_do() {
    // x4 drive trained x2; Gen4 drive at Gen3 on a Gen4 port.
    assert_eq!(
        link((16, 2), (16, 4), Some((16, 4))).degraded(),
        (false, true)
    );
    assert_eq!(
        link((8, 4), (16, 4), Some((16, 16))).degraded(),
        (true, false)
    );
    // A Gen4 drive in a Gen3 slot, an x4 drive in an x2 slot: as built.
    assert_eq!(
        link((8, 2), (16, 4), Some((8, 2))).degraded(),
        (false, false)
    );
    // Without the port's figures, against the drive's own.
    assert_eq!(link((8, 4), (16, 4), None).degraded(), (true, false));
    assert_eq!(link((16, 4), (16, 4), None).degraded(), (false, false));
    // A link that is down is not judged here.
    let mut down = link((16, 4), (16, 4), None);
    down.current_speed = None;
    down.current_width = None;
    assert_eq!(down.degraded(), (false, false));
}

#[test]
fn pci_addresses() {
    assert!(is_pci_address("0000:01:00.0"));
    assert!(is_pci_address("abcd:ef:1f.7"));
    for n in [
        "10000:e1:00.7",
        "pci0000:00",
        "0000:01:00",
        "0000:01:00.a",
        "0000-01:00.0",
        "",
    ] {
        assert!(!is_pci_address(n), "{n}");
    }
}

#[test]
fn reads_a_function_and_its_port() {
    let root = tempfile::tempdir().unwrap();
    let port = root.path().join("pci0000:00/0000:00:02.0");
    let dev = port.join("0000:01:00.0");
    std::fs::create_dir_all(&dev).unwrap();
    let w = |dir: &Path, f: &str, t: &str| std::fs::write(dir.join(f), t).unwrap();
    w(&dev, "current_link_speed", "8.0 GT/s PCIe\n");
    w(&dev, "max_link_speed", "16.0 GT/s PCIe\n");
    w(&dev, "current_link_width", "2\n");
    w(&dev, "max_link_width", "4\n");
    w(&port, "max_link_speed", "16.0 GT/s PCIe\n");
    w(&port, "max_link_width", "4\n");
    w(&dev, "aer_dev_correctable", CORRECTABLE);
    w(&dev, "aer_dev_nonfatal", NONFATAL);
    w(&dev, "aer_dev_fatal", "TOTAL_ERR_FATAL\n");
    let (pcie, errors) = read(&dev);
    assert_eq!(pcie.link, link((8, 2), (16, 4), Some((16, 4))));
    assert_eq!(pcie.link.degraded(), (true, true));
    let totals: Vec<_> = pcie.aer.iter().map(|a| (a.severity, a.total)).collect();
    assert_eq!(
        totals,
        [(AerSeverity::Correctable, 5), (AerSeverity::Nonfatal, 3)]
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].to_string().contains("aer_dev_fatal"));
    // A function on the root bus has no port folder above it.
    let (top, _) = read(&port);
    assert_eq!(top.link.port_max_speed, None);
    assert_eq!(top.link.max_speed, Some(16_000_000_000));
}
