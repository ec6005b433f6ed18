//! Identify Controller data structure (Identify CNS 01h): identity strings,
//! capacity, thermal thresholds and the capability bits that decide which
//! other pages the exporter asks for.

use serde::Serialize;
use zerocopy::little_endian::{U16, U32, U128};
use zerocopy::{FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout};

use super::{ID_CTRL_LEN, kelvin_to_celsius};
use crate::decode::{Bytes, ParseError, printable};

const PAGE: &str = "identify controller";

/// Bytes [`IdCtrl::parse`] requires: every field it reads lies below 1024
/// (SUBNQN ends at 1023). The device always transfers 4096 bytes
/// ([`super::ID_CTRL_LEN`]); power-state descriptors and the vendor area
/// beyond 1024 are not decoded.
pub const ID_CTRL_MIN_LEN: usize = 1024;

/// The Identify Controller data structure as NVMe Base 2.0 lays it out
/// (offsets and field names as libnvme's `struct nvme_id_ctrl`). The one
/// definition of these offsets: the decoder reads through it, the demo and
/// the fixture builder fill it. Fields the exporter neither reads nor
/// writes are kept as byte ranges named by their offset; their doc lists
/// the fields they hold. Little-endian, unaligned, exactly 4096 bytes.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct IdCtrlPage {
    /// Bytes 1:0, PCI vendor ID.
    pub vid: U16,
    /// Bytes 3:2, PCI subsystem vendor ID.
    pub ssvid: U16,
    /// Bytes 23:4, serial number, ASCII, space padded.
    pub sn: [u8; 20],
    /// Bytes 63:24, model number, ASCII, space padded.
    pub mn: [u8; 40],
    /// Bytes 71:64, firmware revision, ASCII, space padded.
    pub fr: [u8; 8],
    /// Byte 72, recommended arbitration burst.
    pub rab: u8,
    /// Bytes 75:73, IEEE OUI, least significant byte first.
    pub ieee: [u8; 3],
    /// Byte 76, controller multi-path I/O and namespace sharing.
    pub cmic: u8,
    /// Byte 77, maximum data transfer size (power of two, in minimum pages).
    pub mdts: u8,
    /// Bytes 79:78, controller ID.
    pub cntlid: U16,
    /// Bytes 83:80, version (major 31:16, minor 15:8, tertiary 7:0).
    pub ver: U32,
    /// Bytes 91:84: RTD3R, RTD3E.
    pub rsvd84: [u8; 8],
    /// Bytes 95:92, optional asynchronous events supported.
    pub oaes: U32,
    /// Bytes 99:96, controller attributes (bit 9 UUID list).
    pub ctratt: U32,
    /// Bytes 111:100: RRLS, reserved, CNTRLTYPE.
    pub rsvd100: [u8; 12],
    /// Bytes 127:112, FRU globally unique identifier.
    pub fguid: [u8; 16],
    /// Bytes 255:128: CRDT1..3, reserved, NVMSR, VWCI, MEC.
    pub rsvd128: [u8; 128],
    /// Bytes 257:256, optional admin command support (bit 4 self-test).
    pub oacs: U16,
    /// Byte 258, abort command limit, zero-based.
    pub acl: u8,
    /// Byte 259, asynchronous event request limit, zero-based.
    pub aerl: u8,
    /// Byte 260, firmware updates.
    pub frmw: u8,
    /// Byte 261, log page attributes.
    pub lpa: u8,
    /// Byte 262, error log page entries, zero-based.
    pub elpe: u8,
    /// Byte 263, number of power states supported, zero-based.
    pub npss: u8,
    /// Byte 264, admin vendor specific command configuration.
    pub avscc: u8,
    /// Byte 265, autonomous power state transition attributes.
    pub apsta: u8,
    /// Bytes 267:266, warning composite temperature threshold, Kelvin.
    pub wctemp: U16,
    /// Bytes 269:268, critical composite temperature threshold, Kelvin.
    pub cctemp: U16,
    /// Bytes 271:270, maximum time for firmware activation (100 ms units).
    pub mtfa: U16,
    /// Bytes 279:272: HMPRE, HMMIN.
    pub rsvd272: [u8; 8],
    /// Bytes 295:280, total NVM capacity, bytes.
    pub tnvmcap: U128,
    /// Bytes 311:296, unallocated NVM capacity, bytes.
    pub unvmcap: U128,
    /// Bytes 321:312: RPMBS, EDSTT, DSTO, FWUG, KAS.
    pub rsvd312: [u8; 10],
    /// Bytes 323:322, host controlled thermal management attributes.
    pub hctma: U16,
    /// Bytes 325:324, minimum thermal management temperature, Kelvin.
    pub mntmt: U16,
    /// Bytes 327:326, maximum thermal management temperature, Kelvin.
    pub mxtmt: U16,
    /// Bytes 331:328, sanitize capabilities.
    pub sanicap: U32,
    /// Bytes 339:332: HMMINDS, HMMAXD, NSETIDMAX.
    pub rsvd332: [u8; 8],
    /// Bytes 341:340, Endurance Group Identifier Maximum.
    pub endgidmax: U16,
    /// Bytes 511:342: ANATT .. MEGCAP, reserved.
    pub rsvd342: [u8; 170],
    /// Byte 512, submission queue entry size (max 7:4, required 3:0).
    pub sqes: u8,
    /// Byte 513, completion queue entry size.
    pub cqes: u8,
    /// Bytes 515:514, maximum outstanding commands.
    pub maxcmd: U16,
    /// Bytes 519:516, number of namespaces.
    pub nn: U32,
    /// Bytes 521:520, optional NVM command support.
    pub oncs: U16,
    /// Bytes 524:522: FUSES, FNA.
    pub rsvd522: [u8; 3],
    /// Byte 525, volatile write cache (b0 present, b2:1 flush behaviour).
    pub vwc: u8,
    /// Bytes 527:526, atomic write unit normal.
    pub awun: U16,
    /// Bytes 529:528, atomic write unit power fail, zero-based blocks.
    pub awupf: U16,
    /// Bytes 535:530: ICSVSCC, NWPC, ACWU, OCFS.
    pub rsvd530: [u8; 6],
    /// Bytes 539:536, SGL support.
    pub sgls: U32,
    /// Bytes 767:540: MNAN, MAXDNA, MAXCNA, reserved.
    pub rsvd540: [u8; 228],
    /// Bytes 1023:768, NVM subsystem NQN, NUL terminated.
    pub subnqn: [u8; 256],
    /// Bytes 2047:1024: reserved, NVMe over Fabrics attributes.
    pub rsvd1024: [u8; 1024],
    /// Bytes 3071:2048, power state descriptors 0..31.
    pub psd: [PowerStateDescriptor; 32],
    /// Bytes 4095:3072, vendor specific.
    pub vs: [u8; 1024],
}

