//! `ssd_exporter dump`: writes what a live drive (NVMe, SATA, SAS or SCSI) answers as
//! a replay folder (`shared/reference/device-dumps.md`), using the very poll
//! that serving uses, so a dump holds exactly the pages the exporter reads.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use thiserror::Error;
use zerocopy::FromBytes;

use crate::device::discovery::{Transport, scsi_facts, scsi_transport};
use crate::device::replay::nvme_file_name;
use crate::device::scsi_live::ScsiLive;
use crate::device::{NvmeRequest, ScsiRequest, ScsiSource};
use crate::poll::{PollOutcome, factory, fallback};
use crate::scsi::layout::{DesignatorHeader, VpdHeader};
use crate::scsi::log_layout::{LogPageHeader, LogParamHeader, PortValueHeader, SasPhyDescriptor};

#[derive(Debug, Error)]
pub enum DumpError {
    #[error("{0}: not an NVMe controller (/dev/nvmeN) or SATA, SAS or SCSI disk (/dev/sdX)")]
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
    std::fs::create_dir_all(folder).map_err(io(folder))?;
    let mut report = DumpReport::default();
    let mut write_err = None;
    let mut write = |name: &str, bytes: Vec<u8>| {
        let path = folder.join(name);
        match write_new(&path, &bytes) {
            Ok(()) => report.files.push(name.to_string()),
            Err(e) => {
                write_err = Some(DumpError::Io {
                    path: path.display().to_string(),
                    source: e,
                })
            }
        }
    };
    let is_sata = device
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("sd"));
    let scsi = is_sata
        .then(|| sd_transport(device, timeout))
        .filter(|t| t.is_scsi());
    let scsi_dump = |transport: Transport, write: &mut dyn FnMut(&str, Vec<u8>)| {
        let mut poller = factory::dump::scsi(device, transport, timeout);
        poller.poll_with(&mut |name, bytes| write(name, redacted_scsi(name, bytes, redact)))
    };
    let (source, outcome) = if let Some(transport) = scsi {
        let outcome: PollOutcome = scsi_dump(transport, &mut write);
        (device.to_path_buf(), outcome)
    } else if is_sata {
        let mut poller = factory::dump::sata(device, timeout);
        let mut outcome =
            poller.poll_with(&mut |name, bytes| write(name, redacted_ata(name, bytes, redact)));
        // as in serve (poll::fallback): a SAT layer with no ATA behind it
        if fallback::no_ata_behind(&outcome, false) {
            outcome = scsi_dump(Transport::Scsi, &mut write);
        }
        (device.to_path_buf(), outcome)
    } else {
        let ctrl = controller_path(device, Path::new("/dev"))
            .ok_or_else(|| DumpError::Unsupported(device.display().to_string()))?;
        let mut poller = factory::dump::nvme(&ctrl, timeout);
        let outcome = poller.poll_with(&mut |req, bytes| {
            if let Some(name) = nvme_file_name(req) {
                write(
                    &name,
                    if redact {
                        redacted(req, bytes)
                    } else {
                        bytes.to_vec()
                    },
                );
            }
        });
        (ctrl, outcome)
    };
    if let Some(e) = write_err {
        return Err(e);
    }
    report.errors = outcome
        .errors
        .iter()
        .map(|e| format!("{}: {}", e.source, e.message))
        .collect();
    let meta_path = folder.join("meta.toml");
    write_new(&meta_path, meta_toml(&source, redact).as_bytes()).map_err(io(&meta_path))?;
    Ok(report)
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

/// How an `sd*` disk is driven: discovery's decision on its own INQUIRY
/// and VPD 00h (asked now) and what sysfs says of it; a disk that answers
/// neither is tried as SATA, as before SCSI support.
fn sd_transport(device: &Path, timeout: Duration) -> Transport {
    let mut src = ScsiLive::new(device, timeout);
    let mut facts = device
        .file_name()
        .map(|n| scsi_facts(&Path::new("/sys/block").join(n)))
        .unwrap_or_default();
    facts.usb = false;
    match src.read(ScsiRequest::Inquiry) {
        Ok(inquiry) => facts.inquiry = Some(inquiry),
        Err(_) if facts.inquiry.is_none() => return Transport::Sata,
        Err(_) => {}
    }
    if let Ok(list) = src.read(ScsiRequest::Vpd(0)) {
        facts.vpd_supported = Some(list);
    }
    scsi_transport(&facts).unwrap_or(Transport::Sata)
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
