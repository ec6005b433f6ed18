"""The SAS HBA boot: two disks behind QEMU's LSI SAS 1068 (`-device mptsas1068`, the
kernel's mptsas driver), so the exporter meets the real SAS transport class in sysfs
(sas_host, sas_phy, sas_port, sas_device, sas_end_device) and smartctl "SAS (SPL-4)".

Each scsi-hd gets `wwn=` (without it the phy has SAS address 0 and never attaches) and
`port_wwn=` (then VPD 83h carries a target-port designator with protocol identifier 6).
One disk reports itself as a SAS SSD (vendor SEAGATE): a physical drive. The other keeps
QEMU's default INQUIRY (vendor QEMU, product "QEMU HARDDISK"): a virtual disk to the
exporter, watched for its identity only. The guest (tests/vm/guest/scenarios/sas.sh)
writes sysfs, smartctl -j -x and two scrapes into the share's `sas/` folder; the checks
compare them here.
"""

from __future__ import annotations

from pathlib import Path

from tools.vm.prom import one, select, show
from tools.vm.boot import Scenario, until_done
from tools.vm.work import read_json, read_scrape, read_text

IMAGES = ("sas0", "sas1")
# (image, scsi-id, wwn, port_wwn, INQUIRY/serial properties, kind the exporter must see)
DISKS = (
    ("sas0", 0, "0x5000c500a1b2c3a0", "0x5000c500a1b2c3b0",
     "serial=SASHBA0000,vendor=SEAGATE,product=XS400LE70084,rotation_rate=1", "physical"),
    ("sas1", 1, "0x5000c500a1b2c3a1", "0x5000c500a1b2c3b1", "serial=SASHBA0001", "virtual"),
)


def devices(work: Path) -> list[str]:
    cmd = ["-device", "mptsas1068,id=sas0,bus=pcie.0"]
    for image, scsi_id, wwn, port_wwn, props, _ in DISKS:
        cmd += ["-blockdev", f"driver=raw,node-name={image},file.driver=file,"
                f"file.filename={work / f'{image}.img'}",
                "-device", f"scsi-hd,drive={image},bus=sas0.0,scsi-id={scsi_id},wwn={wwn},"
                f"port_wwn={port_wwn},{props}"]
    return cmd


def drive(vm, drv) -> None:
    until_done(vm, drv, 80)


def _disks(out: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in read_text(out / "disks").splitlines() if "=" in line)
    return {k.lower(): v for k, v in pairs if v}


def _link_bytes_per_second(text: str) -> tuple[str, float] | None:
    """`<end device> <phy_identifier> <port phy> <rate> Gbit` → (phy, bytes per second)."""
    parts = text.split()
    if len(parts) != 5 or parts[4] != "Gbit":
        return None
    try:
        return parts[1], float(parts[3]) * 1e9 / 8
    except ValueError:
        return None


def check(r, share: Path) -> None:
    out = share / "sas"
    disks = _disks(out)
    if not r.check("sas_hba.disks_present", set(disks) == {"physical", "virtual"}
                   and disks["physical"] != disks["virtual"],
                   f"sas/disks: {disks} (want the SEAGATE and the QEMU disk on mptsas)"):
        return
    classes = read_text(out / "sas-classes.txt")
    r.check("sas_hba.sysfs_transport_class",
            all(c in classes for c in ("end_device-", "phy-", "port-", "host"))
            and "mptsas" in read_text(out / "proc-names.txt"),
            f"sas/sas-classes.txt: {classes[:300]!r}; proc names "
            f"{read_text(out / 'proc-names.txt').split()}")
    m1, m2 = read_scrape(out / "metrics-1.txt"), read_scrape(out / "metrics-2.txt")
    if not r.check("sas_hba.scrapes", bool(m1) and bool(m2),
                   "sas/metrics-1.txt or metrics-2.txt empty (see sas/exporter.log)"):
        return
    log = read_text(out / "exporter.log")
    for kind, dev in sorted(disks.items()):
        _disk(r, out, kind, dev, m1, m2, log)


