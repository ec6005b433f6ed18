//! Drives behind USB bridges, as protocol: which protocol a bridge speaks
//! (the device types of drivedb.h's USB section, [`DeviceType`]), the
//! `bridge` label of `ssd_device_info` ([`Bridge`]), and the pure frames
//! that carry NVMe admin commands in vendor SCSI commands ([`jmicron`],
//! [`asmedia`], [`realtek`]). SATA behind a bridge is ATA PASS-THROUGH,
//! (16) or (12): `crate::ata::passthrough`.
//!
//! Nothing here performs I/O or panics. Each frame is checked byte for byte
//! against what smartmontools' `scsinvme.cpp` and opensea-transport's
//! bridge helpers send; each module names its sources.
//!
//! A bridge carries only some commands: what its frame cannot express is
//! refused here ([`Refusal`]) instead of being sent with fields cut off,
//! and so is what a bridge is known to mishandle. The set the exporter
//! sends through any NVMe bridge is the one smartctl sends through it
//! (Identify Controller and Namespace, the error, SMART / Health and
//! self-test logs, [`smartctl_sends`]): a bridge's firmware has met those.

pub mod asmedia;
pub mod jmicron;
pub mod realtek;

use crate::sys::nvme::AdminCommand;

/// Admin opcode Get Log Page.
pub const OPC_GET_LOG_PAGE: u8 = 0x02;
/// Admin opcode Identify.
pub const OPC_IDENTIFY: u8 = 0x06;
/// Identify CNS 00h (namespace) and 01h (controller).
pub const CNS_NAMESPACE: u32 = 0x00;
pub const CNS_CONTROLLER: u32 = 0x01;
/// Log pages smartctl reads through a bridge: error information (01h),
/// SMART / Health (02h), device self-test (06h).
pub const BRIDGED_LOGS: [u8; 3] = [0x01, 0x02, 0x06];

/// The `bridge` label of `ssd_device_info`: what drivedb.h says the bridge
/// speaks, or that it does not know the bridge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bridge {
    /// SCSI / ATA Translation: ATA PASS-THROUGH (16) or (12).
    Sat,
    /// JMicron JMS58x, NVMe in ATA PASS-THROUGH (12)-shaped CDBs.
    Jmicron,
    /// ASMedia ASM236x, NVMe in vendor CDB E6h.
    Asmedia,
    /// Realtek RTL9210/9220, NVMe in vendor CDB E4h.
    Realtek,
    /// Older ATA bridges with protocols of their own, which the exporter
    /// does not speak (smartctl's `usbcypress`, `usbjmicron`,
    /// `usbprolific`, `usbsunplus`, `usbasm1352r`).
    UsbCypress,
    UsbJmicron,
    UsbProlific,
    UsbSunplus,
    UsbAsm1352r,
    /// drivedb.h lists the bridge with no device type: nothing works
    /// through it.
    Unsupported,
    /// drivedb.h does not know the bridge (or knows it ambiguously).
    Unknown,
}

impl Bridge {
    pub const ALL: [Bridge; 11] = [
        Self::Sat,
        Self::Jmicron,
        Self::Asmedia,
        Self::Realtek,
        Self::UsbCypress,
        Self::UsbJmicron,
        Self::UsbProlific,
        Self::UsbSunplus,
        Self::UsbAsm1352r,
        Self::Unsupported,
        Self::Unknown,
    ];

    pub fn as_label(self) -> &'static str {
        match self {
            Self::Sat => "sat",
            Self::Jmicron => "jmicron",
            Self::Asmedia => "asmedia",
            Self::Realtek => "realtek",
            Self::UsbCypress => "usbcypress",
            Self::UsbJmicron => "usbjmicron",
            Self::UsbProlific => "usbprolific",
            Self::UsbSunplus => "usbsunplus",
            Self::UsbAsm1352r => "usbasm1352r",
            Self::Unsupported => "unsupported",
            Self::Unknown => "unknown",
        }
    }

    /// The bridge a label names (a dump's `usb-bridge.txt`).
    pub fn from_label(label: &str) -> Option<Bridge> {
        Self::ALL.into_iter().find(|b| b.as_label() == label)
    }
}

/// The NVMe bridge families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NvmeBridge {
    Jmicron,
    Asmedia,
    Realtek,
}

impl NvmeBridge {
    pub fn bridge(self) -> Bridge {
        match self {
            Self::Jmicron => Bridge::Jmicron,
            Self::Asmedia => Bridge::Asmedia,
            Self::Realtek => Bridge::Realtek,
        }
    }

    /// Whether this family can carry `cmd` with `len` bytes of data in,
    /// and the exporter sends it: first the set smartctl sends through any
    /// bridge, then what the family's frame can express.
    pub fn carries(self, cmd: &AdminCommand, len: usize) -> Result<(), Refusal> {
        smartctl_sends(cmd)?;
        match self {
            Self::Jmicron => jmicron::carries(cmd, len),
            Self::Asmedia => asmedia::cdb(cmd, len).map(|_| ()),
            Self::Realtek => realtek::cdb(cmd, len).map(|_| ()),
        }
    }
}

