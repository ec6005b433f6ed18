//! Temperatures from the kernel's hwmon drivers, readable by anyone: what
//! the exporter serves of a drive it may not open (no CAP_SYS_ADMIN or
//! CAP_SYS_RAWIO). Reading them makes the kernel ask the drive (a SMART log
//! read for NVMe, an SCT or SMART command for SATA), so the pollers read
//! them only in that case, on the poll's own thread and deadline.
//!
//! - NVMe (`drivers/nvme/host/hwmon.c`): a chip named `nvme` under the
//!   controller (`/sys/class/nvme/nvmeN/hwmonM`; under its PCI function,
//!   `device/hwmon/hwmonM`, before Linux 5.8). `temp1` is labelled
//!   `Composite`, `temp2`…`temp9` `Sensor 1`…`Sensor 8` (present only where
//!   the drive implements the sensor); `tempN_input` is
//!   `kelvin_to_millicelsius(K)` = K × 1000 − 273150, and `temp1_crit` is the
//!   controller's CCTEMP the same way. [`nvme_celsius`] undoes that to the
//!   exporter's own conversion (K − 273), so the value equals what the
//!   SMART log gives with privileges.
//! - SATA (`drivers/hwmon/drivetemp.c`, when the module is loaded): a chip
//!   named `drivetemp` under the SCSI device (`/sys/block/sdX/device/
//!   hwmon/hwmonM`), `temp1_input` in m°C. Its limits come from SCT
//!   and are not the Device Statistics limit the exporter serves, so only
//!   the temperature is taken.

use std::path::{Path, PathBuf};

use super::{attr, name_of};

/// What a drive's hwmon chip reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Temps {
    /// `(sensor, °C)`: `composite`, then `1`…`8`, as the unified reading
    /// names them.
    pub sensors: Vec<(String, f64)>,
    /// The critical composite threshold (NVMe CCTEMP), °C.
    pub critical: Option<f64>,
}

/// The unified reading's sensor name for an hwmon label: `Composite` →
/// `composite`, `Sensor 3` → `3`.
pub fn sensor_name(label: &str) -> Option<String> {
    match label.trim() {
        "Composite" => Some("composite".into()),
        l => {
            let n: u8 = l.strip_prefix("Sensor ")?.parse().ok()?;
            (1..=8).contains(&n).then(|| n.to_string())
        }
    }
}

/// An NVMe hwmon value (m°C) in °C as the exporter converts the drive's
/// Kelvin (K − 273): the kernel wrote K × 1000 − 273150, so a value that is
/// that for a whole K is taken back to it; anything else is m°C / 1000.
pub fn nvme_celsius(millicelsius: i64) -> f64 {
    let milli_kelvin = millicelsius + 273_150;
    if milli_kelvin % 1000 == 0 {
        (milli_kelvin / 1000 - 273) as f64
    } else {
        millicelsius as f64 / 1000.0
    }
}

/// The hwmon chip named `chip` among `dir/hwmon*` (the class layout) and
/// `dir/hwmon/hwmon*` (a device's), sorted by name.
pub fn find_chip(dirs: &[PathBuf], chip: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        for parent in [dir.clone(), dir.join("hwmon")] {
            let Ok(entries) = std::fs::read_dir(&parent) else {
                continue;
            };
            found.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| name_of(p).is_some_and(|n| n.starts_with("hwmon") && n != "hwmon")),
            );
        }
    }
    found.sort();
    found
        .into_iter()
        .find(|p| attr(p, "name").as_deref() == Some(chip))
}

/// A millidegree attribute (`temp1_input`).
fn milli(dir: &Path, name: &str) -> Option<i64> {
    attr(dir, name)?.parse().ok()
}

/// The temperatures of the NVMe controller whose class folder is `ctrl`
/// (`None` without an `nvme` hwmon chip or a composite reading).
pub fn nvme(ctrl: &Path) -> Option<Temps> {
    let chip = find_chip(&[ctrl.to_path_buf(), ctrl.join("device")], "nvme")?;
    let mut sensors = Vec::new();
    for n in 1..=9 {
        let (Some(v), Some(label)) = (
            milli(&chip, &format!("temp{n}_input")),
            attr(&chip, &format!("temp{n}_label")),
        ) else {
            continue;
        };
        if let Some(name) = sensor_name(&label) {
            sensors.push((name, nvme_celsius(v)));
        }
    }
    sensors
        .iter()
        .any(|(s, _)| s == "composite")
        .then(|| Temps {
            sensors,
            critical: milli(&chip, "temp1_crit").map(nvme_celsius),
        })
}

/// The temperature drivetemp reports for the SCSI disk at `block` (`None`
/// without the module's chip).
pub fn drivetemp(block: &Path) -> Option<Temps> {
    let chip = find_chip(&[block.join("device")], "drivetemp")?;
    let v = milli(&chip, "temp1_input")?;
    Some(Temps {
        sensors: vec![("composite".into(), v as f64 / 1000.0)],
        critical: None,
    })
}

#[cfg(test)]
mod tests;
