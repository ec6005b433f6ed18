"""The MegaRAID boot: two disks behind QEMU's megasas-gen2 (the kernel's megaraid_sas),
watched with `discovery.megaraid` through the driver's management node and MFI
pass-through, with `smartctl -d megaraid,N` in the same guest as the oracle.

QEMU's disks carry no SMART data: the path is checked here (discovery, the node the
exporter makes, identity through the pass-through, the verdict's "data missing"), the
decoding on fixtures. QEMU lists a drive's device ID as (scsi-id << 8) | lun, while its
pass-through addresses target scsi-id and LUN: the disk with scsi-id 0 is device 0, the
one with scsi-id 1 device 256. A list with an ID above 255 (which the kernel's 256-entry
PD table rules out for real firmware) is addressed that way, so both disks are watched,
and device 256 must be the disk with scsi-id 1, never drive 0 by truncation.
"""

from __future__ import annotations

from pathlib import Path

from tools.vm.prom import one, select, show
from tools.vm.boot import Scenario, until_done
from tools.vm.work import read_json, read_scrape, read_text

IMAGES = ("mr0", "mr1")
# (image, scsi-id, INQUIRY/serial properties)
DISKS = (
    ("mr0", 0, "serial=MRDISK00,vendor=SEAGATE,product=XS400LE70084"),
    ("mr1", 1, "serial=MRDISK01,vendor=SEAGATE,product=XS400LE70084"),
)


def devices(work: Path) -> list[str]:
    cmd = ["-device", "megasas-gen2,id=mr0,bus=pcie.0"]
    for image, scsi_id, props in DISKS:
        cmd += ["-blockdev", f"driver=raw,node-name={image},file.driver=file,"
                f"file.filename={work / f'{image}.img'}",
                "-device", f"scsi-hd,drive={image},bus=mr0.0,scsi-id={scsi_id},{props}"]
    return cmd


def drive(vm, drv) -> None:
    until_done(vm, drv, 90)


def check(r, share: Path) -> None:
    out = share / "megaraid"
    hosts = dict(line.split(" ", 1) for line in read_text(out / "hosts.txt").splitlines()
                 if " " in line)
    mr = [h[4:] for h, p in hosts.items() if p.strip() == "megaraid_sas"]
    if not r.check("megaraid.host", len(mr) == 1, f"megaraid/hosts.txt: {hosts}"):
        return
    host = mr[0]
    major = read_text(out / "proc-devices.txt").split()
    r.check("megaraid.node_absent_at_boot", read_text(out / "node-at-boot").strip() == "absent",
            f"node at boot: {read_text(out / 'node-at-boot').strip()!r}")
    # busybox stat prints the major and minor in hex.
    want_node = f"character special file {int(major[0]):x}:0" if major else "?"
    r.check("megaraid.node_made_by_exporter", read_text(out / "node-after").strip() == want_node,
            f"node after the exporter: {read_text(out / 'node-after').strip()!r}, want "
            f"{want_node!r} (/proc/devices: {major})")
    # The drop-in's node maker (systemd/megaraid/megaraid-node) in the same guest.
    made = dict(line.split(" ", 1) for line in read_text(out / "node-maker.txt").splitlines()
                if " " in line)
    want_made = f"{want_node} ssd_exporter 660"
    r.check("megaraid.drop_in_node_maker",
            made.get("none") == want_made and made.get("stale") == want_made,
            f"megaraid-node made {made}, want {want_made!r} over none and stale; "
            f"log: {read_text(out / 'node-maker.log').strip()!r}")
    m1, m2 = read_scrape(out / "metrics-1.txt"), read_scrape(out / "metrics-2.txt")
    if not r.check("megaraid.scrapes", bool(m1) and bool(m2),
                   "megaraid/metrics-*.txt empty (see megaraid/exporter.log)"):
        return
    log = read_text(out / "exporter.log")
    # (device ID, smartctl -d megaraid,N with N the scsi-id, serial)
    for device_id, n in ((0, 0), (256, 1)):
        _pd(r, out, f"megaraid{host}-pd{device_id}", device_id, n, m1, m2)
    r.check("megaraid.numbering_logged",
            f"host{host}: the drive list has device IDs above 255" in log,
            f"logged: {[l for l in log.splitlines() if 'above 255' in l][:1]}")


def _pd(r, out: Path, dev: str, device_id: int, n: int, m1, m2) -> None:
    name = f"pd{device_id}"
    js = read_json(out / f"pd{n}-smartctl.json")
    health = read_json(out / f"pd{n}-health.json")
    serial = js.get("serial_number")
    want_serial = DISKS[n][2].split(",")[0].split("=")[1]
    r.check(f"megaraid.{name}.oracle", serial == want_serial
            and health.get("smart_status", {}).get("passed") is True,
            f"smartctl -d megaraid,{n}: serial {serial!r} (want {want_serial!r}), "
            f"-H {health.get('smart_status')}")
    info = {"device": dev, "serial": serial, "kind": "physical",
            "model": js.get("scsi_model_name"), "firmware": js.get("scsi_revision")}
    for m, scrape in (("metrics-1", m1), ("metrics-2", m2)):
        got = one(scrape, "ssd_device_info", **info)
        near = [show(s) for s in select(scrape, "ssd_device_info", device=dev)]
        r.check(f"megaraid.{name}.device_info_as_smartctl.{m}", got is not None and got.value == 1,
                f"want ssd_device_info{info}; the exporter serves {near}")
        up = one(scrape, "ssd_device_up", device=dev, serial=serial)
        r.check(f"megaraid.{name}.up.{m}", up is not None and up.value == 1, f"ssd_device_up {up}")
    # Where the controller says it sits, as QEMU's megasas.c lists it: slot =
    # scsi-id, no enclosure (FFFFh), SAS address 0x1221 << 48 | device ID << 24.
    place = {"slot": str(n), "sas_address": f"{(0x1221 << 48) | (device_id << 24):#018x}"}
    got = one(m2, "ssd_device_info", device=dev, **place)
    r.check(f"megaraid.{name}.place_from_the_pd_list",
            got is not None and got.labels.get("enclosure") in (None, ""),
            f"want ssd_device_info{place} without enclosure; the exporter serves "
            f"{[show(s) for s in select(m2, 'ssd_device_info', device=dev)]}")
    # The logical drive (/dev/sdX, kind virtual) may carry the same serial.
    others = [s.labels.get("device") for s in select(m2, "ssd_device_info", serial=serial,
                                                   kind="physical")]
    r.check(f"megaraid.{name}.serial_only_here", others == [dev],
            f"serial {serial!r} is served for physical drives {others}, want only {dev} "
            "(a truncated target would serve drive 0's serial twice)")
    cap = one(m2, "ssd_capacity_bytes", device=dev)
    want = js.get("user_capacity", {}).get("bytes")
    r.check(f"megaraid.{name}.capacity_as_smartctl", cap is not None and cap.value == want,
            f"ssd_capacity_bytes {cap}, smartctl {want}")
    problems = sorted(s.labels.get("problem") for s in select(m2, "ssd_health_problem", device=dev))
    r.check(f"megaraid.{name}.judged", problems == ["data_missing"],
            f"problems {problems} (QEMU's disk has no log pages)")
    r.check(f"megaraid.{name}.not_probed", not select(m2, "ssd_probe_ios_total", device=dev),
            "a drive behind the controller has no block device to probe")


SCENARIO = Scenario(name="megaraid", images=IMAGES, devices=devices, drive=drive, check=check,
                    timeout=110)
