//! Identify Controller data structure (Identify CNS 01h): identity strings,
//! capacity, thermal thresholds and the capability bits that decide which
//! other pages the exporter asks for.

use serde::Serialize;

use super::kelvin_to_celsius;
use crate::decode::{Bytes, ParseError, printable};

const PAGE: &str = "identify controller";

/// Bytes [`IdCtrl::parse`] requires: every field it reads lies below 1024
/// (SUBNQN ends at 1023). The device always transfers 4096 bytes
/// ([`super::ID_CTRL_LEN`]); power-state descriptors and the vendor area
/// beyond 1024 are not decoded.
pub const ID_CTRL_MIN_LEN: usize = 1024;

/// The Identify Controller fields the exporter uses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdCtrl {
    /// VID, bytes 1:0: PCI vendor ID.
    pub vid: u16,
    /// SSVID, bytes 3:2: PCI subsystem vendor ID.
    pub ssvid: u16,
    /// SN, bytes 23:4: serial number, ASCII, trimmed.
    pub serial: String,
    /// MN, bytes 63:24: model number, ASCII, trimmed.
    pub model: String,
    /// FR, bytes 71:64: firmware revision, ASCII, trimmed.
    pub firmware: String,
    /// IEEE, bytes 75:73: IEEE OUI, little-endian 24-bit (as nvme-cli prints it).
    pub ieee_oui: u32,
    /// CNTLID, bytes 79:78: controller ID.
    pub cntlid: u16,
    /// VER, bytes 83:80: NVMe version (major 31:16, minor 15:8, tertiary 7:0);
    /// 0 on controllers older than NVMe 1.2. See [`IdCtrl::version_string`].
    pub version: u32,
    /// OAES, bytes 95:92: optional asynchronous events supported.
    pub oaes: u32,
    /// CTRATT, bytes 99:96: controller attributes.
    pub ctratt: u32,
    /// FGUID, bytes 127:112: FRU globally unique identifier.
    pub fguid: [u8; 16],
    /// OACS, bytes 257:256: optional admin command support.
    pub oacs: u16,
    /// FRMW, byte 260: firmware updates.
    pub frmw: u8,
    /// LPA, byte 261: log page attributes (b0 per-namespace SMART, b1
    /// command effects log, b2 extended data, b3 telemetry, b4 persistent
    /// event log).
    pub lpa: u8,
    /// ELPE, byte 262: error log page entries, zero-based.
    pub elpe: u8,
    /// NPSS, byte 263: number of power states supported, zero-based.
    pub npss: u8,
    /// WCTEMP, bytes 267:266: warning composite temperature threshold (K → °C;
    /// 0 = not reported).
    pub wctemp_celsius: Option<f64>,
    /// CCTEMP, bytes 269:268: critical composite temperature threshold (K → °C;
    /// 0 = not reported).
    pub cctemp_celsius: Option<f64>,
    /// MTFA, bytes 271:270: maximum time for firmware activation (100 ms units).
    pub mtfa: u16,
    /// TNVMCAP, bytes 295:280: total NVM capacity in bytes.
    pub tnvmcap_bytes: u128,
    /// UNVMCAP, bytes 311:296: unallocated NVM capacity in bytes.
    pub unvmcap_bytes: u128,
    /// HCTMA, bytes 323:322: host controlled thermal management attributes.
    pub hctma: u16,
    /// MNTMT, bytes 325:324: minimum thermal management temperature (K → °C;
    /// 0 = not reported).
    pub mntmt_celsius: Option<f64>,
    /// MXTMT, bytes 327:326: maximum thermal management temperature (K → °C;
    /// 0 = not reported).
    pub mxtmt_celsius: Option<f64>,
    /// SANICAP, bytes 331:328: sanitize capabilities.
    pub sanicap: u32,
    /// NN, bytes 519:516: number of namespaces.
    pub nn: u32,
    /// ONCS, bytes 521:520: optional NVM command support.
    pub oncs: u16,
    /// VWC, byte 525: volatile write cache (b0 present; b2:1 flush behaviour).
    pub vwc: u8,
    /// AWUPF, bytes 529:528: atomic write unit power fail, zero-based blocks.
    pub awupf: u16,
    /// SGLS, bytes 539:536: SGL support.
    pub sgls: u32,
    /// SUBNQN, bytes 1023:768: NVM subsystem NQN, up to the first NUL.
    pub subnqn: String,
}

