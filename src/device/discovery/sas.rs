//! The SAS link of a disk as the kernel's SAS transport class shows it in
//! sysfs (`drivers/scsi/scsi_transport_sas.c`): a disk on a SAS HBA sits
//! under `hostH/port-H:P/end_device-H:P/target…/H:C:T:L/block/sdX`; the end
//! device's `sas_device/end_device-H:P/phy_identifier` is the disk's phy,
//! and the port's `phy-*` entries are the HBA (or expander) phys it is
//! attached through, each with `sas_phy/phy-*/negotiated_linkrate`
//! ("3.0 Gbit", "12.0 Gbit"; "Unknown", "Phy disabled" when not up).

use std::path::Path;

/// `(phy identifier, bits per second)` of the disk at `block_dir`
/// (`<sysfs>/block/sdX`): one entry, the disk's phy and the rate its port
/// negotiated (the first phy of the port that is up at a rate); empty when
/// the disk is not on the SAS transport class.
pub fn links(block_dir: &Path) -> Vec<(u8, u64)> {
    let Ok(real) = std::fs::canonicalize(block_dir) else {
        return Vec::new();
    };
    let Some(end) = real.ancestors().find(|a| named(a, "end_device-")) else {
        return Vec::new();
    };
    let Some(name) = end.file_name() else {
        return Vec::new();
    };
    let phy = super::read_attr(&end.join("sas_device").join(name), "phy_identifier");
    let (Ok(phy), Some(port)) = (phy.parse::<u8>(), end.parent()) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(port) else {
        return Vec::new();
    };
    let mut phys: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| named(p, "phy-"))
        .collect();
    phys.sort();
    phys.iter()
        .find_map(|p| {
            let class = p.join("sas_phy").join(p.file_name()?);
            link_rate(&super::read_attr(&class, "negotiated_linkrate"))
        })
        .map(|rate| vec![(phy, rate)])
        .unwrap_or_default()
}

fn named(p: &Path, prefix: &str) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(prefix))
}

/// sysfs `negotiated_linkrate` text ("1.5 Gbit" … "22.5 Gbit") in bits per
/// second; `None` for a state that is not a rate.
pub fn link_rate(text: &str) -> Option<u64> {
    let gbit: f64 = text.trim().strip_suffix(" Gbit")?.parse().ok()?;
    (gbit.is_finite() && gbit > 0.0 && gbit < 1000.0).then(|| (gbit * 1e9).round() as u64)
}

#[cfg(test)]
mod tests;
