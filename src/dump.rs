//! `ssd_exporter dump`: writes what a live drive (NVMe, SATA, SAS or SCSI) answers as
//! a replay folder (`docs/dumps.md`), using the very poll that serving uses,
//! so a dump holds exactly the pages the exporter reads. Nothing is created
//! until the first page is read, and a dump that `--replay` would refuse
//! (its identifying page missing) is removed again.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use thiserror::Error;
use zerocopy::FromBytes;

use crate::device::discovery::{Kind, Transport, scsi_facts, scsi_kind, scsi_transport};
use crate::device::replay::{dump_kind, nvme_file_name};
use crate::device::scsi_live::ScsiLive;
use crate::device::{NvmeRequest, ScsiRequest, ScsiSource};
use crate::poll::{PollOutcome, factory, fallback};
use crate::scsi::layout::{DesignatorHeader, VpdHeader};
use crate::scsi::log_layout::{LogPageHeader, LogParamHeader, PortValueHeader, SasPhyDescriptor};

#[derive(Debug, Error)]
pub enum DumpError {
    #[error("{0}: not an NVMe controller (/dev/nvmeN) or SATA, SAS or SCSI disk (/dev/sdX)")]
    Unsupported(String),
    /// The page that makes a folder a dump of its transport was not read:
    /// nothing is left behind.
    #[error("{device}: no dump written, {why}")]
    Unreadable { device: String, why: String },
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
/// serial number is replaced by a fixed string and world-wide names are
/// zeroed.
pub fn dump(
    device: &Path,
    folder: &Path,
    timeout: Duration,
    redact: bool,
) -> Result<DumpReport, DumpError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| DumpError::Io { path, source }
    };
    let mut out = Output::new(folder);
    let mut report = DumpReport::default();
    let mut write_err = None;
    let mut write = |name: &str, bytes: Vec<u8>| {
        if write_err.is_some() {
            return;
        }
        match out.write(name, &bytes) {
            Ok(()) => report.files.push(name.to_string()),
            Err(e) => write_err = Some(e),
        }
    };
    let (source, outcome) = poll_into(device, timeout, redact, &mut write)?;
    let outcome_errors: Vec<String> = outcome
        .errors
        .iter()
        .map(|e| format!("{}: {}", e.source, e.message))
        .collect();
    if let Some(e) = write_err {
        out.undo();
        return Err(e);
    }
    let unreadable = match dump_kind(folder) {
        _ if report.files.is_empty() => Some("the drive answered no page".to_string()),
        Ok(_) => None,
        Err(e) => Some(e),
    };
    if let Some(why) = unreadable {
        let why = match outcome_errors.is_empty() {
            true => why,
            false => outcome_errors.join("; "),
        };
        let undone = out.undo();
        return Err(DumpError::Unreadable {
            device: device.display().to_string(),
            why: format!("{why}{undone}"),
        });
    }
    report.errors = outcome_errors;
    let meta_path = folder.join("meta.toml");
    write_new(&meta_path, meta_toml(&source, redact).as_bytes()).map_err(io(&meta_path))?;
    Ok(report)
}

/// Polls `device` once, handing every page to `write` (redacted if asked):
/// the device the pages came from (an NVMe controller for a namespace)
/// and the poll's outcome.
fn poll_into(
    device: &Path,
    timeout: Duration,
    redact: bool,
    write: &mut dyn FnMut(&str, Vec<u8>),
) -> Result<(PathBuf, PollOutcome), DumpError> {
    let is_sata = device
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("sd"));
    let sd = is_sata.then(|| sd_transport(device, timeout));
    let kind = sd.map_or(Kind::Physical, |(_, k)| k);
    let scsi = sd.map(|(t, _)| t).filter(|t| t.is_scsi());
    let scsi_dump = |transport: Transport, write: &mut dyn FnMut(&str, Vec<u8>)| {
        let mut poller = factory::dump::scsi(device, transport, kind, timeout);
        poller.poll_with(&mut |name, bytes| write(name, redacted_scsi(name, bytes, redact)))
    };
    if let Some(transport) = scsi {
        return Ok((device.to_path_buf(), scsi_dump(transport, write)));
    }
    if is_sata {
        let mut poller = factory::dump::sata(device, timeout);
        let mut outcome =
            poller.poll_with(&mut |name, bytes| write(name, redacted_ata(name, bytes, redact)));
        // as in serve (poll::fallback): a SAT layer with no ATA behind it
        if fallback::no_ata_behind(&outcome, false) {
            outcome = scsi_dump(Transport::Scsi, write);
        }
        return Ok((device.to_path_buf(), outcome));
    }
    let ctrl = controller_path(device, Path::new("/dev"))
        .ok_or_else(|| DumpError::Unsupported(device.display().to_string()))?;
    let mut poller = factory::dump::nvme(&ctrl, timeout);
    let outcome = poller.poll_with(&mut |req, bytes| {
        if let Some(name) = nvme_file_name(req) {
            let bytes = match redact {
                true => redacted(req, bytes),
                false => bytes.to_vec(),
            };
            write(&name, bytes);
        }
    });
    Ok((ctrl, outcome))
}

