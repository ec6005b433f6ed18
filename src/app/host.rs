//! The configuration checked against the host, at start and by
//! `--check-config`: everything that can be checked without polling a
//! drive. A replay folder must be a dump, a `probe.device` a block device,
//! and the write probe's directory must be on a drive whose probe runs.

use std::path::Path;

use crate::config::{Config, ConfigError};
use crate::device::replay::dump_kind;
use crate::probe::fleet::blocks_of;
use crate::probe::reader::ProbeTarget;
use crate::probe::writer;

fn invalid(key: &str, message: String) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        message,
    }
}

/// Checks `config` against the host; the first problem as a config error.
pub fn validate(config: &Config) -> Result<(), ConfigError> {
    // The drivedb.h that would be read must be a regular file within its
    // cap: a FIFO would hang the start, a 100 MB file cost gigabytes.
    if let Some(db) = config.drivedb.iter().find(|p| p.exists()) {
        crate::files::open(db, crate::ata::attributes::drivedb::FILE_LIMIT).map_err(|e| {
            invalid(
                "path.drivedb",
                format!(
                    "{}: {e} (or path.drivedb: none for the built-in names)",
                    db.display()
                ),
            )
        })?;
    }
    for dir in &config.replay {
        dump_kind(dir).map_err(|e| {
            invalid(
                "replay",
                format!("{e}; give a folder written by ssd_exporter dump"),
            )
        })?;
    }
    if !config.probe.enabled {
        return Ok(());
    }
    for dev in &config.probe.devices {
        let name = block_name(dev);
        ProbeTarget::from_sysfs(&config.sysfs, &config.dev, &name).map_err(|e| {
            invalid(
                "probe.device",
                format!("{dev:?} is not a block device this host has ({e})"),
            )
        })?;
    }
    if let Some(w) = &config.probe.write {
        let key = "probe.write.path";
        let dir = w.path.display();
        let disk = writer::disk_of(&w.path, &config.sysfs).map_err(|e| {
            invalid(
                key,
                format!("{dir}: {e}; use a directory on a filesystem of a monitored drive"),
            )
        })?;
        let probed = probed_blocks(config);
        if !probed.contains(&disk) {
            let probed = match probed.is_empty() {
                true => "none".to_string(),
                false => probed.join(", "),
            };
            return Err(invalid(
                key,
                format!(
                    "{dir} is on {disk}, which is not a monitored drive (probed: {probed}), so nothing would be written; use a directory on a filesystem of a monitored drive, or add --probe.device={disk}"
                ),
            ));
        }
    }
    Ok(())
}

/// `sdb`, `/dev/sdb` → `sdb`.
fn block_name(dev: &str) -> String {
    Path::new(dev)
        .file_name()
        .map_or(dev.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The block devices whose probes would run: every discovered drive's
/// (live drives only: replay folders and the demo have none) and the
/// `probe.device` ones.
fn probed_blocks(config: &Config) -> Vec<String> {
    let mut blocks: Vec<String> = config.probe.devices.iter().map(|d| block_name(d)).collect();
    if config.replay.is_empty() && !config.demo {
        // No probe goes to a disk behind a USB bridge: no bridge table
        // is needed to leave those out.
        for d in config.scan(&Default::default()) {
            if d.usb.is_none() {
                blocks.extend(blocks_of(&d.namespaces));
            }
        }
    }
    blocks.sort();
    blocks.dedup();
    blocks
}

#[cfg(test)]
mod tests;
