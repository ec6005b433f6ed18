//! Pure decoders for SCSI (SAS) disks: identity (INQUIRY, VPD pages, READ
//! CAPACITY(16)), LOG SENSE pages and the grown defect list header. No I/O;
//! every field is big-endian, as SPC-5 and SBC-4 lay them out. smartmontools'
//! `lib/scsicmds.cpp` and `src/scsiprint.cpp` are the independent reading the
//! tests were checked against.
//!
//! The transport (SG_IO with these CDBs), discovery and the mapping onto the
//! unified reading are not built yet (issue 15); these decoders are the
//! first layer, tested on hand-built pages.

pub mod defects;
pub mod identity;
pub mod log;

pub use defects::grown_defects;
pub use identity::{Inquiry, ReadCapacity16};
pub use log::{LogPage, LogParam};
