//! The bridged source over an emulated bridge: a channel that answers each
//! family's frames as the sources in `crate::usb` describe the bridge, and
//! records what it was sent.

use std::sync::{Arc, Mutex};

use super::*;
use crate::device::channel::Completion;
use crate::nvme::smart_log::SmartLogPage;
use zerocopy::IntoBytes;

/// What the emulated bridge was sent: each CDB, and the data sent out.
type Log = Arc<Mutex<Vec<(Vec<u8>, Vec<u8>)>>>;

/// A bridge of `family` in front of a drive whose pages are `page(opcode,
/// cdw10 low byte)`; `status` is the NVMe status a JMicron reply carries;
/// `refuse_all` answers every CDB ILLEGAL REQUEST, invalid opcode (what a
/// bridge of another family, or QEMU's disk, does).
struct Emulated {
    family: NvmeBridge,
    log: Log,
    status: u16,
    signature: [u8; 4],
    refuse_all: bool,
    /// JMicron: the command block last sent.
    block: Vec<u8>,
}

fn page(opcode: u8, id: u8) -> Option<Vec<u8>> {
    match (opcode, id) {
        (0x06, 0x01) => {
            let mut p = vec![0u8; 4096];
            p[24..28].copy_from_slice(b"MODL");
            Some(p)
        }
        // Identify Namespace: cut short.
        (0x06, 0x00) => Some(vec![0; 100]),
        (0x02, 0x02) => {
            let mut s = SmartLogPage::zeroed();
            s.temperature.set(310);
            s.percent_used = 7;
            Some(s.as_bytes().to_vec())
        }
        _ => None,
    }
}

impl Emulated {
    fn new(family: NvmeBridge) -> (Self, Log) {
        let log = Log::default();
        let e = Self {
            family,
            log: log.clone(),
            status: 0,
            signature: *b"NVME",
            refuse_all: false,
            block: Vec::new(),
        };
        (e, log)
    }

    /// The page the CDB (and JMicron's block) asks for.
    fn asked(&self, cdb: &[u8]) -> Option<Vec<u8>> {
        match self.family {
            NvmeBridge::Asmedia => page(cdb[1], cdb[3]),
            NvmeBridge::Realtek => page(cdb[3], cdb[4]),
            NvmeBridge::Jmicron => page(self.block[8], self.block[48]),
        }
    }

    fn reply(&self) -> Vec<u8> {
        let mut r = vec![0u8; 512];
        r[..4].copy_from_slice(&self.signature);
        r[20..24].copy_from_slice(&(u32::from(self.status) << 17).to_le_bytes());
        r
    }
}

fn illegal_request(sense: &mut [u8], asc: u8) -> Completion {
    sense.fill(0);
    sense[0] = 0x70;
    sense[2] = 0x05;
    sense[7] = 10;
    sense[12] = asc;
    Completion {
        status: 0x02,
        sense_len: 18,
        transferred: 0,
    }
}

impl Channel for Emulated {
    fn origin(&self) -> String {
        "/dev/sdu".into()
    }

    fn issue(
        &mut self,
        _what: &str,
        cdb: &[u8],
        data: DataIn<'_>,
        sense: &mut [u8],
    ) -> Result<Completion, FetchError> {
        let out = match &data {
            DataIn::Out(b) => b.to_vec(),
            _ => Vec::new(),
        };
        self.log.lock().unwrap().push((cdb.to_vec(), out.clone()));
        if self.refuse_all {
            return Ok(illegal_request(sense, 0x20));
        }
        let answer = match (cdb[1] & 0x0F, data) {
            (0x0, DataIn::Out(_)) if cdb[0] == 0xA1 => {
                self.block = out;
                return Ok(Completion {
                    status: 0,
                    sense_len: 0,
                    transferred: 0,
                });
            }
            (0xF, DataIn::Buffer(buf)) if cdb[0] == 0xA1 => Some((self.reply(), buf)),
            (_, DataIn::Buffer(buf)) => self.asked(cdb).map(|p| (p, buf)),
            _ => None,
        };
        let Some((bytes, buf)) = answer else {
            return Ok(illegal_request(sense, 0x24));
        };
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        Ok(Completion {
            status: 0,
            sense_len: 0,
            transferred: n,
        })
    }
}

fn source(e: Emulated) -> BridgedNvme {
    let family = e.family;
    BridgedNvme::over(Box::new(e), family)
}

#[test]
fn jmicron_sends_the_block_then_reads_the_page_then_the_reply() {
    let (e, log) = Emulated::new(NvmeBridge::Jmicron);
    let id = source(e).fetch(NvmeRequest::IdentifyController).unwrap();
    assert_eq!(&id[24..28], b"MODL");
    let log = log.lock().unwrap();
    let cdbs: Vec<&[u8]> = log.iter().map(|(c, _)| c.as_slice()).collect();
    assert_eq!(
        cdbs,
        [
            &[0xA1, 0x80, 0, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0][..],
            &[0xA1, 0x82, 0, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0],
            &[0xA1, 0x8F, 0, 0x00, 0x02, 0x00, 0, 0, 0, 0, 0, 0],
        ]
    );
    let block = &log[0].1;
    assert_eq!(
        (&block[..4], block[8], block[48]),
        (&b"NVME"[..], 0x06, 0x01)
    );
}

