"""The SCSI disks of the guest: QEMU's scsi-hd on virtio-scsi-pci ("VSCSI", a plain SCSI
disk) and the kernel's scsi_debug ("SAS": it reports itself as SAS, SPL-4).

The guest loads virtio_scsi and scsi_debug after the AHCI disk is sda and writes their
names to env/scsi-disks. smartctl 7.3's JSON for them (env/smartctl-<disk>.json):
`scsi_vendor`, `scsi_product`, `scsi_revision`, `serial_number`, `logical_unit_id`
("0x" + the NAA designator in hex), `user_capacity.bytes`,
`scsi_transport_protocol.name` ("SAS (SPL-4)"; absent on virtio-scsi), `smart_status.passed`
(absent when the disk has no informational-exceptions page). scsi_debug's temperature
is in `scsi_environmental_reports.temperature_1.current` (log page 0Dh/01h), not in
`temperature`; QEMU's scsi-hd has no log pages, and smartctl then says
`temperature.current` 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from probe import scsi_disks

# what run.py gives QEMU's scsi-hd, and what guest/lib.sh gives scsi_debug
VSCSI = {"scsi_vendor": "QEMU", "scsi_product": "QEMU SCSI TEST", "serial_number": "VSCSI0000",
         "logical_unit_id": "0x5000c50015ea71ad"}
SAS = {"scsi_vendor": "SEAGATE", "scsi_product": "XS800LE10003"}
CAPACITY = 64 * 1024 * 1024


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def harness(r, share: Path) -> None:
    """Both SCSI disks are there, and smartctl sees them as the harness made them."""
    disks = scsi_disks(share)
    vs, sas = disks.get("VSCSI"), disks.get("SAS")
    if not r.check("scsi.disks_present", bool(vs) and bool(sas) and vs != sas
                   and "sda" not in (vs, sas),
                   f"env/scsi-disks: {disks} (want two disks other than sda)"):
        return
    for name, disk, want in (("vscsi", vs, VSCSI), ("sas", sas, SAS)):
        js = _json(share / f"env/smartctl-{disk}.json")
        got = {k: js.get(k) for k in want}
        r.check(f"scsi.{name}.smartctl_identity", got == want,
                f"smartctl -j -x /dev/{disk}: {got}, want {want}")
        cap = js.get("user_capacity", {}).get("bytes")
        r.check(f"scsi.{name}.smartctl_capacity", cap == CAPACITY,
                f"user_capacity.bytes {cap}, want {CAPACITY}")
        proto = js.get("scsi_transport_protocol", {}).get("name", "")
        r.check(f"scsi.{name}.smartctl_transport",
                proto.startswith("SAS") if name == "sas" else not proto,
                f"scsi_transport_protocol {proto!r} (scsi_debug: SAS; virtio-scsi: none)")
