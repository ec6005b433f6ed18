//! A dump of a drive behind a USB bridge: `usb-bridge.txt` holds the
//! `bridge` label (`sat`, `jmicron`, `asmedia`, `realtek`) beside the
//! pages the drive answered through it. Replayed, the drive is served
//! with `bus="usb"` and that bridge, and an NVMe drive's pages go through
//! the same refusals as live ([`crate::usb::NvmeBridge::carries`]): a page
//! the bridge does not carry is unsupported even where the dump holds it.

use std::path::{Path, PathBuf};

use super::{FetchError, NvmeReplay, read_page_file};
use crate::device::nvme_live::command_for;
use crate::device::sysfs::place::{Bus, Place};
use crate::device::{NvmeRequest, NvmeSource};
use crate::usb::{Bridge, NvmeBridge};

/// The file naming the bridge.
pub const BRIDGE_FILE: &str = "usb-bridge.txt";

/// The bridge `dir`'s dump was read through; `None` when it has no
/// `usb-bridge.txt` (not behind a bridge).
pub fn bridge(dir: &Path) -> Result<Option<Bridge>, String> {
    let path = dir.join(BRIDGE_FILE);
    let bytes = match read_page_file(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let label = String::from_utf8_lossy(&bytes).trim().to_string();
    Bridge::from_label(&label).map(Some).ok_or_else(|| {
        let known: Vec<&str> = Bridge::ALL.iter().map(|b| b.as_label()).collect();
        format!(
            "{}: {label:?} is not a bridge (one of {})",
            path.display(),
            known.join(", ")
        )
    })
}

/// The place labels of a replayed drive: `bus` and `bridge` when the dump
/// names a bridge, else none.
pub fn place(dir: &Path) -> Place {
    match bridge(dir) {
        Ok(Some(b)) => Place {
            bus: Some(Bus::Usb),
            bridge: Some(b),
            ..Place::default()
        },
        _ => Place::default(),
    }
}

/// The NVMe family of a bridge label.
pub fn nvme_family(b: Bridge) -> Option<NvmeBridge> {
    [
        NvmeBridge::Jmicron,
        NvmeBridge::Asmedia,
        NvmeBridge::Realtek,
    ]
    .into_iter()
    .find(|f| f.bridge() == b)
}

/// An NVMe dump read through a bridge of `family`.
#[derive(Debug, Clone)]
pub struct BridgedReplay {
    dir: PathBuf,
    inner: NvmeReplay,
    family: NvmeBridge,
}

impl BridgedReplay {
    pub fn new(dir: &Path, family: NvmeBridge) -> Self {
        Self {
            dir: dir.to_path_buf(),
            inner: NvmeReplay::new(dir),
            family,
        }
    }
}

impl NvmeSource for BridgedReplay {
    fn origin(&self) -> String {
        self.dir.display().to_string()
    }

    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        let (cmd, len) = command_for(req);
        self.family.carries(&cmd, len).map_err(|why| {
            FetchError::Unsupported(format!("{req} through the {:?} bridge: {why}", self.family))
        })?;
        self.inner.fetch(req)
    }
}

#[cfg(test)]
mod tests;