/// The dump folder as it is written: created with the first page, so a
/// drive that answers nothing leaves nothing behind; what it created can
/// be removed again.
struct Output {
    folder: PathBuf,
    /// Folders this dump created, outermost first.
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

impl Output {
    fn new(folder: &Path) -> Self {
        Self {
            folder: folder.to_path_buf(),
            dirs: Vec::new(),
            files: Vec::new(),
        }
    }

    fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), DumpError> {
        let io = |path: &Path| {
            let path = path.display().to_string();
            move |source| DumpError::Io { path, source }
        };
        if self.files.is_empty() && self.dirs.is_empty() {
            let mut missing: Vec<PathBuf> = self
                .folder
                .ancestors()
                .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
                .map(Path::to_path_buf)
                .collect();
            missing.reverse();
            std::fs::create_dir_all(&self.folder).map_err(io(&self.folder))?;
            self.dirs = missing;
        }
        let path = self.folder.join(name);
        write_new(&path, bytes).map_err(io(&path))?;
        self.files.push(path);
        Ok(())
    }

    /// Removes what this dump wrote; says so for the error message.
    fn undo(&mut self) -> &'static str {
        if self.files.is_empty() && self.dirs.is_empty() {
            return "; nothing was written";
        }
        for f in self.files.drain(..) {
            let _ = std::fs::remove_file(f);
        }
        for d in self.dirs.drain(..).rev() {
            let _ = std::fs::remove_dir(d);
        }
        "; what was written is removed"
    }
}

/// Writes `bytes` as a new file at `path`, never through a symlink or into
/// anything but a regular file: a dump folder may be shared (`/tmp`), and a
/// link planted there must not make a root-run dump overwrite its target.
/// A regular file left by an earlier dump is replaced; the new file is
/// created with `O_EXCL | O_NOFOLLOW`, so a link planted between the removal
/// and the creation fails the write instead of being followed.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => std::fs::remove_file(path)?,
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "exists and is not a regular file (a symlink?); remove it or dump into an empty folder",
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// How an `sd*` disk is driven and what it is: discovery's decisions on its
/// own INQUIRY and VPD 00h (asked now) and what sysfs says of it; a disk
/// that answers neither is tried as SATA, as before SCSI support.
fn sd_transport(device: &Path, timeout: Duration) -> (Transport, Kind) {
    let mut src = ScsiLive::new(device, timeout);
    let mut facts = device
        .file_name()
        .map(|n| scsi_facts(&Path::new("/sys/block").join(n)))
        .unwrap_or_default();
    facts.usb = false;
    match src.read(ScsiRequest::Inquiry) {
        Ok(inquiry) => facts.inquiry = Some(inquiry),
        Err(_) if facts.inquiry.is_none() => return (Transport::Sata, Kind::Physical),
        Err(_) => {}
    }
    if let Ok(list) = src.read(ScsiRequest::Vpd(0)) {
        facts.vpd_supported = Some(list);
    }
    let (kind, _) = scsi_kind(&facts);
    match scsi_transport(&facts).unwrap_or(Transport::Sata) {
        // As discovery drives it: a virtual volume or a LUN with SCSI
        // commands.
        Transport::Sata if !kind.is_physical() => (Transport::Scsi, kind),
        t => (t, kind),
    }
}

