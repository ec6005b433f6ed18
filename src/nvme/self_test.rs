//! Device Self-test log page (LID 06h, 564 bytes): the operation in progress
//! and up to 20 results, newest first.

use serde::Serialize;
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::SELF_TEST_LOG_LEN;
use crate::decode::{Bytes, ParseError};

const PAGE: &str = "self-test log";
/// Result code Fh: the entry is not used.
pub const NOT_USED: u8 = 0x0F;

/// The Device Self-test log page as `shared/reference/layouts.md` lays it
/// out (names as libnvme's `struct nvme_self_test_log`). The one definition of
/// these offsets: the decoder reads through it, the demo and the fixture
/// builder fill it. Little-endian, unaligned, exactly 564 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SelfTestLogPage {
    /// Byte 0, current device self-test operation (bits 3:0).
    pub current_operation: u8,
    /// Byte 1, current device self-test completion (bits 6:0, percent).
    pub completion: u8,
    /// Bytes 3:2, reserved.
    pub rsvd2: [u8; 2],
    /// Bytes 563:4, self-test results 0..19 (28 bytes each), newest first.
    pub result: [SelfTestResultLayout; 20],
}

const _: () = assert!(size_of::<SelfTestLogPage>() == SELF_TEST_LOG_LEN);

/// One Self-test Result Data Structure (layouts.md; libnvme
/// `struct nvme_st_result`), 28 bytes at 4 + 28 × n.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SelfTestResultLayout {
    /// Byte 0, device self-test status: bits 3:0 result, 7:4 self-test code.
    pub dsts: u8,
    /// Byte 1, segment number.
    pub seg: u8,
    /// Byte 2, valid diagnostic information (b0 NSID, b1 FLBA, b2 SCT, b3 SC).
    pub vdi: u8,
    /// Byte 3, reserved.
    pub rsvd3: u8,
    /// Bytes 11:4, power-on hours.
    pub poh: U64,
    /// Bytes 15:12, namespace identifier.
    pub nsid: U32,
    /// Bytes 23:16, failing LBA.
    pub flba: U64,
    /// Byte 24, status code type.
    pub sct: u8,
    /// Byte 25, status code.
    pub sc: u8,
    /// Bytes 27:26, vendor specific.
    pub vs: [u8; 2],
}

const _: () = assert!(size_of::<SelfTestResultLayout>() == 28);

impl SelfTestLogPage {
    /// A page with no test running and every result marked "not used".
    pub fn empty() -> Self {
        let mut p = Self::new_zeroed();
        for r in &mut p.result {
            r.dsts = NOT_USED;
        }
        p
    }
}

/// One Self-test Result Data Structure (28 bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelfTestResult {
    /// Byte 0 bits 3:0: result (0 passed … 9 aborted by sanitize; see
    /// [`SelfTestResult::result_name`]).
    pub result: u8,
    /// Byte 0 bits 7:4: self-test code (1 short, 2 extended, Eh vendor).
    pub code: u8,
    /// Byte 1: number of the segment that failed (result 7).
    pub segment: u8,
    /// Byte 2: valid diagnostic information (b0 NSID, b1 failing LBA, b2 SCT,
    /// b3 SC); the matching fields below mean nothing when their bit is clear.
    pub valid_flags: u8,
    /// Bytes 11:4: power-on hours when the test completed or aborted.
    pub power_on_hours: u64,
    /// Bytes 15:12: namespace of the failing LBA (valid if b0 of `valid_flags`).
    pub nsid: u32,
    /// Bytes 23:16: first failing LBA (valid if b1 of `valid_flags`).
    pub failing_lba: u64,
    /// Byte 24: status code type of the failure, raw as nvme-cli prints it
    /// (bits 2:0 carry the SCT; valid if b2 of `valid_flags`).
    pub sct: u8,
    /// Byte 25: status code of the failure (valid if b3 of `valid_flags`).
    pub sc: u8,
}

impl SelfTestResult {
    /// The result code as a snake_case label.
    pub fn result_name(&self) -> &'static str {
        match self.result {
            0x0 => "passed",
            0x1 => "aborted_by_command",
            0x2 => "aborted_by_reset",
            0x3 => "aborted_by_namespace_removal",
            0x4 => "aborted_by_format",
            0x5 => "fatal_error",
            0x6 => "unknown_segment_failed",
            0x7 => "segments_failed",
            0x8 => "aborted_unknown",
            0x9 => "aborted_by_sanitize",
            _ => "reserved",
        }
    }
}

/// The Device Self-test log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelfTestLog {
    /// Byte 0 bits 3:0: test in progress (0 none, 1 short, 2 extended, Eh vendor).
    pub current_operation: u8,
    /// Byte 1 bits 6:0: percent complete of the test in progress.
    pub current_completion_percent: u8,
    /// Bytes 563:4: the used results (code Fh "entry not used" skipped),
    /// newest first.
    pub results: Vec<SelfTestResult>,
}

impl SelfTestLog {
    /// Decodes a 564-byte Device Self-test log page.
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, SELF_TEST_LOG_LEN)?;
        let (p, _) = SelfTestLogPage::ref_from_prefix(b.raw()).map_err(|_| ParseError::Length {
            page: PAGE,
            expected: SELF_TEST_LOG_LEN,
            got: buf.len(),
        })?;
        let results = p
            .result
            .iter()
            .map(decode_result)
            .filter(|r| r.result != NOT_USED)
            .collect();
        Ok(Self {
            current_operation: p.current_operation & 0x0F,
            current_completion_percent: p.completion & 0x7F,
            results,
        })
    }

    /// The newest result (the first used entry).
    pub fn last(&self) -> Option<&SelfTestResult> {
        self.results.first()
    }
}

fn decode_result(r: &SelfTestResultLayout) -> SelfTestResult {
    SelfTestResult {
        result: r.dsts & 0x0F,
        code: r.dsts >> 4,
        segment: r.seg,
        valid_flags: r.vdi,
        power_on_hours: r.poh.get(),
        nsid: r.nsid.get(),
        failing_lba: r.flba.get(),
        sct: r.sct,
        sc: r.sc,
    }
}

#[cfg(test)]
mod tests;