impl IdCtrl {
    /// Decodes at least [`ID_CTRL_MIN_LEN`] bytes of an Identify Controller
    /// buffer (normally the full 4096).
    pub fn parse(buf: &[u8]) -> Result<Self, ParseError> {
        let b = Bytes::new(PAGE, buf, ID_CTRL_MIN_LEN)?;
        Ok(Self {
            vid: b.u16(0),
            ssvid: b.u16(2),
            serial: b.ascii(4, 20),
            model: b.ascii(24, 40),
            firmware: b.ascii(64, 8),
            ieee_oui: b.uint(73, 3) as u32,
            cntlid: b.u16(78),
            version: b.u32(80),
            oaes: b.u32(92),
            ctratt: b.u32(96),
            fguid: array16(&b, 112),
            oacs: b.u16(256),
            frmw: b.u8(260),
            lpa: b.u8(261),
            elpe: b.u8(262),
            npss: b.u8(263),
            wctemp_celsius: kelvin_to_celsius(b.u16(266)),
            cctemp_celsius: kelvin_to_celsius(b.u16(268)),
            mtfa: b.u16(270),
            tnvmcap_bytes: b.u128(280),
            unvmcap_bytes: b.u128(296),
            hctma: b.u16(322),
            mntmt_celsius: kelvin_to_celsius(b.u16(324)),
            mxtmt_celsius: kelvin_to_celsius(b.u16(326)),
            sanicap: b.u32(328),
            nn: b.u32(516),
            oncs: b.u16(520),
            vwc: b.u8(525),
            awupf: b.u16(528),
            sgls: b.u32(536),
            subnqn: nul_terminated(b.slice(768, 256)),
        })
    }

    /// OACS bit 4: Device Self-test command (and log 06h) supported.
    pub fn supports_self_test(&self) -> bool {
        self.oacs & (1 << 4) != 0
    }

    /// CTRATT bit 9: UUID List (Identify CNS 17h) supported
    /// (`NVME_CTRL_CTRATT_UUID_LIST = 1 << 9` in libnvme).
    pub fn supports_uuid_list(&self) -> bool {
        self.ctratt & (1 << 9) != 0
    }

    /// Entries the Error Information log holds: ELPE + 1.
    pub fn error_log_entries(&self) -> u32 {
        u32::from(self.elpe) + 1
    }

    /// LPA bit 2: Get Log Page supports extended data (NUMDU, LPO offsets).
    pub fn lpa_extended_data(&self) -> bool {
        self.lpa & (1 << 2) != 0
    }

    /// VER as "major.minor", with ".tertiary" appended when non-zero
    /// ("1.4", "2.0", "1.3.1"). Empty when VER is 0 (NVMe 1.0/1.1
    /// controllers need not report it).
    pub fn version_string(&self) -> String {
        if self.version == 0 {
            return String::new();
        }
        let major = self.version >> 16;
        let minor = (self.version >> 8) & 0xFF;
        let tertiary = self.version & 0xFF;
        if tertiary == 0 {
            format!("{major}.{minor}")
        } else {
            format!("{major}.{minor}.{tertiary}")
        }
    }
}

fn array16(b: &Bytes<'_>, off: usize) -> [u8; 16] {
    b.u128(off).to_le_bytes()
}