/// VPD 80h (the serial, bytes 4..) becomes `REDACTED`, space padded; the
/// designators of VPD 83h (bytes 4.. of each) and the SAS addresses of log
/// 18h (phy descriptor bytes 8..24) are zeroed. Lengths stay as they were.
fn redacted_scsi(name: &str, bytes: &[u8], redact: bool) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if !redact {
        return out;
    }
    match name {
        "vpd-80.bin" if out.len() > 4 => {
            let n = out.len() - 4;
            let text = format!("{:<n$}", "REDACTED");
            out[4..].copy_from_slice(&text.as_bytes()[..n]);
        }
        "vpd-83.bin" => zero_designators(&mut out),
        "log-18.bin" => zero_sas_addresses(&mut out),
        _ => {}
    }
    out
}

/// Every designator of a VPD 83h page, walked through the descriptor
/// headers; a last one cut short is zeroed as far as it goes.
fn zero_designators(page: &mut [u8]) {
    let mut rest = page.get_mut(size_of::<VpdHeader>()..).unwrap_or_default();
    while let Ok((h, tail)) = DesignatorHeader::mut_from_prefix(std::mem::take(&mut rest)) {
        let n = usize::from(h.designator_length).min(tail.len());
        let (designator, after) = tail.split_at_mut(n);
        designator.fill(0);
        rest = after;
    }
}

/// The SAS address and attached SAS address of every phy descriptor of log
/// 18h: each parameter's value is the port header, then the descriptors.
fn zero_sas_addresses(page: &mut [u8]) {
    let mut rest = page
        .get_mut(size_of::<LogPageHeader>()..)
        .unwrap_or_default();
    while let Ok((h, tail)) = LogParamHeader::mut_from_prefix(std::mem::take(&mut rest)) {
        let n = usize::from(h.parameter_length).min(tail.len());
        let (value, after) = tail.split_at_mut(n);
        rest = after;
        let mut phys = value
            .get_mut(size_of::<PortValueHeader>()..)
            .unwrap_or_default();
        while let Ok((d, more)) = SasPhyDescriptor::mut_from_prefix(std::mem::take(&mut phys)) {
            d.sas_address.set(0);
            d.attached_sas_address.set(0);
            let skip = d.stride() - size_of::<SasPhyDescriptor>();
            phys = more.get_mut(skip..).unwrap_or_default();
        }
    }
}

/// IDENTIFY DEVICE: serial words 10–19 (bytes 20..40), WWN words 108–111
/// (bytes 216..224); the checksum (word 255) is recomputed so the page
/// stays valid.
fn redacted_ata(name: &str, bytes: &[u8], redact: bool) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if redact && name == "identify.bin" && out.len() == 512 {
        // ATA strings are byte-swapped per word: "REDACTED" reads as "ERADTCDE".
        out[20..40].copy_from_slice(b"ERADTCDE            ");
        out[216..224].fill(0);
        if out[510] == 0xA5 {
            let sum = out[..511].iter().fold(0u8, |a, &b| a.wrapping_add(b));
            out[511] = sum.wrapping_neg();
        }
    }
    out
}

/// Serial: Identify Controller bytes 4..24, Persistent Event Log header
/// bytes 56..76. NGUID/EUI64: Identify Namespace bytes 104..128.
fn redacted(req: NvmeRequest, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    match req {
        NvmeRequest::IdentifyController if out.len() >= 24 => {
            out[4..24].copy_from_slice(b"REDACTED            ");
        }
        NvmeRequest::Log {
            lid: crate::nvme::LID_PERSISTENT_EVENT,
            ..
        } if out.len() >= 76 => out[56..76].copy_from_slice(b"REDACTED            "),
        NvmeRequest::IdentifyNamespace { .. } if out.len() >= 128 => out[104..128].fill(0),
        _ => {}
    }
    out
}

fn meta_toml(device: &Path, redact: bool) -> String {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let redacted = if redact {
        r#"["serial (id-ctrl bytes 4..24, persistent-event-log bytes 56..76, identify words 10-19, vpd-80 bytes 4..)", "nguid/eui64 (id-ns bytes 104..128)", "wwn (identify words 108-111, vpd-83 designators)", "sas addresses (log-18 phy descriptor bytes 8..24)"]"#
    } else {
        "[]"
    };
    format!(
        "source = \"live\"\ntool = \"ssd_exporter {}\"\ndevice = \"{}\"\nkernel = \"{}\"\ndate = \"{}\"\nredacted = {redacted}\n",
        env!("CARGO_PKG_VERSION"),
        device.display(),
        kernel.trim(),
        crate::timefmt::utc_millis(SystemTime::now()),
    )
}

#[cfg(test)]
mod tests;
