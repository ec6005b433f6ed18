"""The USB boot: two disks behind QEMU's xHCI controller, one bulk-only (usb-storage),
one UAS (usb-uas with a scsi-hd), watched with `discovery.usb` (on by default) and
`smartctl` in the same guest as the oracle.

QEMU's USB disks answer no ATA PASS-THROUGH and neither bridge (46f4:0001, 46f4:0003)
is in drivedb.h: they stand for a bridge that answers nothing. The bulk-only disk says
vendor QEMU (no SAT layer: nothing is sent to it); the UAS disk says vendor ATA, so the
exporter tries SAT, is refused and leaves it alone. Both must be found as USB
(`bus="usb"`, `bridge="unknown"`), served for their identity and capacity as smartctl
reads them, not judged (`ssd_health_status` 4, every aspect in `ssd_health_unknown`, no
problem; never green, never critical), with poll errors that stop growing and no probe. Then the
bulk-only disk is unplugged (QMP `device_del`): its series go, the UAS disk and the
exporter stay. Real bridges' SAT and NVMe frames are tested on replayed dumps only.
"""

from __future__ import annotations

from pathlib import Path

from tools.vm.prom import one, select
from tools.vm.boot import Scenario, until_done
from tools.vm.work import read_json, read_scrape, read_text

IMAGES = ("usb0", "usb1")
BOT_ID = "usbbot"
# ssd_health_status: 0 ok, 1 warning, 2 critical, 3 unknown, 4 not judged (docs/metrics.md).
NOT_JUDGED = 4
# The most poll errors a bridge that answers nothing may cost (poll::usb's
# MAX_UNANSWERED polls without an answer, or one refused identify).
MAX_POLL_ERRORS = 3


def devices(work: Path) -> list[str]:
    def blockdev(name: str) -> list[str]:
        return ["-blockdev", f"driver=raw,node-name={name},file.driver=file,"
                f"file.filename={work / f'{name}.img'}"]
    return (["-device", "qemu-xhci,id=xhci,bus=pcie.0"]
            + blockdev("usb0")
            + ["-device", f"usb-storage,id={BOT_ID},bus=xhci.0,drive=usb0,serial=USBBOT01"]
            + blockdev("usb1")
            + ["-device", "usb-uas,id=uas0,bus=xhci.0",
               "-device", "scsi-hd,bus=uas0.0,drive=usb1,serial=USBUAS01,vendor=ATA"])


def drive(vm, drv) -> None:
    drv.wait_ready("unplug", 120)
    assert vm.qmp is not None
    try:
        vm.qmp.cmd("device_del", id=BOT_ID)
    finally:
        drv.go("unplug")
    until_done(vm, drv, 60)


def check(r, share: Path) -> None:
    out = share / "usb"
    disks = dict(line.split("=", 1) for line in read_text(out / "disks").splitlines()
                 if "=" in line)
    bot, uas = disks.get("BOT", ""), disks.get("UAS", "")
    if not r.check("usb.disks_appeared", bool(bot) and bool(uas), f"usb/disks: {disks}"):
        return
    scrapes = [read_scrape(out / f"metrics-{i}.txt") for i in (1, 2, 3)]
    if not r.check("usb.scrapes", all(scrapes), "usb/metrics-*.txt empty (see usb/exporter.log)"):
        return
    log = read_text(out / "exporter.log").splitlines()
    for name, dev, first_line in (("bot", bot, "served from sysfs, not judged"),
                                  ("uas", uas, "trying the next way")):
        _disk(r, out, name, dev, scrapes)
        said = [l for l in log if f"/dev/{dev}" in l and first_line in l]
        r.check(f"usb.{name}.logged_once", len(said) == 1,
                f"{len(said)} log lines for /dev/{dev} with {first_line!r}: {said[:2]}")
    _unplug(r, out, bot, uas)