def _disk(r, out: Path, kind: str, dev: str, m1, m2, log: str) -> None:
    name = f"sas_hba.{kind}"
    r.check(f"{name}.under_end_device", "/end_device-" in read_text(out / f"{dev}-path"),
            f"/sys/block/{dev} resolves to {read_text(out / f'{dev}-path').strip()!r}")
    js = read_json(out / f"{dev}-smartctl.json")
    proto = js.get("scsi_transport_protocol", {}).get("name", "")
    r.check(f"{name}.smartctl_sas", proto.startswith("SAS"),
            f"smartctl -j -x /dev/{dev}: scsi_transport_protocol {proto!r} (port_wwn= gives SAS)")
    serial, lun = js.get("serial_number"), str(js.get("logical_unit_id", ""))
    info = {"device": dev, "serial": serial, "transport": "sas", "kind": kind,
            "model": js.get("scsi_model_name"), "firmware": js.get("scsi_revision"),
            "wwn": f"naa.{lun[2:].lower()}" if lun.startswith("0x") else ""}
    for m, scrape in (("metrics-1", m1), ("metrics-2", m2)):
        got = one(scrape, "ssd_device_info", **info)
        near = [show(s) for s in select(scrape, "ssd_device_info", device=dev)]
        r.check(f"{name}.device_info_as_smartctl.{m}", got is not None and got.value == 1,
                f"want ssd_device_info{info}; the exporter serves {near}")
        up = one(scrape, "ssd_device_up", device=dev, serial=serial)
        r.check(f"{name}.up.{m}", up is not None and up.value == 1, f"ssd_device_up {up}")
    cap = one(m2, "ssd_capacity_bytes", device=dev)
    want_cap = js.get("user_capacity", {}).get("bytes")
    r.check(f"{name}.capacity_as_smartctl", cap is not None and cap.value == want_cap,
            f"ssd_capacity_bytes {cap}, smartctl {want_cap}")
    link = _link_bytes_per_second(read_text(out / f"{dev}-link"))
    rates = select(m2, "ssd_sas_phy_link_rate_bytes_per_second", device=dev)
    got = [(s.labels.get("phy"), s.value) for s in rates]
    r.check(f"{name}.link_rate_as_sysfs", link is not None and got == [link],
            f"sysfs sas/{dev}-link {read_text(out / f'{dev}-link').strip()!r} -> {link}; "
            f"the exporter serves {got}")
    _verdict_and_probe(r, name, kind, dev, m2, log)


def _verdict_and_probe(r, name: str, kind: str, dev: str, m2, log: str) -> None:
    """The physical disk is judged (QEMU's disk has no log pages: data_missing,
    so its status is 3, unknown: docs/metrics.md) and probed; the virtual one neither (no problem, status 0, no probe series), and the
    log says why discovery took each for what it is."""
    problems = sorted(s.labels.get("problem") for s in select(m2, "ssd_health_problem", device=dev))
    status = one(m2, "ssd_health_status", device=dev)
    probed = [s for s in select(m2, "ssd_probe_ios_total", block=dev, result="ok") if s.value > 0]
    found = [line for line in log.splitlines() if "drive found" in line and f"device={dev}" in line]
    if kind == "physical":
        r.check(f"{name}.judged", problems == ["data_missing"] and status is not None
                and status.value == 3, f"problems {problems}, status {status}")
        r.check(f"{name}.probed", bool(probed), f"no ssd_probe_ios_total{{block={dev}}} > 0")
        why = "the SAS transport class in sysfs"
    else:
        # Not judged (ssd_health_status 4), never the green of ok.
        r.check(f"{name}.not_judged", not problems and status is not None and status.value == 4,
                f"problems {problems}, status {status} (want 4, not judged)")
        r.check(f"{name}.not_probed", not select(m2, "ssd_probe_ios_total", block=dev),
                f"a virtual disk is probed only when probe.device names it: "
                f"{[show(s) for s in select(m2, 'ssd_probe_ios_total', block=dev)][:2]}")
        why = "kind virtual: a hypervisor's virtual disk"
    r.check(f"{name}.logged_why", any(why in line for line in found),
            f"sas/exporter.log 'drive found' lines for {dev}: {found[:2]} (want {why!r})")


SCENARIO = Scenario(name="sas_hba", images=IMAGES, devices=devices, drive=drive, check=check,
                    timeout=150)  # 3x the 41 s measured under a load average of 7-9