const _: () = assert!(size_of::<IdCtrlPage>() == ID_CTRL_LEN);

/// One power state descriptor (NVMe Base 2.0; libnvme
/// `struct nvme_id_psd`), 32 bytes at 2048 + 32 × n.
#[derive(Debug, Clone, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct PowerStateDescriptor {
    /// Bytes 1:0, maximum power (centiwatts, or 0.0001 W with MXPS).
    pub mp: U16,
    /// Byte 2, reserved.
    pub rsvd2: u8,
    /// Byte 3: b0 max power scale (MXPS), b1 non-operational state (NOPS).
    pub flags: u8,
    /// Bytes 7:4, entry latency, microseconds.
    pub enlat: U32,
    /// Bytes 11:8, exit latency, microseconds.
    pub exlat: U32,
    /// Byte 12, relative read throughput.
    pub rrt: u8,
    /// Byte 13, relative read latency.
    pub rrl: u8,
    /// Byte 14, relative write throughput.
    pub rwt: u8,
    /// Byte 15, relative write latency.
    pub rwl: u8,
    /// Bytes 17:16, idle power.
    pub idlp: U16,
    /// Byte 18, idle power scale (bits 7:6).
    pub ips: u8,
    /// Byte 19, reserved.
    pub rsvd19: u8,
    /// Bytes 21:20, active power.
    pub actp: U16,
    /// Byte 22, active power workload (2:0) and scale (7:6).
    pub apws: u8,
    /// Bytes 31:23, reserved.
    pub rsvd23: [u8; 9],
}

