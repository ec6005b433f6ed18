//! Endurance groups, firmware slots and the telemetry header through the
//! poller, from a dump folder the tests write through the layouts.

use std::path::Path;
use std::sync::{Arc, Mutex};

use zerocopy::{FromBytes, IntoBytes};

use super::super::{NvmePoller, PollPolicy};
use super::*;
use crate::device::NvmeSource;
use crate::device::replay::NvmeReplay;
use crate::nvme::endurance_group::EnduranceGroupLogPage;
use crate::nvme::fw_slot::FwSlotLogPage;
use crate::nvme::identify::IdCtrlPage;
use crate::nvme::telemetry::TelemetryHeaderPage;
use crate::poll::Poller;
use crate::poll::tests::belief;

const DC2000B: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/nvme/kingston-dc2000b/nvme0"
);

/// Counts what the poller asks of a replay.
struct Counted(NvmeReplay, Arc<Mutex<Vec<NvmeRequest>>>);

impl NvmeSource for Counted {
    fn origin(&self) -> String {
        self.0.origin()
    }
    fn fetch(&mut self, req: NvmeRequest) -> Result<Vec<u8>, FetchError> {
        self.1.lock().unwrap().push(req);
        self.0.fetch(req)
    }
}

/// The DC2000B's identify and SMART log with endurance groups (CTRATT
/// bit 4, ENDGIDMAX `max`) and telemetry (LPA bit 3), plus `groups`.
fn folder(max: u16, groups: &[u16]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut id = std::fs::read(Path::new(DC2000B).join("id-ctrl.bin")).unwrap();
    let (p, _) = IdCtrlPage::mut_from_prefix(&mut id).unwrap();
    p.ctratt = (p.ctratt.get() | 1 << 4).into();
    p.endgidmax = max.into();
    p.lpa |= 1 << 3;
    p.lpa &= !(1 << 4);
    std::fs::write(dir.path().join("id-ctrl.bin"), &id).unwrap();
    std::fs::copy(
        Path::new(DC2000B).join("smart-log.bin"),
        dir.path().join("smart-log.bin"),
    )
    .unwrap();
    for &g in groups {
        let mut page = EnduranceGroupLogPage::zeroed();
        page.data_units_written = (1000 * u128::from(g)).into();
        page.media_units_written = (1300 * u128::from(g)).into();
        let name = format!("endurance-group-{g}.bin");
        std::fs::write(dir.path().join(name), page.as_bytes()).unwrap();
    }
    let mut fw = FwSlotLogPage::zeroed();
    fw.afi = 0x21;
    fw.frs[0] = *b"EIEK51.3";
    fw.frs[1] = *b"EIEK52.0";
    std::fs::write(dir.path().join("fw-slot-log.bin"), fw.as_bytes()).unwrap();
    let mut t = TelemetryHeaderPage::new();
    t.ctrldgn = 3;
    std::fs::write(dir.path().join("telemetry-ctrl-header.bin"), t.as_bytes()).unwrap();
    dir
}

fn poller(dir: &Path, policy: PollPolicy) -> (NvmePoller, Arc<Mutex<Vec<NvmeRequest>>>) {
    let asked = Arc::default();
    let src = Counted(NvmeReplay::new(dir), Arc::clone(&asked));
    (NvmePoller::new(Box::new(src), policy), asked)
}

fn lids(asked: &Arc<Mutex<Vec<NvmeRequest>>>, lid: u8) -> Vec<NvmeRequest> {
    let asked = asked.lock().unwrap();
    asked
        .iter()
        .filter(|r| matches!(r, NvmeRequest::Log { lid: l, .. } if *l == lid))
        .copied()
        .collect()
}

#[test]
fn groups_up_to_endgidmax_are_read_when_the_list_is_not_there() {
    // a dump holds no list: groups 1..=3 are tried; group 2 is absent
    let dir = folder(3, &[1, 3]);
    let (mut p, asked) = poller(dir.path(), PollPolicy::EVERY_PAGE);
    let out = p.poll();
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(belief(&out, Source::EnduranceGroupLog), Some(true));
    assert_eq!(belief(&out, Source::EnduranceGroupList), Some(false));
    let nvme = out.reading.unwrap().nvme.unwrap();
    let ids: Vec<u16> = nvme.endurance_groups.iter().map(|(g, _)| *g).collect();
    assert_eq!(ids, [1, 3]);
    // (1300 + 3900) / (1000 + 3000)
    assert_eq!(nvme.write_amplification, Some(1.3));
    let lsis: Vec<(u16, bool)> = lids(&asked, nvme::LID_ENDURANCE_GROUP)
        .iter()
        .map(|r| match r {
            NvmeRequest::Log { lsi, rae, .. } => (*lsi, *rae),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(lsis, [(1, true), (2, true), (3, true)]);
}

#[test]
fn no_group_there_makes_the_page_unsupported_and_no_bit_asks_nothing() {
    let dir = folder(2, &[]);
    let (mut p, _) = poller(dir.path(), PollPolicy::EVERY_PAGE);
    let out = p.poll();
    assert_eq!(belief(&out, Source::EnduranceGroupLog), Some(false));
    assert!(
        out.reading
            .unwrap()
            .nvme
            .unwrap()
            .endurance_groups
            .is_empty()
    );
    // without CTRATT bit 4 nothing of the kind is asked
    let dir = folder(2, &[1]);
    let mut id = std::fs::read(dir.path().join("id-ctrl.bin")).unwrap();
    id[96] &= !(1 << 4);
    std::fs::write(dir.path().join("id-ctrl.bin"), &id).unwrap();
    let (mut p, asked) = poller(dir.path(), PollPolicy::EVERY_PAGE);
    p.poll();
    assert!(lids(&asked, nvme::LID_ENDURANCE_GROUP).is_empty());
    assert!(
        !asked
            .lock()
            .unwrap()
            .contains(&NvmeRequest::EnduranceGroupList)
    );
}

#[test]
fn groups_every_poll_slots_and_telemetry_with_each_refresh() {
    let dir = folder(1, &[1]);
    let (mut p, asked) = poller(dir.path(), PollPolicy::LIVE);
    for _ in 0..11 {
        assert!(p.poll().errors.is_empty());
    }
    assert_eq!(lids(&asked, nvme::LID_ENDURANCE_GROUP).len(), 11);
    // polls 1 and 11 refresh identity
    assert_eq!(lids(&asked, nvme::LID_FW_SLOT).len(), 2);
    assert_eq!(lids(&asked, nvme::LID_TELEMETRY_CTRL).len(), 2);
    for r in lids(&asked, nvme::LID_TELEMETRY_CTRL) {
        assert!(matches!(r, NvmeRequest::Log { rae: true, .. }), "{r}");
    }
    let out = p.poll();
    let nvme = out.reading.unwrap().nvme.unwrap();
    let fw = nvme.firmware.unwrap();
    assert!(fw.activation_pending());
    assert_eq!(nvme.telemetry.unwrap().generation, 3);
}
