//! hwmon temperatures as the nvme and drivetemp drivers write them.

use super::*;

/// `kelvin_to_millicelsius` of include/linux/units.h: K × 1000 − 273150.
fn kernel_millicelsius(kelvin: i64) -> i64 {
    kelvin * 1000 - 273_150
}

#[test]
fn nvme_values_come_back_to_kelvin_minus_273() {
    // QEMU's composite 323 K is 50 °C to the exporter (K - 273), which the
    // hwmon driver writes as 49850.
    assert_eq!(nvme_celsius(kernel_millicelsius(323)), 50.0);
    assert_eq!(nvme_celsius(kernel_millicelsius(373)), 100.0);
    assert_eq!(nvme_celsius(kernel_millicelsius(0)), -273.0);
    assert_eq!(nvme_celsius(49850), 50.0);
    // Not a whole Kelvin: taken as it is.
    assert_eq!(nvme_celsius(41500), 41.5);
}

#[test]
fn sensor_labels() {
    assert_eq!(sensor_name("Composite").as_deref(), Some("composite"));
    assert_eq!(sensor_name("Sensor 1\n").as_deref(), Some("1"));
    assert_eq!(sensor_name("Sensor 8").as_deref(), Some("8"));
    for l in ["Sensor 9", "Sensor 0", "sensor 1", "Tctl", ""] {
        assert_eq!(sensor_name(l), None, "{l}");
    }
}

fn chip(dir: &Path, name: &str, files: &[(&str, String)]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("name"), format!("{name}\n")).unwrap();
    for (f, t) in files {
        std::fs::write(dir.join(f), t).unwrap();
    }
}

#[test]
fn reads_an_nvme_controllers_chip_in_either_place() {
    let root = tempfile::tempdir().unwrap();
    let ctrl = root.path().join("nvme0");
    // Another chip first in name order, then the controller's.
    chip(&ctrl.join("device/hwmon/hwmon1"), "acpitz", &[]);
    let files = [
        ("temp1_input", format!("{}\n", kernel_millicelsius(323))),
        ("temp1_label", "Composite\n".into()),
        ("temp1_crit", format!("{}\n", kernel_millicelsius(373))),
        ("temp3_input", format!("{}\n", kernel_millicelsius(310))),
        ("temp3_label", "Sensor 2\n".into()),
    ];
    chip(&ctrl.join("device/hwmon/hwmon2"), "nvme", &files);
    let t = nvme(&ctrl).unwrap();
    assert_eq!(
        t.sensors,
        [("composite".to_string(), 50.0), ("2".to_string(), 37.0)]
    );
    assert_eq!(t.critical, Some(100.0));
    // The class layout (Linux 5.8 on), without CCTEMP.
    let other = root.path().join("nvme1");
    chip(&other.join("hwmon4"), "nvme", &files[..2]);
    let t = nvme(&other).unwrap();
    assert_eq!(t.sensors, [("composite".to_string(), 50.0)]);
    assert_eq!(t.critical, None);
    // No chip, or one without a composite reading: nothing.
    assert_eq!(nvme(&root.path().join("nvme2")), None);
    let bare = root.path().join("nvme3");
    chip(&bare.join("hwmon0"), "nvme", &files[3..]);
    assert_eq!(nvme(&bare), None);
}

#[test]
fn reads_drivetemp() {
    let root = tempfile::tempdir().unwrap();
    let block = root.path().join("sda");
    chip(
        &block.join("device/hwmon/hwmon7"),
        "drivetemp",
        &[
            ("temp1_input", "34000\n".into()),
            ("temp1_max", "60000\n".into()),
        ],
    );
    let t = drivetemp(&block).unwrap();
    assert_eq!(t.sensors, [("composite".to_string(), 34.0)]);
    assert_eq!(t.critical, None);
    assert_eq!(drivetemp(&root.path().join("sdb")), None);
}
