//! NVMe completion status: the Linux admin-passthrough ioctl's positive
//! return value and the status field stored in Error Information log
//! entries, decoded to Status Code Type / Status Code with spec names.

use std::fmt;

use serde::Serialize;

/// A decoded NVMe completion status (NVMe Base spec, "Status Field").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct NvmeStatus {
    /// Status Code Type (status bits 10:8): 0 generic, 1 command specific,
    /// 2 media and data integrity, 3 path related, 7 vendor specific.
    pub sct: u8,
    /// Status Code (status bits 7:0), meaning depends on `sct`.
    pub sc: u8,
    /// More (status bit 13): more status information in the Error log.
    pub more: bool,
    /// Do Not Retry (status bit 14): the same command is expected to fail again.
    pub dnr: bool,
}

impl NvmeStatus {
    /// From the positive return value of `NVME_IOCTL_ADMIN_CMD`: SC bits 7:0,
    /// SCT 10:8, CRD 12:11, More 13, DNR 14 (the completion status without
    /// the phase tag).
    pub fn from_ioctl_result(result: u32) -> Self {
        Self {
            sc: (result & 0xFF) as u8,
            sct: ((result >> 8) & 0x7) as u8,
            more: result & (1 << 13) != 0,
            dnr: result & (1 << 14) != 0,
        }
    }

    /// From the 16-bit status field of an Error Information log entry
    /// (bytes 13:12): bit 0 is the phase tag, bits 15:1 the status, laid out
    /// as in [`from_ioctl_result`](Self::from_ioctl_result).
    pub fn from_completion_field(field: u16) -> Self {
        Self::from_ioctl_result(u32::from(field >> 1))
    }

    /// Successful Completion (SCT 0h, SC 0h).
    pub fn is_success(&self) -> bool {
        self.sct == 0 && self.sc == 0
    }

    /// The statuses a drive returns for a page or command it does not
    /// implement: Invalid Command Opcode, Invalid Field in Command, Invalid
    /// Namespace or Format (generic) and Invalid Log Page (command specific).
    pub fn is_unsupported(&self) -> bool {
        matches!(
            (self.sct, self.sc),
            (0, 0x01) | (0, 0x02) | (0, 0x0B) | (1, 0x09)
        )
    }

    /// The status name in NVMe Base specification wording.
    pub fn name(&self) -> &'static str {
        match self.sct {
            0 => generic_name(self.sc),
            1 => command_specific_name(self.sc),
            2 => media_name(self.sc),
            3 => "Path Related Status",
            7 => "Vendor Specific",
            _ => "Unknown Status",
        }
    }
}

impl fmt::Display for NvmeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (sct {:x}h, sc {:x}h)",
            self.name(),
            self.sct,
            self.sc
        )
    }
}

impl std::error::Error for NvmeStatus {}

fn generic_name(sc: u8) -> &'static str {
    match sc {
        0x00 => "Successful Completion",
        0x01 => "Invalid Command Opcode",
        0x02 => "Invalid Field in Command",
        0x03 => "Command ID Conflict",
        0x04 => "Data Transfer Error",
        0x05 => "Commands Aborted due to Power Loss Notification",
        0x06 => "Internal Error",
        0x07 => "Command Abort Requested",
        0x08 => "Command Aborted due to SQ Deletion",
        0x09 => "Command Aborted due to Failed Fused Command",
        0x0A => "Command Aborted due to Missing Fused Command",
        0x0B => "Invalid Namespace or Format",
        0x0C => "Command Sequence Error",
        0x0D => "Invalid SGL Segment Descriptor",
        0x0E => "Invalid Number of SGL Descriptors",
        0x0F => "Data SGL Length Invalid",
        0x10 => "Metadata SGL Length Invalid",
        0x11 => "SGL Descriptor Type Invalid",
        0x12 => "Invalid Use of Controller Memory Buffer",
        0x13 => "PRP Offset Invalid",
        0x14 => "Atomic Write Unit Exceeded",
        0x15 => "Operation Denied",
        0x16 => "SGL Offset Invalid",
        0x18 => "Host Identifier Inconsistent Format",
        0x19 => "Keep Alive Timer Expired",
        0x1A => "Keep Alive Timeout Invalid",
        0x1B => "Command Aborted due to Preempt and Abort",
        0x1C => "Sanitize Failed",
        0x1D => "Sanitize In Progress",
        0x1E => "SGL Data Block Granularity Invalid",
        0x1F => "Command Not Supported for Queue in CMB",
        0x20 => "Namespace is Write Protected",
        0x21 => "Command Interrupted",
        0x22 => "Transient Transport Error",
        0x80 => "LBA Out of Range",
        0x81 => "Capacity Exceeded",
        0x82 => "Namespace Not Ready",
        0x83 => "Reservation Conflict",
        0x84 => "Format In Progress",
        _ => "Unknown Generic Status",
    }
}

fn command_specific_name(sc: u8) -> &'static str {
    match sc {
        0x00 => "Completion Queue Invalid",
        0x01 => "Invalid Queue Identifier",
        0x02 => "Invalid Queue Size",
        0x03 => "Abort Command Limit Exceeded",
        0x05 => "Asynchronous Event Request Limit Exceeded",
        0x06 => "Invalid Firmware Slot",
        0x07 => "Invalid Firmware Image",
        0x08 => "Invalid Interrupt Vector",
        0x09 => "Invalid Log Page",
        0x0A => "Invalid Format",
        0x0B => "Firmware Activation Requires Conventional Reset",
        0x0C => "Invalid Queue Deletion",
        0x0D => "Feature Identifier Not Saveable",
        0x0E => "Feature Not Changeable",
        0x0F => "Feature Not Namespace Specific",
        0x10 => "Firmware Activation Requires NVM Subsystem Reset",
        0x11 => "Firmware Activation Requires Controller Level Reset",
        0x12 => "Firmware Activation Requires Maximum Time Violation",
        0x13 => "Firmware Activation Prohibited",
        0x14 => "Overlapping Range",
        0x15 => "Namespace Insufficient Capacity",
        0x16 => "Namespace Identifier Unavailable",
        0x18 => "Namespace Already Attached",
        0x19 => "Namespace Is Private",
        0x1A => "Namespace Not Attached",
        0x1B => "Thin Provisioning Not Supported",
        0x1C => "Controller List Invalid",
        0x1D => "Device Self-test In Progress",
        0x1E => "Boot Partition Write Prohibited",
        0x1F => "Invalid Controller Identifier",
        0x20 => "Invalid Secondary Controller State",
        0x21 => "Invalid Number of Controller Resources",
        0x22 => "Invalid Resource Identifier",
        0x23 => "Sanitize Prohibited While Persistent Memory Region is Enabled",
        0x24 => "ANA Group Identifier Invalid",
        0x25 => "ANA Attach Failed",
        _ => "Unknown Command Specific Status",
    }
}

fn media_name(sc: u8) -> &'static str {
    match sc {
        0x80 => "Write Fault",
        0x81 => "Unrecovered Read Error",
        0x82 => "End-to-end Guard Check Error",
        0x83 => "End-to-end Application Tag Check Error",
        0x84 => "End-to-end Reference Tag Check Error",
        0x85 => "Compare Failure",
        0x86 => "Access Denied",
        0x87 => "Deallocated or Unwritten Logical Block",
        _ => "Unknown Media and Data Integrity Error",
    }
}

#[cfg(test)]
mod tests;
