use super::*;
use crate::probe::fleet::OpView;
use crate::probe::op::IoCounts;

fn view(drive: &str, block: &str, p50: f64, p99: f64, samples: u64) -> ProbeView {
    ProbeView {
        drive: drive.into(),
        block: block.into(),
        ops: vec![OpView {
            op: ProbeOp::Read,
            buckets: Vec::new(),
            sum: 0.0,
            count: samples,
            native: Default::default(),
            ios: IoCounts::default(),
            quantiles: vec![("0.5", p50), ("0.9", p99 * 0.9), ("0.99", p99)],
            window_samples: samples,
        }],
        skipped: Vec::new(),
        busy_ratio: None,
        window: "10m".into(),
        restarts: 0,
    }
}

#[test]
fn a_probed_drive_shows_its_window_median_and_p99_and_its_datasheet_limit() {
    let probes = [
        view("nvme0", "nvme0n1", 80e-6, 150e-6, 3000),
        view("sda", "sda", 95e-6, 180e-6, 2900),
    ];
    // Kingston's DC600M datasheet: 99.999 % of 4 KiB QD1 reads within 200 µs.
    let row = of("sda", "KINGSTON SEDC600M960G", &probes).unwrap();
    assert_eq!(row.block, "sda");
    assert_eq!(row.p50_seconds, Some(95e-6));
    assert_eq!(row.p99_seconds, Some(180e-6));
    assert_eq!(row.samples, 2900);
    assert_eq!(
        row.qos,
        Some(QosRow {
            quantile: "0.99999".into(),
            seconds: 200e-6
        })
    );
    // A model without a datasheet limit, and a drive nothing probes.
    assert_eq!(of("nvme0", "Some NVMe", &probes).unwrap().qos, None);
    assert_eq!(of("sdb", "KINGSTON SEDC600M960G", &probes), None);
}

#[test]
fn an_empty_window_has_no_quantiles_yet() {
    let probes = [view("sda", "sda", f64::NAN, f64::NAN, 0)];
    let row = of("sda", "x", &probes).unwrap();
    assert_eq!((row.p50_seconds, row.p99_seconds), (None, None));
}

#[test]
fn of_several_namespaces_the_first_is_shown() {
    let probes = [
        view("nvme0", "nvme0n2", 1e-3, 2e-3, 10),
        view("nvme0", "nvme0n1", 80e-6, 150e-6, 10),
    ];
    assert_eq!(of("nvme0", "x", &probes).unwrap().block, "nvme0n1");
}

#[test]
fn durations_and_percentiles_read_as_people_write_them() {
    assert_eq!(duration(85e-6), "85 µs");
    assert_eq!(duration(8.5e-6), "8.5 µs");
    assert_eq!(duration(1.234e-3), "1.2 ms");
    assert_eq!(duration(0.25), "250 ms");
    assert_eq!(duration(3.4), "3.4 s");
    assert_eq!(percentile("0.99999"), "p99.999");
    assert_eq!(percentile("0.99"), "p99");
    assert_eq!(percentile("0.5"), "p50");
    assert_eq!(percentile("0.9999"), "p99.99");
}
