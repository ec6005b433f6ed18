//! Replay folders (`shared/reference/device-dumps.md`): a dump served as a
//! drive. Files are read again on every fetch, so a test can change a page
//! between two polls; a missing optional file means "not supported".

pub mod usb;

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::{AtaRead, AtaSource, FetchError, NvmeRequest, NvmeSource, ScsiRequest, ScsiSource};
use crate::ata::PowerMode;
use crate::ata::smart::SmartStatus;
use crate::nvme;

/// The largest page file a replay reads: far above any page a poll asks
/// for (the largest, a 256-entry NVMe error log, is 16 KiB), and small
/// enough that a page file that is really `/dev/zero` or a huge file costs
/// nothing but a counted error.
pub const MAX_PAGE_FILE: u64 = 1 << 20;

/// Reads `path` whole, refusing a file larger than [`MAX_PAGE_FILE`].
fn read_page_file(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_PAGE_FILE + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_PAGE_FILE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {MAX_PAGE_FILE} bytes, the most a page file may hold"),
        ));
    }
    Ok(bytes)
}

/// The dump file that holds `req`'s answer, or `None` if the format has none.
pub fn nvme_file_name(req: NvmeRequest) -> Option<String> {
    let name = match req {
        NvmeRequest::IdentifyController => "id-ctrl.bin",
        NvmeRequest::IdentifyNamespace { nsid } => return Some(format!("id-ns-{nsid}.bin")),
        NvmeRequest::UuidList | NvmeRequest::EnduranceGroupList => return None,
        NvmeRequest::Log { lid, lsi, .. } => match lid {
            nvme::LID_SMART => "smart-log.bin",
            nvme::LID_OCP_SMART => "ocp-smart-log.bin",
            nvme::LID_ERROR => "error-log.bin",
            nvme::LID_SELF_TEST => "self-test-log.bin",
            nvme::LID_FW_SLOT => "fw-slot-log.bin",
            nvme::LID_TELEMETRY_CTRL => "telemetry-ctrl-header.bin",
            nvme::LID_PERSISTENT_EVENT => "persistent-event-log.bin",
            nvme::LID_ENDURANCE_GROUP => return Some(format!("endurance-group-{lsi}.bin")),
            _ => return None,
        },
    };
    Some(name.to_string())
}

/// The bytes of a Persistent Event Log read out of the whole log (`log`,
/// as a dump holds it): `len` bytes from `offset`, fewer at its end. The
/// replay and the demo answer every read of the log this way; a release
/// (LSP 2) transfers nothing of it.
pub fn pel_window(log: &[u8], lsp: u8, offset: u64, len: usize) -> Vec<u8> {
    if lsp == nvme::PEL_RELEASE {
        return vec![0; len];
    }
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(log.len());
    let end = start.saturating_add(len).min(log.len());
    log[start..end].to_vec()
}

/// The transport a dump folder holds, from the files present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpKind {
    Nvme,
    Sata,
    /// `inquiry.bin` without `identify.bin`: a SAS or SCSI disk (which of
    /// the two follows from its pages).
    Scsi,
}

/// Which transport `dir` is a dump of, or an error naming what is missing.
pub fn dump_kind(dir: &Path) -> Result<DumpKind, String> {
    if dir.join("id-ctrl.bin").is_file() {
        Ok(DumpKind::Nvme)
    } else if dir.join("identify.bin").is_file() {
        Ok(DumpKind::Sata)
    } else if dir.join(scsi_file_name(ScsiRequest::Inquiry)).is_file() {
        Ok(DumpKind::Scsi)
    } else {
        Err(format!(
            "{}: not a device dump (needs id-ctrl.bin for NVMe, identify.bin for SATA or inquiry.bin for SAS/SCSI)",
            dir.display()
        ))
    }
}

/// The `device` label of a dump: its folder's base name.
pub fn device_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// An NVMe drive replayed from a dump folder.
#[derive(Debug, Clone)]
pub struct NvmeReplay {
    dir: PathBuf,
}

impl NvmeReplay {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }
}

impl NvmeSource for NvmeReplay {
    fn origin(&self) -> String {
        self.dir.display().to_string()
    }

    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        let Some(name) = nvme_file_name(req) else {
            return Err(FetchError::Unsupported(format!(
                "{req}: not part of a dump"
            )));
        };
        let path = self.dir.join(name);
        if let NvmeRequest::Log {
            lid: nvme::LID_PERSISTENT_EVENT,
            lsp: nvme::PEL_RELEASE,
            len,
            ..
        } = req
        {
            return Ok(vec![0; len]);
        }
        match read_page_file(&path) {
            Ok(bytes) => Ok(match req {
                NvmeRequest::Log {
                    lid: nvme::LID_PERSISTENT_EVENT,
                    lsp,
                    offset,
                    len,
                    ..
                } => pel_window(&bytes, lsp, offset, len),
                _ => bytes,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if req == NvmeRequest::IdentifyController {
                    Err(FetchError::Gone(format!("{}: {e}", path.display())))
                } else {
                    Err(FetchError::Unsupported(format!(
                        "{} absent",
                        path.display()
                    )))
                }
            }
            Err(e) => Err(FetchError::Failed(format!("{}: {e}", path.display()))),
        }
    }
}