fn nul_terminated(raw: &[u8]) -> String {
    let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
    printable(raw.get(..end).unwrap_or(&[]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::testutil::*;

    fn sample() -> Vec<u8> {
        let mut buf = vec![0u8; 4096];
        put_u16(&mut buf, 0, 0x144D);
        put_u16(&mut buf, 2, 0x1028);
        put(&mut buf, 4, b"S4EWNX0R123456      ");
        put(&mut buf, 24, b"SAMSUNG MZQL2960HCJR-00A07              ");
        put(&mut buf, 64, b"GDC5602Q");
        put(&mut buf, 73, &[0x38, 0x25, 0x00]);
        put_u16(&mut buf, 78, 6);
        put_u32(&mut buf, 80, 0x0001_0400);
        put_u32(&mut buf, 92, 0x0000_0300);
        put_u32(&mut buf, 96, 1 << 9);
        put(&mut buf, 112, &[0xAB; 16]);
        put_u16(&mut buf, 256, 0x005F);
        buf[260] = 0x17;
        buf[261] = 0x0E;
        buf[262] = 63;
        buf[263] = 2;
        put_u16(&mut buf, 266, 353);
        put_u16(&mut buf, 268, 0);
        put_u16(&mut buf, 270, 300);
        put_u128(&mut buf, 280, (1u128 << 64) | 0x1000);
        put_u128(&mut buf, 296, 4096);
        put_u16(&mut buf, 322, 1);
        put_u16(&mut buf, 324, 273);
        put_u16(&mut buf, 326, 358);
        put_u32(&mut buf, 328, 0x6000_0003);
        put_u32(&mut buf, 516, 32);
        put_u16(&mut buf, 520, 0x005F);
        buf[525] = 0x07;
        put_u16(&mut buf, 528, 7);
        put_u32(&mut buf, 536, 0x0001_0001);
        put(&mut buf, 768, b"nqn.1994-11.com.samsung:nvme:PM9A3\0junk");
        buf
    }

    #[test]
    fn decodes_every_field_at_its_offset() {
        let id = IdCtrl::parse(&sample()).unwrap();
        assert_eq!(id.vid, 0x144D);
        assert_eq!(id.ssvid, 0x1028);
        assert_eq!(id.serial, "S4EWNX0R123456");
        assert_eq!(id.model, "SAMSUNG MZQL2960HCJR-00A07");
        assert_eq!(id.firmware, "GDC5602Q");
        assert_eq!(id.ieee_oui, 0x002538);
        assert_eq!(id.cntlid, 6);
        assert_eq!(id.version, 0x0001_0400);
        assert_eq!(id.oaes, 0x300);
        assert_eq!(id.ctratt, 0x200);
        assert_eq!(id.fguid, [0xAB; 16]);
        assert_eq!(id.oacs, 0x5F);
        assert_eq!((id.frmw, id.lpa, id.elpe, id.npss), (0x17, 0x0E, 63, 2));
        assert_eq!(id.wctemp_celsius, Some(80.0));
        assert_eq!(id.cctemp_celsius, None);
        assert_eq!(id.mtfa, 300);
        assert_eq!(id.tnvmcap_bytes, 18_446_744_073_709_555_712);
        assert_eq!(id.unvmcap_bytes, 4096);
        assert_eq!(id.hctma, 1);
        assert_eq!(id.mntmt_celsius, Some(0.0));
        assert_eq!(id.mxtmt_celsius, Some(85.0));
        assert_eq!(id.sanicap, 0x6000_0003);
        assert_eq!(id.nn, 32);
        assert_eq!(id.oncs, 0x5F);
        assert_eq!(id.vwc, 7);
        assert_eq!(id.awupf, 7);
        assert_eq!(id.sgls, 0x0001_0001);
        assert_eq!(id.subnqn, "nqn.1994-11.com.samsung:nvme:PM9A3");
    }

    #[test]
    fn capability_helpers() {
        let id = IdCtrl::parse(&sample()).unwrap();
        assert!(id.supports_self_test()); // 0x5F has bit 4
        assert!(id.supports_uuid_list());
        assert_eq!(id.error_log_entries(), 64);
        assert!(id.lpa_extended_data()); // 0x0E has bit 2
        assert_eq!(id.version_string(), "1.4");

        let mut buf = sample();
        put_u16(&mut buf, 256, 0x0007);
        put_u32(&mut buf, 96, 0x0000_01FF);
        buf[261] = 0x03;
        buf[262] = 255;
        put_u32(&mut buf, 80, 0x0001_0301);
        let id = IdCtrl::parse(&buf).unwrap();
        assert!(!id.supports_self_test());
        assert!(!id.supports_uuid_list());
        assert!(!id.lpa_extended_data());
        assert_eq!(id.error_log_entries(), 256);
        assert_eq!(id.version_string(), "1.3.1");
    }

    #[test]
    fn version_two_and_unreported() {
        let mut buf = sample();
        put_u32(&mut buf, 80, 0x0002_0000);
        assert_eq!(IdCtrl::parse(&buf).unwrap().version_string(), "2.0");
        put_u32(&mut buf, 80, 0);
        assert_eq!(IdCtrl::parse(&buf).unwrap().version_string(), "");
    }

    #[test]
    fn needs_1024_bytes() {
        let buf = sample();
        assert!(IdCtrl::parse(&buf[..1024]).is_ok());
        assert_eq!(
            IdCtrl::parse(&buf[..1023]),
            Err(ParseError::Length {
                page: "identify controller",
                expected: 1024,
                got: 1023
            })
        );
    }
}
