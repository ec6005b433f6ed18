//! What an informational exception (log page 2Fh's ASC and ASCQ, SPC-5
//! 7.3.14, or the same codes in sense data) means. SPC-5 assigns two
//! additional sense codes to informational exceptions: 5Dh, FAILURE
//! PREDICTION THRESHOLD EXCEEDED (the drive predicts its own failure), and
//! 0Bh, WARNING (temperature exceeded, background self-test failed, …).
//! ASCQ FFh of 5Dh, FAILURE PREDICTION THRESHOLD EXCEEDED (FALSE), is the
//! answer the TEST bit of the Informational Exceptions Control mode page
//! makes a drive give: a test of the reporting, not a prediction. Any other
//! ASC is not an informational exception (smartmontools' `scsiGetIEString`
//! names only 0Bh and 5Dh, and reports "OK" for the rest).
//!
//! The names are SPC-5's (annex "Additional sense codes"), lower case.

use super::log::InformationalException;

/// What the exception says about the drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// ASC 00h: no exception.
    None,
    /// ASC 5Dh, ASCQ other than FFh: the drive predicts its failure.
    FailurePredicted,
    /// ASC 5Dh / ASCQ FFh: the TEST bit's false report.
    Test,
    /// ASC 0Bh: a warning.
    Warning,
    /// Any other ASC: not an informational exception.
    Other,
}

/// ASC 0Bh, WARNING.
pub const ASC_WARNING: u8 = 0x0B;
/// ASC 5Dh, FAILURE PREDICTION THRESHOLD EXCEEDED.
pub const ASC_FAILURE_PREDICTION: u8 = 0x5D;
/// ASCQ FFh of 5Dh: FAILURE PREDICTION THRESHOLD EXCEEDED (FALSE).
pub const ASCQ_FALSE: u8 = 0xFF;

impl InformationalException {
    pub fn condition(&self) -> Condition {
        match (self.asc, self.ascq) {
            (0x00, _) => Condition::None,
            (ASC_FAILURE_PREDICTION, ASCQ_FALSE) => Condition::Test,
            (ASC_FAILURE_PREDICTION, _) => Condition::FailurePredicted,
            (ASC_WARNING, _) => Condition::Warning,
            _ => Condition::Other,
        }
    }

    /// No failure predicted: the drive's SMART-style "passed". A warning,
    /// the TEST bit's report and a code that is no informational exception
    /// all pass.
    pub fn passed(&self) -> bool {
        self.condition() != Condition::FailurePredicted
    }

    /// SPC-5's name of the ASC/ASCQ, lower case, when it has one.
    pub fn name(&self) -> Option<String> {
        name(self.asc, self.ascq)
    }
}

/// SPC-5's name of an informational exception's ASC/ASCQ (0Bh or 5Dh).
pub fn name(asc: u8, ascq: u8) -> Option<String> {
    match asc {
        ASC_WARNING => warning(ascq).map(|w| match w {
            "" => "warning".to_string(),
            w => format!("warning - {w}"),
        }),
        ASC_FAILURE_PREDICTION => failure_prediction(ascq),
        _ => None,
    }
}

fn warning(ascq: u8) -> Option<&'static str> {
    Some(match ascq {
        0x00 => "",
        0x01 => "specified temperature exceeded",
        0x02 => "enclosure degraded",
        0x03 => "background self-test failed",
        0x04 => "background pre-scan detected medium error",
        0x05 => "background medium scan detected medium error",
        0x06 => "non-volatile cache now volatile",
        0x07 => "degraded power to non-volatile cache",
        0x08 => "power loss expected",
        0x09 => "device statistics notification active",
        0x0A => "high critical temperature limit exceeded",
        0x0B => "low critical temperature limit exceeded",
        0x0C => "high operating temperature limit exceeded",
        0x0D => "low operating temperature limit exceeded",
        0x0E => "high critical humidity limit exceeded",
        0x0F => "low critical humidity limit exceeded",
        0x10 => "high operating humidity limit exceeded",
        0x11 => "low operating humidity limit exceeded",
        0x12 => "microcode security at risk",
        0x13 => "microcode digital signature validation failure",
        0x14 => "physical element status change",
        _ => return None,
    })
}

fn failure_prediction(ascq: u8) -> Option<String> {
    const THRESHOLD: &str = "failure prediction threshold exceeded";
    // 10h..6Ch: six groups of sixteen (hardware, controller, data channel,
    // servo, spindle, firmware), each "<group> impending failure <reason>"
    // for the first thirteen reasons.
    const GROUPS: [&str; 6] = [
        "hardware",
        "controller",
        "data channel",
        "servo",
        "spindle",
        "firmware",
    ];
    const REASONS: [&str; 13] = [
        "general hard drive failure",
        "drive error rate too high",
        "data error rate too high",
        "seek error rate too high",
        "too many block reassigns",
        "access times too high",
        "start unit times too high",
        "channel parametrics",
        "controller detected",
        "throughput performance",
        "seek time performance",
        "spin-up retry count",
        "drive calibration retry count",
    ];
    Some(match ascq {
        0x00 => THRESHOLD.to_string(),
        0x01 => format!("media {THRESHOLD}"),
        0x02 => format!("logical unit {THRESHOLD}"),
        0x03 => "spare area exhaustion prediction threshold exceeded".to_string(),
        0x1D => {
            "controller impending failure power loss protection circuit area exhaustion failure"
                .to_string()
        }
        0x73 => "media impending failure endurance limit met".to_string(),
        ASCQ_FALSE => format!("{THRESHOLD} (false)"),
        0x10..=0x6C => {
            let q = usize::from(ascq - 0x10);
            let reason = REASONS.get(q % 16)?;
            format!("{} impending failure {reason}", GROUPS[q / 16])
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