/// The dump file that holds an ATA page.
pub fn sata_file_name(req: AtaRead) -> String {
    match req {
        AtaRead::Identify => "identify.bin".into(),
        AtaRead::SmartData => "smart-data.bin".into(),
        AtaRead::SmartThresholds => "smart-thresholds.bin".into(),
        AtaRead::SelfTestLog => "smart-self-test-log.bin".into(),
        AtaRead::ErrorLog => "smart-error-log.bin".into(),
        AtaRead::DevStat { page } => format!("devstat-{page:02x}.bin"),
    }
}

/// The dump file for SMART RETURN STATUS, holding `passed` or `failed`.
pub const SMART_STATUS_FILE: &str = "smart-status.txt";

/// A SATA drive replayed from a dump folder.
#[derive(Debug, Clone)]
pub struct SataReplay {
    dir: PathBuf,
}

impl SataReplay {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }

    fn file(&self, name: &str, required: bool) -> Result<Vec<u8>, FetchError> {
        let path = self.dir.join(name);
        match read_page_file(&path) {
            Ok(bytes) => Ok(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound && required => {
                Err(FetchError::Gone(format!("{}: {e}", path.display())))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(FetchError::Unsupported(format!(
                "{} absent",
                path.display()
            ))),
            Err(e) => Err(FetchError::Failed(format!("{}: {e}", path.display()))),
        }
    }
}

impl AtaSource for SataReplay {
    fn origin(&self) -> String {
        self.dir.display().to_string()
    }

    fn read(&mut self, req: AtaRead) -> Result<Vec<u8>, FetchError> {
        self.file(&sata_file_name(req), req == AtaRead::Identify)
    }

    fn smart_status(&mut self) -> Result<SmartStatus, FetchError> {
        let text = self.file(SMART_STATUS_FILE, false)?;
        match String::from_utf8_lossy(&text).trim() {
            "passed" => Ok(SmartStatus::Passed),
            "failed" => Ok(SmartStatus::Failed),
            other => Err(FetchError::Failed(format!(
                "{}: {other:?} is neither passed nor failed",
                self.dir.join(SMART_STATUS_FILE).display()
            ))),
        }
    }

    /// A dump does not record the power mode: a replayed drive is active.
    fn power_mode(&mut self) -> Result<PowerMode, FetchError> {
        Ok(PowerMode::ActiveOrIdle)
    }
}

/// The dump file that holds a SCSI answer (`device-dumps.md`, "SAS /
/// SCSI"): page numbers as two lower-case hex digits.
pub fn scsi_file_name(req: ScsiRequest) -> String {
    match req {
        ScsiRequest::Inquiry => "inquiry.bin".into(),
        ScsiRequest::Vpd(page) => format!("vpd-{page:02x}.bin"),
        ScsiRequest::ReadCapacity16 => "read-capacity-16.bin".into(),
        ScsiRequest::Log { page, subpage: 0 } => format!("log-{page:02x}.bin"),
        ScsiRequest::Log { page, subpage } => format!("log-{page:02x}-{subpage:02x}.bin"),
        ScsiRequest::GrownDefects10 => "defects.bin".into(),
        ScsiRequest::GrownDefects12 => "defects-12.bin".into(),
    }
}

/// A SAS or SCSI disk replayed from a dump folder; without `inquiry.bin`
/// the drive is gone, any other absent file is a page it does not have.
#[derive(Debug, Clone)]
pub struct ScsiReplay {
    dir: PathBuf,
}

impl ScsiReplay {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
        }
    }
}

impl ScsiSource for ScsiReplay {
    fn origin(&self) -> String {
        self.dir.display().to_string()
    }

    /// A file is checked as a live answer is ([`ScsiRequest::accept`]),
    /// the file's length standing for what the device transferred.
    fn read(&mut self, req: ScsiRequest) -> Result<Vec<u8>, FetchError> {
        let path = self.dir.join(scsi_file_name(req));
        match read_page_file(&path) {
            Ok(mut bytes) => {
                let (_, alloc) = req.cdb();
                let len = req
                    .accept(&bytes[..bytes.len().min(alloc)], alloc)
                    .map_err(|e| FetchError::Failed(format!("{}: {e}", path.display())))?;
                bytes.truncate(len);
                Ok(bytes)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && req == ScsiRequest::Inquiry => {
                Err(FetchError::Gone(format!("{}: {e}", path.display())))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(FetchError::Unsupported(format!(
                "{} absent",
                path.display()
            ))),
            Err(e) => Err(FetchError::Failed(format!("{}: {e}", path.display()))),
        }
    }
}

#[cfg(test)]
mod tests;
