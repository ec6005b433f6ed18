//! Identify Namespace (CNS 00h): only the globally unique identifiers the
//! exporter uses as the drive's world-wide name.

use crate::decode::{Bytes, ParseError};

/// Identify Namespace data structure size.
pub const ID_NS_LEN: usize = 4096;

/// The namespace's globally unique identifiers (NVMe Base 2.0 Figure 280).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdNs {
    /// NGUID, bytes 104..120 (big-endian byte string); all zero = not reported.
    pub nguid: [u8; 16],
    /// EUI64, bytes 120..128; all zero = not reported.
    pub eui64: [u8; 8],
}

impl IdNs {
    /// Decodes the 128 bytes that hold the identifiers (a full page is 4096).
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new("identify namespace", buf, 128)?;
        let mut nguid = [0u8; 16];
        nguid.copy_from_slice(b.slice(104, 16));
        let mut eui64 = [0u8; 8];
        eui64.copy_from_slice(b.slice(120, 8));
        Ok(Self { nguid, eui64 })
    }

    /// `eui.<hex>` from the NGUID, else from the EUI64 — the form Linux uses
    /// for a namespace's `wwid` in sysfs (`drivers/nvme/host/core.c`,
    /// `wwid_show`) when it has no UUID; `None` when neither is reported.
    pub fn wwn(&self) -> Option<String> {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        if self.nguid.iter().any(|&b| b != 0) {
            Some(format!("eui.{}", hex(&self.nguid)))
        } else if self.eui64.iter().any(|&b| b != 0) {
            Some(format!("eui.{}", hex(&self.eui64)))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nguid_wins_over_eui64_and_zero_is_none() {
        let mut buf = vec![0u8; 4096];
        assert_eq!(IdNs::parse(&buf).unwrap().wwn(), None);
        buf[120..128].copy_from_slice(&[0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a]);
        assert_eq!(
            IdNs::parse(&buf).unwrap().wwn().as_deref(),
            Some("eui.525400123456789a")
        );
        buf[104] = 0x01;
        buf[119] = 0xff;
        assert_eq!(
            IdNs::parse(&buf).unwrap().wwn().as_deref(),
            Some("eui.010000000000000000000000000000ff")
        );
    }

    #[test]
    fn short_page_is_an_error() {
        assert!(IdNs::parse(&[0u8; 127]).is_err());
    }
}
