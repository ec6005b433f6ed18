//! Log page 10h, self-test results (SPC-5 7.3.18): up to 20 parameters,
//! 0001h the most recent and 0014h the oldest, each a 16-byte value laid
//! out as [`SelfTestValue`]. An entry that is not a result (in progress,
//! aborted) says nothing about the medium, so the verdict judges the
//! newest entry with an outcome ([`SelfTest::has_outcome`]); the newest
//! entry of all is still served, so a test in progress shows as such.

use super::layout::read_padded;
use super::log::{LogPage, SELF_TEST};
use super::log_layout::SelfTestValue;
use crate::decode::ParseError;

/// One self-test result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfTest {
    /// Value byte 0 bits 7:5: the self-test code (1 background short, 2
    /// background extended, 5/6 foreground short/extended).
    pub code: u8,
    /// Value byte 0 bits 3:0: 0 passed, 1 aborted by the application
    /// client, 2 aborted by a reset, 3 unknown error, 4 failed in an unknown
    /// segment, 5/6/7 failed in the first/second/another segment, 0Fh in
    /// progress.
    pub result: u8,
    /// Value byte 1: the segment number that failed.
    pub segment: u8,
    /// Value bytes 2..4: accumulated power-on hours when it completed (0
    /// while in progress).
    pub power_on_hours: u16,
}

/// SELF-TEST RESULTS 0Fh: the test is in progress.
pub const RESULT_IN_PROGRESS: u8 = 0x0F;

impl SelfTest {
    /// The result's name, in the words the NVMe and ATA results already
    /// use for the same meaning (SPC-5 table "SELF-TEST RESULTS field"):
    /// 1 aborted by SEND DIAGNOSTIC, 2 aborted by other means (a reset, a
    /// task management function), 3 an unknown error that stopped the
    /// test, 4 a segment failed (which one unknown), 5/6/7 the first /
    /// second / another segment failed.
    pub fn result_name(&self) -> &'static str {
        match self.result {
            0x0 => "passed",
            0x1 => "aborted_by_host",
            0x2 => "aborted_by_reset",
            0x3 => "fatal_error",
            0x4 => "unknown_segment_failed",
            0x5..=0x7 => "segments_failed",
            RESULT_IN_PROGRESS => "in_progress",
            _ => "reserved",
        }
    }

    /// Whether the entry says how the medium fared: passed (0) or failed
    /// (3..7, the results smartmontools' `scsiPrintSelfTest` counts as
    /// failures). A test in progress, one aborted by the host or by a
    /// reset, and a reserved result have no outcome and never hide an
    /// older one.
    pub fn has_outcome(&self) -> bool {
        matches!(self.result, 0x0 | 0x3..=0x7)
    }
}

/// Every recorded result, newest first. The walk follows the parameter
/// codes 0001h..0014h and stops at the first empty entry (self-test code
/// and result 0 and no power-on hours: SPC-5 says an unused entry is all
/// zero, and smartmontools stops at that heuristic too); a parameter too
/// short to hold the code, the number and the hours is skipped.
pub fn self_tests(buf: &[u8]) -> Result<Vec<SelfTest>, ParseError> {
    let page = LogPage::parse(buf, SELF_TEST)?;
    let mut entries: Vec<(u16, SelfTest)> = page
        .params()
        .into_iter()
        .filter(|p| (0x0001..=0x0014).contains(&p.code) && p.value.len() >= 4)
        .map(|p| {
            let t = read_padded::<SelfTestValue>(&p.value);
            let entry = SelfTest {
                code: t.code_result >> 5,
                result: t.code_result & 0x0F,
                segment: t.self_test_number,
                power_on_hours: t.power_on_hours.get(),
            };
            (p.code, entry)
        })
        .collect();
    entries.sort_by_key(|&(code, _)| code);
    entries.dedup_by_key(|&mut (code, _)| code);
    Ok(entries
        .into_iter()
        .map(|(_, t)| t)
        .take_while(|t| t.code != 0 || t.result != 0 || t.power_on_hours != 0)
        .collect())
}

#[cfg(test)]
mod tests;
