//! Sense data and the pass-through outcome: byte 0 is the SCSI status,
//! byte 1 bit 0 whether registers were asked for (CK_COND), the rest the
//! sense buffer. No panic; a success never carries error registers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssd_exporter::ata::sense::is_error;
use ssd_exporter::ata::{outcome, parse_sense};
use ssd_exporter::scsi::sense::{scsi_status_name, sense_key_name};

fuzz_target!(|data: &[u8]| {
    let [status, flags, sense @ ..] = data else {
        return;
    };
    let parsed = parse_sense(sense);
    let _ = (sense_key_name(parsed.key), scsi_status_name(*status));
    match outcome(*status, &parsed, flags & 1 != 0) {
        Ok(Some(regs)) => {
            assert!(!is_error(&regs));
            let _ = (regs.lba_low(), regs.lba_mid(), regs.lba_high());
        }
        Ok(None) => {}
        Err(e) => {
            assert!(!e.to_string().is_empty());
            let _ = e.is_unsupported();
        }
    }
});