def _disk(r, out: Path, name: str, dev: str, scrapes) -> None:
    usb = dict(line.split(" ", 1) for line in read_text(out / f"{dev}-usb.txt").splitlines()
               if " " in line)
    r.check(f"usb.{name}.behind_usb_in_sysfs",
            "/usb" in usb.get("path", "") and usb.get("idVendor") == "46f4",
            f"sysfs: {usb}")
    sat = read_json(out / f"{dev}-sat.json").get("smartctl", {})
    r.check(f"usb.{name}.oracle_no_ata_passthrough", sat.get("exit_status", 0) != 0,
            f"smartctl -d sat -i /dev/{dev} exit status {sat.get('exit_status')}")
    js = read_json(out / f"{dev}-smartctl.json")
    serial = js.get("serial_number") or usb.get("serial")
    # smartctl -d scsi names no vendor, product or revision for a disk that says
    # vendor ATA (the UAS one): the kernel's INQUIRY copy stands in for it there.
    inquiry = f"{usb.get('inquiry_vendor', '')} {usb.get('inquiry_product', '')}"
    info = {"device": dev, "serial": serial, "transport": "scsi", "kind": "physical",
            "bus": "usb", "bridge": "unknown",
            "model": js.get("scsi_model_name") or inquiry,
            "firmware": js.get("scsi_revision") or usb.get("inquiry_revision")}
    for i, m in enumerate(scrapes[:2], 1):
        got = one(m, "ssd_device_info", **info)
        r.check(f"usb.{name}.device_info_as_smartctl.metrics-{i}",
                got is not None and got.value == 1,
                f"want ssd_device_info{info}; the exporter serves "
                f"{[str(s) for s in select(m, 'ssd_device_info', device=dev)]}")
        up = one(m, "ssd_device_up", device=dev)
        r.check(f"usb.{name}.up.metrics-{i}", up is not None and up.value == 1,
                f"ssd_device_up {up}")
    m2, m3 = scrapes[1], scrapes[2]
    cap = one(m2, "ssd_capacity_bytes", device=dev)
    want = js.get("user_capacity", {}).get("bytes")
    r.check(f"usb.{name}.capacity_as_smartctl", cap is not None and cap.value == want,
            f"ssd_capacity_bytes {cap}, smartctl {want}")
    status = one(m2, "ssd_health_status", device=dev)
    problems = sorted(s.labels.get("problem") for s in select(m2, "ssd_health_problem", device=dev))
    unknown = sorted(s.labels.get("data") for s in select(m2, "ssd_health_unknown", device=dev))
    r.check(f"usb.{name}.not_judged",
            status is not None and status.value == NOT_JUDGED and not problems
            and len(unknown) == 8,
            f"ssd_health_status {status} (want {NOT_JUDGED}, not judged), problems {problems}, "
            f"unknown {unknown} (want all eight aspects)")
    errors = [sum(s.value for s in select(m, "ssd_poll_errors_total", device=dev))
              for m in (m2, m3)]
    r.check(f"usb.{name}.poll_errors_bounded",
            errors[0] == errors[1] and errors[1] <= MAX_POLL_ERRORS,
            f"poll errors {errors[0]:g} then {errors[1]:g} three polls later "
            f"(at most {MAX_POLL_ERRORS}, not growing)")
    r.check(f"usb.{name}.not_probed", not select(m3, "ssd_probe_ios_total", device=dev),
            "a disk behind USB is probed only where probe.device names it")


def _unplug(r, out: Path, bot: str, uas: str) -> None:
    gone = read_text(out / "unplug-gone").split()
    r.check("usb.unplug.series_removed", gone[:1] == ["1"],
            f"the unplugged disk {bot}'s series still served (usb/unplug-gone: {gone})")
    m4 = read_scrape(out / "metrics-4.txt")
    up = one(m4, "ssd_device_up", device=uas)
    r.check("usb.unplug.other_disk_stays", up is not None and up.value == 1,
            f"ssd_device_up of {uas} after the unplug: {up}")
    r.check("usb.unplug.exporter_alive", (out / "exporter-alive").exists(),
            "the exporter process was gone after the unplug")


SCENARIO = Scenario(name="usb", images=IMAGES, devices=devices, drive=drive, check=check,
                    timeout=200)
