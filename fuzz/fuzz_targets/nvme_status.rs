//! NVMe status decoding: every 32-bit ioctl result and 16-bit completion
//! field has a name, and the two forms agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::nvme::NvmeStatus;

fuzz_target!(|data: &[u8]| {
    let mut word = [0u8; 4];
    let n = data.len().min(4);
    word[..n].copy_from_slice(&data[..n]);
    let result = u32::from_le_bytes(word);
    let s = NvmeStatus::from_ioctl_result(result);
    assert!(!s.name().is_empty());
    let _ = (s.is_success(), s.is_unsupported());
    let field = result as u16;
    assert_eq!(
        NvmeStatus::from_completion_field(field),
        NvmeStatus::from_ioctl_result(u32::from(field >> 1))
    );
});