#[test]
fn jmicron_reply_status_decides() {
    // Invalid Log Page (SCT 1h, SC 09h) with DNR: the drive has no page.
    let (mut e, _) = Emulated::new(NvmeBridge::Jmicron);
    e.status = 0x4109;
    let r = source(e).fetch(NvmeRequest::log(0x02, 512));
    assert!(matches!(r, Err(FetchError::Unsupported(_))), "{r:?}");
    // Internal Error (SCT 0h, SC 06h): a failure.
    let (mut e, _) = Emulated::new(NvmeBridge::Jmicron);
    e.status = 0x0006;
    let r = source(e).fetch(NvmeRequest::log(0x02, 512));
    assert!(matches!(r, Err(FetchError::Failed(_))), "{r:?}");
    // Garbage instead of a reply.
    let (mut e, _) = Emulated::new(NvmeBridge::Jmicron);
    e.signature = *b"\0\0\0\0";
    let r = source(e).fetch(NvmeRequest::log(0x02, 512));
    assert!(
        matches!(&r, Err(FetchError::Failed(m)) if m.contains("out of spec")),
        "{r:?}"
    );
}

#[test]
fn asmedia_and_realtek_read_the_smart_log_in_one_command() {
    for (family, cdb) in [
        (
            NvmeBridge::Asmedia,
            [
                0xE6, 0x02, 0, 0x02, 0, 0, 0x00, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0,
            ],
        ),
        (
            NvmeBridge::Realtek,
            [
                0xE4, 0x00, 0x02, 0x02, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ],
        ),
    ] {
        let (e, log) = Emulated::new(family);
        let smart = source(e).fetch(NvmeRequest::log(0x02, 512)).unwrap();
        let s = crate::nvme::SmartLog::parse(&smart).unwrap();
        assert_eq!(s.temperature_celsius, Some(37.0));
        assert_eq!(log.lock().unwrap().as_slice(), [(cdb.to_vec(), Vec::new())]);
    }
}

#[test]
fn what_a_bridge_does_not_carry_is_not_sent() {
    for family in [
        NvmeBridge::Jmicron,
        NvmeBridge::Asmedia,
        NvmeBridge::Realtek,
    ] {
        let (e, log) = Emulated::new(family);
        let mut src = source(e);
        for req in [
            NvmeRequest::UuidList,
            NvmeRequest::log(0xC0, 512),
            NvmeRequest::log(0x03, 512),
        ] {
            let r = src.fetch(req);
            assert!(
                matches!(r, Err(FetchError::Unsupported(_))),
                "{family:?} {req}: {r:?}"
            );
        }
        assert!(src.self_test(SelfTestOp::Short).is_err());
        assert!(log.lock().unwrap().is_empty(), "{family:?}");
    }
    // The self-test log: JMicron hangs on it, Realtek garbles it.
    for family in [NvmeBridge::Jmicron, NvmeBridge::Realtek] {
        let (e, log) = Emulated::new(family);
        let r = source(e).fetch(NvmeRequest::log(0x06, 564));
        assert!(matches!(r, Err(FetchError::Unsupported(_))), "{r:?}");
        assert!(log.lock().unwrap().is_empty());
    }
}

#[test]
fn a_bridge_that_refuses_the_frames_refuses_the_page() {
    // QEMU's USB disks answer every vendor CDB with ILLEGAL REQUEST,
    // INVALID COMMAND OPERATION CODE.
    for family in [
        NvmeBridge::Jmicron,
        NvmeBridge::Asmedia,
        NvmeBridge::Realtek,
    ] {
        let (mut e, log) = Emulated::new(family);
        e.refuse_all = true;
        let r = source(e).fetch(NvmeRequest::IdentifyController);
        assert!(
            matches!(&r, Err(FetchError::Unsupported(m)) if m.contains("/dev/sdu")),
            "{r:?}"
        );
        assert_eq!(
            log.lock().unwrap().len(),
            1,
            "nothing after the first refusal"
        );
    }
}

#[test]
fn a_page_it_does_not_have_is_unsupported_and_a_short_one_failed() {
    let (e, _) = Emulated::new(NvmeBridge::Asmedia);
    let r = source(e).fetch(NvmeRequest::log(0x01, 512));
    assert!(matches!(r, Err(FetchError::Unsupported(_))), "{r:?}");
    for family in [
        NvmeBridge::Jmicron,
        NvmeBridge::Asmedia,
        NvmeBridge::Realtek,
    ] {
        let (e, _) = Emulated::new(family);
        let r = source(e).fetch(NvmeRequest::IdentifyNamespace { nsid: 1 });
        assert!(
            matches!(&r, Err(FetchError::Failed(m)) if m.contains("100 of 4096")),
            "{r:?}"
        );
    }
}