const _: () = assert!(size_of::<PowerStateDescriptor>() == 32);

impl IdCtrlPage {
    /// A page of zeros, to fill in.
    pub fn zeroed() -> Self {
        Self::new_zeroed()
    }
}

/// `text` as an NVMe string field: ASCII, space padded, cut to `N` bytes.
pub fn space_padded<const N: usize>(text: &str) -> [u8; N] {
    let mut field = [b' '; N];
    for (f, b) in field.iter_mut().zip(text.bytes()) {
        *f = b;
    }
    field
}

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
    /// MDTS, byte 77: maximum data transfer size, a power of two in units
    /// of the minimum memory page size (0 = no limit).
    pub mdts: u8,
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
    /// ENDGIDMAX, bytes 341:340: the largest endurance group identifier.
    pub endgidmax: u16,
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
        // A transfer may stop after byte 1023; the rest reads as zeros.
        let mut p = IdCtrlPage::zeroed();
        let have = b.slice(0, buf.len().min(ID_CTRL_LEN));
        if let Some(dst) = p.as_mut_bytes().get_mut(..have.len()) {
            dst.copy_from_slice(have);
        }
        let [o0, o1, o2] = p.ieee;
        Ok(Self {
            vid: p.vid.get(),
            ssvid: p.ssvid.get(),
            serial: printable(&p.sn),
            model: printable(&p.mn),
            firmware: printable(&p.fr),
            ieee_oui: u32::from_le_bytes([o0, o1, o2, 0]),
            cntlid: p.cntlid.get(),
            mdts: p.mdts,
            version: p.ver.get(),
            oaes: p.oaes.get(),
            ctratt: p.ctratt.get(),
            fguid: p.fguid,
            oacs: p.oacs.get(),
            frmw: p.frmw,
            lpa: p.lpa,
            elpe: p.elpe,
            npss: p.npss,
            wctemp_celsius: kelvin_to_celsius(p.wctemp.get()),
            cctemp_celsius: kelvin_to_celsius(p.cctemp.get()),
            mtfa: p.mtfa.get(),
            tnvmcap_bytes: p.tnvmcap.get(),
            unvmcap_bytes: p.unvmcap.get(),
            hctma: p.hctma.get(),
            mntmt_celsius: kelvin_to_celsius(p.mntmt.get()),
            mxtmt_celsius: kelvin_to_celsius(p.mxtmt.get()),
            sanicap: p.sanicap.get(),
            endgidmax: p.endgidmax.get(),
            nn: p.nn.get(),
            oncs: p.oncs.get(),
            vwc: p.vwc,
            awupf: p.awupf.get(),
            sgls: p.sgls.get(),
            subnqn: nul_terminated(&p.subnqn),
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

    /// LPA bit 3: the telemetry host- and controller-initiated logs (07h,
    /// 08h) are supported (`NVME_CTRL_LPA_TELEMETRY`).
    pub fn supports_telemetry(&self) -> bool {
        self.lpa & (1 << 3) != 0
    }

    /// LPA bit 4: the Persistent Event Log (0Dh) is supported
    /// (`NVME_CTRL_LPA_PERSETENT_EVENT` in libnvme).
    pub fn supports_persistent_event_log(&self) -> bool {
        self.lpa & (1 << 4) != 0
    }

    /// CTRATT bit 4: Endurance Groups are supported
    /// (`NVME_CTRL_CTRATT_ENDURANCE_GROUPS`).
    pub fn supports_endurance_groups(&self) -> bool {
        self.ctratt & (1 << 4) != 0
    }

    /// The largest transfer one command may ask for, assuming the smallest
    /// memory page size of 4 KiB (CAP.MPSMIN is a register the admin
    /// passthrough cannot read; a larger one only allows more); `None`
    /// when MDTS is 0 (no limit).
    pub fn max_transfer_bytes(&self) -> Option<usize> {
        (self.mdts != 0).then(|| 4096usize << self.mdts.min(20))
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

fn nul_terminated(raw: &[u8]) -> String {
    let end = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
    printable(raw.get(..end).unwrap_or(&[]))
}

#[cfg(test)]
mod tests;