/// ATA PASS-THROUGH length: (16) normally, (12) for bridges that take only
/// 12-byte CDBs (`sat,12`), where no 48-bit command fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CdbLen {
    Twelve,
    Sixteen,
}

/// What the exporter does with a bridge, from drivedb.h's device type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceType {
    /// ATA through SAT.
    Sat(CdbLen),
    /// NVMe through a family's frames; `or_sat` (`snt…/sat`): a bridge
    /// that also takes SATA drives, tried with SAT when Identify
    /// Controller fails or names no model (`nvme_or_sat_device`).
    Nvme { family: NvmeBridge, or_sat: bool },
    /// A bridge the exporter does not drive: nothing is sent to it.
    NotDriven(Bridge),
}

impl DeviceType {
    /// Reads a drivedb.h `-d` argument as smartmontools' `scsiata.cpp`
    /// (`get_scsi_passthrough_device`) and `scsinvme.cpp`
    /// (`get_snt_device`) accept it; an error for anything they refuse.
    pub fn parse(ty: &str) -> Result<DeviceType, String> {
        if ty.is_empty() {
            return Ok(Self::NotDriven(Bridge::Unsupported));
        }
        let bad = || format!("device type {ty:?} is not one smartctl accepts");
        if let Some(nvme) = ty.strip_prefix("snt") {
            let (nvme, or_sat) = match nvme.strip_suffix("/sat") {
                Some(n) => (n, true),
                None => (nvme, false),
            };
            let family = match nvme {
                "asmedia" => NvmeBridge::Asmedia,
                "realtek" => NvmeBridge::Realtek,
                // `sntjmicron,0xNSID`: the namespace smartctl addresses; the
                // exporter reads controller-wide pages, namespace 1 for its
                // identify, as through the other bridges.
                j if j == "jmicron" || jmicron_nsid(j).is_some() => NvmeBridge::Jmicron,
                _ => return Err(bad()),
            };
            return Ok(Self::Nvme { family, or_sat });
        }
        let (name, args) = ty.split_once(',').unwrap_or((ty, ""));
        Ok(match name {
            "sat" => Self::Sat(sat_length(args).ok_or_else(bad)?),
            "usbcypress" => Self::NotDriven(Bridge::UsbCypress),
            "usbjmicron" => Self::NotDriven(Bridge::UsbJmicron),
            "usbprolific" if args.is_empty() => Self::NotDriven(Bridge::UsbProlific),
            "usbsunplus" if args.is_empty() => Self::NotDriven(Bridge::UsbSunplus),
            "usbasm1352r" => Self::NotDriven(Bridge::UsbAsm1352r),
            _ => return Err(bad()),
        })
    }

    /// The `bridge` label.
    pub fn bridge(self) -> Bridge {
        match self {
            Self::Sat(_) => Bridge::Sat,
            Self::Nvme { family, .. } => family.bridge(),
            Self::NotDriven(b) => b,
        }
    }
}

/// `sat`'s arguments: `[auto][,]N` with N 0 (the default, 16), 12 or 16.
fn sat_length(args: &str) -> Option<CdbLen> {
    let n = args.strip_prefix("auto").unwrap_or(args);
    match n.strip_prefix(',').unwrap_or(n) {
        "" | "0" | "16" => Some(CdbLen::Sixteen),
        "12" => Some(CdbLen::Twelve),
        _ => None,
    }
}

/// `jmicron,0xN` → N.
fn jmicron_nsid(s: &str) -> Option<u32> {
    let hex = s.strip_prefix("jmicron,0x")?;
    u32::from_str_radix(hex, 16).ok()
}

/// Why a command is not sent through a bridge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// Only what smartctl sends through a bridge: Identify Controller,
/// Identify Namespace, and Get Log Page 01h, 02h or 06h.
pub fn smartctl_sends(cmd: &AdminCommand) -> Result<(), Refusal> {
    let ok = match cmd.opcode {
        OPC_IDENTIFY => matches!(cmd.cdw10, CNS_CONTROLLER | CNS_NAMESPACE),
        OPC_GET_LOG_PAGE => BRIDGED_LOGS.contains(&(cmd.cdw10 as u8)),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Refusal(
            "not sent through a USB bridge (only identify and the error, smart and self-test logs are, as smartctl sends them)".into(),
        ))
    }
}

/// A command dword that must be zero for a frame that cannot carry it.
fn zero(value: u32, what: &str) -> Result<(), Refusal> {
    if value == 0 {
        Ok(())
    } else {
        Err(Refusal(format!("the bridge's frame cannot carry {what}")))
    }
}

#[cfg(test)]
mod tests;
