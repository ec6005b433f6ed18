//! `ssd_exporter dump`: writes what a live drive answers as a replay folder
//! (`shared/reference/device-dumps.md`), using the very poll that serving
//! uses, so a dump holds exactly the pages the exporter reads.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use thiserror::Error;

use super::NvmeRequest;
use super::nvme_live::NvmeLive;
use super::replay::nvme_file_name;
use crate::poll::nvme::{NvmePoller, PollPolicy};

#[derive(Debug, Error)]
pub enum DumpError {
    #[error("{0}: only NVMe controllers (/dev/nvmeN) can be dumped so far")]
    Unsupported(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// What a dump wrote and what failed.
#[derive(Debug, Default)]
pub struct DumpReport {
    pub files: Vec<String>,
    pub errors: Vec<String>,
}

/// `/dev/nvme0n1`, `nvme0n1` or `nvme0` → `/dev/nvme0` (admin commands go to
/// the controller).
pub fn controller_path(device: &Path, dev: &Path) -> Option<PathBuf> {
    let name = device.file_name()?.to_str()?;
    let rest = name.strip_prefix("nvme")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    let ctrl = format!("nvme{digits}");
    let parent = device.parent().filter(|p| !p.as_os_str().is_empty());
    Some(parent.unwrap_or(dev).join(ctrl))
}

/// Dumps `device` into `folder` (created if needed). With `redact`, the
/// serial number is replaced by a fixed string and namespace identifiers
/// are zeroed.
pub fn dump(
    device: &Path,
    folder: &Path,
    timeout: Duration,
    redact: bool,
) -> Result<DumpReport, DumpError> {
    let ctrl = controller_path(device, Path::new("/dev"))
        .ok_or_else(|| DumpError::Unsupported(device.display().to_string()))?;
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| DumpError::Io { path, source }
    };
    std::fs::create_dir_all(folder).map_err(io(folder))?;
    let mut poller = NvmePoller::new(
        Box::new(NvmeLive::new(&ctrl, timeout)),
        PollPolicy::EVERY_PAGE,
    );
    let mut report = DumpReport::default();
    let mut write_err = None;
    let outcome = poller.poll_with(&mut |req, bytes| {
        let Some(name) = nvme_file_name(req) else {
            return;
        };
        let bytes = if redact {
            redacted(req, bytes)
        } else {
            bytes.to_vec()
        };
        let path = folder.join(&name);
        match std::fs::write(&path, bytes) {
            Ok(()) => report.files.push(name),
            Err(e) => {
                write_err = Some(DumpError::Io {
                    path: path.display().to_string(),
                    source: e,
                })
            }
        }
    });
    if let Some(e) = write_err {
        return Err(e);
    }
    report.errors = outcome
        .errors
        .iter()
        .map(|e| format!("{}: {}", e.source, e.message))
        .collect();
    let meta = meta_toml(&ctrl, redact);
    let meta_path = folder.join("meta.toml");
    std::fs::write(&meta_path, meta).map_err(io(&meta_path))?;
    Ok(report)
}

/// Serial: Identify Controller bytes 4..24. NGUID/EUI64: Identify
/// Namespace bytes 104..128.
fn redacted(req: NvmeRequest, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    match req {
        NvmeRequest::IdentifyController if out.len() >= 24 => {
            out[4..24].copy_from_slice(b"REDACTED            ");
        }
        NvmeRequest::IdentifyNamespace { .. } if out.len() >= 128 => out[104..128].fill(0),
        _ => {}
    }
    out
}

fn meta_toml(ctrl: &Path, redact: bool) -> String {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let redacted = if redact {
        r#"["serial (id-ctrl bytes 4..24)", "nguid/eui64 (id-ns bytes 104..128)"]"#
    } else {
        "[]"
    };
    format!(
        "source = \"live\"\ntool = \"ssd_exporter {}\"\ndevice = \"{}\"\nkernel = \"{}\"\ndate = \"{}\"\nredacted = {redacted}\n",
        env!("CARGO_PKG_VERSION"),
        ctrl.display(),
        kernel.trim(),
        crate::logging::rfc3339(SystemTime::now()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_and_bare_names_map_to_the_controller() {
        let dev = Path::new("/dev");
        assert_eq!(
            controller_path(Path::new("/dev/nvme0n1"), dev),
            Some("/dev/nvme0".into())
        );
        assert_eq!(
            controller_path(Path::new("/dev/nvme12"), dev),
            Some("/dev/nvme12".into())
        );
        assert_eq!(
            controller_path(Path::new("nvme3n2"), dev),
            Some("/dev/nvme3".into())
        );
        assert_eq!(controller_path(Path::new("/dev/sda"), dev), None);
        assert_eq!(controller_path(Path::new("/dev/nvme-fabrics"), dev), None);
    }

    #[test]
    fn redaction_replaces_the_serial_only() {
        let mut id = vec![b'x'; 4096];
        id[4..24].copy_from_slice(b"S4EVNX0N123456      ");
        let out = redacted(NvmeRequest::IdentifyController, &id);
        assert_eq!(&out[4..24], b"REDACTED            ");
        assert_eq!(&out[..4], b"xxxx");
        assert_eq!(&out[24..], &id[24..]);
    }
}
