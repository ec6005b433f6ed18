//! Pure decoders for SCSI (SAS) disks: identity (INQUIRY, VPD pages, READ
//! CAPACITY(16)), LOG SENSE pages (the self-test log in [`self_test`],
//! what an informational exception means in [`exceptions`]), the grown
//! defect list header, and status and sense data ([`sense`], with the ATA
//! registers SAT returns in it). No I/O;
//! every field is big-endian, as SPC-5 and SBC-4 lay them out. smartmontools'
//! `lib/scsicmds.cpp` and `src/scsiprint.cpp` are the independent reading the
//! tests were checked against.
//!
//! Each page layout is defined once: the fixed parts as big-endian
//! `zerocopy` structs and the variable framing (VPD header and designation
//! descriptors, log page and parameter headers) with the builders that write
//! it, in [`layout`] (identity pages, READ CAPACITY(16), the defect list
//! header) and [`log_layout`] (LOG SENSE). The decoders read through them;
//! the demo and the test fixtures are written through them.
//!
//! [`command`] holds the CDBs and what a completion means; the transport
//! that issues them is `device::scsi_live`, the mapping onto the unified
//! reading `reading::scsi`.

pub mod command;
pub mod defects;
pub mod diagnostic;
pub mod exceptions;
pub mod identity;
pub mod layout;
pub mod log;
pub mod log_layout;
pub mod self_test;
pub mod sense;

pub use command::ScsiRequest;
pub use defects::grown_defects;
pub use identity::{Inquiry, ReadCapacity16};
pub use log::{LogPage, LogParam};
