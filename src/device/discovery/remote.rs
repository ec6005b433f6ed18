//! What sysfs says of how a SCSI disk is reached, for [`super::volume`]: a
//! Fibre Channel remote port or an iSCSI session above it in the device
//! tree, a device-mapper multipath map holding it.
//!
//! - The FC transport class (`drivers/scsi/scsi_transport_fc.c`) names a
//!   remote port `rport-<host>:<channel>-<number>` and puts the targets it
//!   reaches under it: `…/host3/rport-3:0-1/target3:0:1/3:0:1:7/block/sdc`.
//! - The iSCSI transport class (`scsi_transport_iscsi.c`) puts a session's
//!   targets under `sessionN`: `…/host5/session2/target5:0:0/…`.
//! - device-mapper lists the maps built on a disk in `block/sdX/holders/`
//!   (`dm-3`); multipath-tools gives its maps a DM UUID beginning `mpath-`
//!   (`libmultipath/devmapper.h`, `UUID_PREFIX`), in `block/dm-3/dm/uuid`,
//!   and the map's name is `dm/name` (`mpatha`, or the WWID).

use std::path::Path;

/// An `rport-H:C-N` component: the FC transport class's remote port.
pub fn is_fc_remote_port(component: &str) -> bool {
    let Some(rest) = component.strip_prefix("rport-") else {
        return false;
    };
    let Some((hc, n)) = rest.split_once('-') else {
        return false;
    };
    let Some((h, c)) = hc.split_once(':') else {
        return false;
    };
    [h, c, n]
        .iter()
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A `sessionN` component: the iSCSI transport class's session.
pub fn is_iscsi_session(component: &str) -> bool {
    component
        .strip_prefix("session")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The multipath map holding the disk at `block_dir` (`<sysfs>/block/sdX`),
/// as `dm-3 (mpatha)`; empty when no holder is a multipath map (an LVM or
/// crypt map on a disk says nothing of how it is reached).
pub fn multipath_holder(block_dir: &Path) -> String {
    let Ok(holders) = std::fs::read_dir(block_dir.join("holders")) else {
        return String::new();
    };
    let mut maps: Vec<String> = holders
        .flatten()
        .filter_map(|h| {
            let dm = h.path().join("dm");
            let uuid = std::fs::read_to_string(dm.join("uuid")).ok()?;
            if !uuid.trim().starts_with("mpath-") {
                return None;
            }
            let holder = h.file_name().to_string_lossy().into_owned();
            let name = std::fs::read_to_string(dm.join("name")).unwrap_or_default();
            let name = crate::decode::printable(name.trim().as_bytes());
            Some(match name.is_empty() {
                true => holder,
                false => format!("{holder} ({name})"),
            })
        })
        .collect();
    maps.sort();
    maps.into_iter().next().unwrap_or_default()
}

#[cfg(test)]
mod tests;
