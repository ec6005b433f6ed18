//! SAS judgements that take more than one poll, over replayed SAS dumps the
//! test edits between polls (issue 21): phy errors rising while watched are
//! a warning, the same counts standing still are none.

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use ssd_exporter::ata::attributes::Namer;
use ssd_exporter::health::tuning::Tuning;
use ssd_exporter::health::verdict::Severity;
use ssd_exporter::poll::{Poller, factory};
use ssd_exporter::scsi::log::{self, LogPage};
use ssd_exporter::scsi::log_layout::{PortValueHeader, SasPhyDescriptor};
use ssd_exporter::snapshot::{self, DriveSnapshot};

use crate::common::repo;

const T0: u64 = 1_796_083_200; // 2026-12-01T00:00:00Z

/// A copy of the KIOXIA PM6 fixture (phy 0: 5 invalid dwords, 3 running
/// disparity errors, 2 losses of dword sync, 1 phy reset problem).
struct Drive {
    dir: tempfile::TempDir,
    poller: Box<dyn Poller>,
    snap: DriveSnapshot,
}

impl Drive {
    fn new() -> Drive {
        let dir = tempfile::tempdir().unwrap();
        let src = repo().join("tests/fixtures/sas/kioxia-pm6/sdsh");
        for e in std::fs::read_dir(&src).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "bin") {
                std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
            }
        }
        let namer = Arc::new(Namer::builtin());
        let (_, transport, poller) = factory::replay(dir.path(), &namer).unwrap();
        let snap = DriveSnapshot::new("sdsh", "test", factory::placeholder(transport, "", "", ""));
        Drive { dir, poller, snap }
    }

    /// Adds `by` to phy 0's invalid dword count: log 18h, the first
    /// parameter's value, after its port header, descriptor bytes 32..36.
    fn add_invalid_dwords(&self, by: u32) {
        let path = self.dir.path().join("log-18.bin");
        let mut page = std::fs::read(&path).unwrap();
        let at = 4 + 4 + size_of::<PortValueHeader>() + 32;
        let old = u32::from_be_bytes(page[at..at + 4].try_into().unwrap());
        page[at..at + 4].copy_from_slice(&(old + by).to_be_bytes());
        std::fs::write(&path, &page).unwrap();
        // The edit is where the decoder reads it.
        let phys = log::sas_phys(&page).unwrap();
        assert_eq!((phys[0].phy, phys[0].invalid_dwords), (0, old + by));
        assert_eq!(size_of::<SasPhyDescriptor>(), 48);
        assert_eq!(LogPage::parse(&page, 0x18).unwrap().params().len(), 2);
    }

    fn poll_at(&mut self, secs: u64) -> Vec<(&'static str, Severity, String)> {
        let now = UNIX_EPOCH + Duration::from_secs(secs);
        let outcome = self.poller.poll();
        self.snap.apply(outcome, Duration::from_millis(1), now);
        snapshot::judge(Arc::new(Tuning::default()), None)(&mut self.snap, now);
        let v = self.snap.verdict.as_ref().unwrap();
        v.problems
            .iter()
            .map(|p| (p.name.as_label(), p.severity, p.reason.clone()))
            .collect()
    }
}

#[test]
fn sas_phy_errors_rising_while_watched_are_a_warning() {
    let mut d = Drive::new();
    // Phy 0 carries 11 errors from before: no problem, poll after poll.
    assert!(d.poll_at(T0).is_empty());
    assert!(d.poll_at(T0 + 3600).is_empty());
    d.add_invalid_dwords(3);
    let p = d.poll_at(T0 + 3660);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        (p[0].0, p[0].1),
        ("phy_errors_increasing", Severity::Warning)
    );
    assert_eq!(
        p[0].2,
        "SAS phy errors rose by 3 since 2026-12-01T00:00:00Z; the link, not the media: \
         check the cable, backplane, expander or HBA port"
    );
}
