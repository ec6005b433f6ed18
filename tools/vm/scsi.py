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

QEMU's scsi-hd reports vendor "QEMU": a virtual disk to the exporter (issue 21), served
with `kind="virtual"` and its identity only (no log page, no defect list asked, never
judged). main.sh names it in `--probe.device`, so it is still probed (the one way a
virtual disk is). scsi_debug's disk (vendor SEAGATE) is a physical SAS drive.
"""

from __future__ import annotations

from pathlib import Path

from tools.vm.probe import scsi_disks
from tools.vm.prom import Sample, one, parse_exposition, select, show
from tools.vm.replay import replay_equals_live
from tools.vm.work import read_json

# what run.py gives QEMU's scsi-hd, and what tests/vm/guest/lib.sh gives scsi_debug
VSCSI = {"scsi_vendor": "QEMU", "scsi_product": "QEMU SCSI TEST", "serial_number": "VSCSI0000",
         "logical_unit_id": "0x5000c50015ea71ad"}
SAS = {"scsi_vendor": "SEAGATE", "scsi_product": "XS800LE10003"}
CAPACITY = 64 * 1024 * 1024


def harness(r, share: Path) -> None:
    """Both SCSI disks are there, and smartctl sees them as the harness made them."""
    disks = scsi_disks(share)
    vs, sas = disks.get("VSCSI"), disks.get("SAS")
    if not r.check("scsi.disks_present", bool(vs) and bool(sas) and vs != sas
                   and "sda" not in (vs, sas),
                   f"env/scsi-disks: {disks} (want two disks other than sda)"):
        return
    for name, disk, want in (("vscsi", vs, VSCSI), ("sas", sas, SAS)):
        js = read_json(share / f"env/smartctl-{disk}.json")
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


# ---- stage a: the exporter's series against smartctl's JSON --------------------------

def _load(path: Path) -> list[Sample] | None:
    try:
        return parse_exposition(path.read_text())
    except (OSError, ValueError):
        return None


def _expectations(name: str, js: dict, js_a: dict) -> list[tuple[str, dict, float | None]]:
    """(metric, labels, value) the exporter must serve for the disk, from smartctl;
    value None: the exporter must serve no such series (smartctl has none either)."""
    lun = str(js.get("logical_unit_id", ""))
    wwn = f"naa.{lun[2:].lower()}" if lun.startswith("0x") else ""
    info = {"transport": "sas" if name == "sas" else "scsi",
            "kind": "physical" if name == "sas" else "virtual",
            "model": js.get("scsi_model_name", ""), "firmware": js.get("scsi_revision", ""),
            "wwn": wwn}
    e: list[tuple[str, dict, float | None]] = [
        ("ssd_device_info", info, 1),
        ("ssd_capacity_bytes", {}, js.get("user_capacity", {}).get("bytes")),
        ("ssd_device_up", {}, 1),
    ]
    # log page 0Dh as smartctl -A reads it; 0 (or absent) when the disk has none. The
    # reference temperature ("drive trip") is the warning level: SPC-5's highest
    # temperature for continuous operation; SCSI has no critical level
    temp = js_a.get("temperature", {})
    e.append(("ssd_temperature_celsius", {"sensor": "composite"}, temp.get("current") or None))
    e.append(("ssd_temperature_threshold_celsius", {"level": "warning"},
              temp.get("drive_trip") or None))
    e.append(("ssd_temperature_threshold_celsius", {"level": "critical"}, None))
    # log page 2Fh (informational exceptions): absent on QEMU's disk
    status = js.get("smart_status")
    e.append(("ssd_smart_passed", {}, None if status is None else int(bool(status["passed"]))))
    return e


def equality(r, share: Path) -> None:
    """Identity, capacity, temperature and health of both SCSI disks equal smartctl's
    (run between the two scrapes: none of these values moves)."""
    disks = scsi_disks(share)
    a = share / "a"
    m1, m2 = _load(a / "metrics-1.txt"), _load(a / "metrics-2.txt")
    if not r.check("scsi.equality_scrapes", bool(m1) and bool(m2) and len(disks) == 2,
                   f"a/metrics-1.txt, a/metrics-2.txt or env/scsi-disks ({disks}) missing"):
        return
    for name, key in (("vscsi", "VSCSI"), ("sas", "SAS")):
        dev = disks[key]
        js, js_a = read_json(a / f"{dev}-smartctl.json"), read_json(a / f"{dev}-smartctl-A.json")
        serial = js.get("serial_number")
        if not r.check(f"scsi.{name}.smartctl_json", bool(js) and bool(serial),
                       f"smartctl -j -x /dev/{dev} gave no JSON with a serial (a/{dev}-smartctl.*)"):
            continue
        for metric, labels, want in _expectations(name, js, js_a):
            full = {"device": dev, "serial": serial, **labels}
            s1, s2 = one(m1, metric, **full), one(m2, metric, **full)
            cname = f"scsi.{name}.{metric}"
            if want is None:
                got = [show(s) for m in (m1, m2) for s in select(m, metric, device=dev, **labels)]
                r.check(cname + "_absent", not got,
                        f"smartctl has no value; the exporter serves {got[:2]}")
            elif s1 is None or s2 is None:
                near = [show(s) for s in select(m2, metric, device=dev)]
                r.check(cname, False, f"no {metric}{full}; for {dev}: {near[:3]}")
            else:
                r.check(cname, s1.value == want and s2.value == want,
                        f"exporter {s1.value:g} / {s2.value:g}, smartctl {want}")
        # smartctl prints a grown defect list only when READ DEFECT DATA (12, else 10)
        # answered; the exporter asks (12) first and (10) only when (12) is unsupported.
        # A virtual disk is asked neither.
        has_defects = "scsi_grown_defect_list" in js
        pages = {p: one(m2, "ssd_page_supported", device=dev, page=p)
                 for p in ("scsi_defects_12", "scsi_defects")}
        asked = {p: s.value for p, s in pages.items() if s is not None}
        if name == "vscsi":
            r.check(f"scsi.{name}.defects_not_asked", not asked,
                    f"a virtual disk's defect list was asked: {asked}")
            continue
        answered = any(v == 1 for v in asked.values())
        r.check(f"scsi.{name}.defects_support_as_smartctl",
                "scsi_defects_12" in asked and answered == has_defects,
                f"ssd_page_supported of the defect pages {asked}; smartctl "
                f"{'has' if has_defects else 'has no'} scsi_grown_defect_list")


def transports(r, share: Path) -> None:
    """Each disk driven by its own transport: the AHCI disk stays sata (ATA pages
    only), scsi_debug is sas and QEMU's scsi-hd scsi (SCSI pages only)."""
    disks = scsi_disks(share)
    m = _load(share / "a/metrics-2.txt") or []
    want = {"nvme0": "nvme", "sda": "sata", disks.get("VSCSI"): "scsi", disks.get("SAS"): "sas"}
    for dev, transport in want.items():
        info = select(m, "ssd_device_info", device=dev)
        got = [s.labels.get("transport") for s in info]
        r.check(f"scsi.transport.{dev}", got == [transport],
                f"ssd_device_info{{device=\"{dev}\"}} transport {got}, want {transport}")
        pages = {s.labels.get("page") for s in select(m, "ssd_page_supported", device=dev)}
        sources = {s.labels.get("source") for s in select(m, "ssd_poll_errors_total", device=dev)
                   if s.value}
        if transport in ("sas", "scsi"):
            wrong = sorted(p for p in pages | sources if not p.startswith("scsi_"))
        elif transport == "sata":
            wrong = sorted(p for p in pages | sources if p.startswith("scsi_"))
        else:
            continue
        r.check(f"scsi.transport.{dev}_pages", bool(pages) and not wrong,
                f"pages/error sources of another transport: {wrong}; pages {sorted(pages)}")


def missing_pages(r, share: Path) -> None:
    """A page the disk lacks is ssd_page_supported 0, counted as no error, and the rest
    is served: from a/metrics-1 to d/metrics-after (>= 10 polls) no SCSI disk's poll
    error count moves and every scrape has it up."""
    disks = scsi_disks(share)
    first, last = _load(share / "a/metrics-1.txt"), _load(share / "d/metrics-after.txt")
    if not r.check("scsi.missing_pages_scrapes", bool(first) and bool(last),
                   "a/metrics-1.txt or d/metrics-after.txt missing"):
        return
    for key, dev in sorted(disks.items()):
        pages = select(last, "ssd_page_supported", device=dev)
        unsupported = sorted(s.labels.get("page") for s in pages if s.value == 0)
        if key == "VSCSI":
            # a virtual disk: identity pages only, so nothing it lacks is asked
            identity = ("scsi_inquiry", "scsi_vpd_", "scsi_read_capacity")
            others = sorted(s.labels.get("page") for s in pages
                            if not s.labels.get("page").startswith(identity))
            r.check(f"scsi.{dev}.virtual_disk_identity_pages_only", bool(pages) and not others,
                    f"pages asked beside the identity pages: {others}")
            unsupported = ["(none asked)"]
        p0 = one(first, "ssd_polls_total", device=dev)
        p1 = one(last, "ssd_polls_total", device=dev)
        polls = (p1.value - p0.value) if p0 and p1 else 0
        e0 = {s.labels.get("source"): s.value for s in select(first, "ssd_poll_errors_total", device=dev)}
        e1 = {s.labels.get("source"): s.value for s in select(last, "ssd_poll_errors_total", device=dev)}
        grown = {k: v - e0.get(k, 0) for k, v in e1.items() if v != e0.get(k, 0)}
        print(f"  ({dev}: unsupported {unsupported}; {polls:g} polls from a/metrics-1 to "
              f"d/metrics-after)", flush=True)
        r.check(f"scsi.{dev}.missing_pages_not_counted_as_errors",
                bool(unsupported) and polls >= 5 and not grown,
                f"poll errors grew by {grown} over {polls:g} polls; unsupported pages "
                f"{unsupported} (want some: scsi_debug has no defect list)")


# ---- stage d: dump in the guest, replay on the host ----------------------------------

# the files of device-dumps.md each disk must have, by the pages it answers
DUMP_FILES = {
    "VSCSI": ["inquiry.bin", "read-capacity-16.bin", "vpd-00.bin", "vpd-80.bin", "vpd-83.bin"],
    "SAS": ["inquiry.bin", "read-capacity-16.bin", "vpd-00.bin", "vpd-80.bin", "vpd-83.bin",
            "log-00.bin", "log-0d.bin", "log-2f.bin"],
}


def dump_and_replay(r, share: Path, exporter: Path) -> None:
    for key, dev in sorted(scsi_disks(share).items()):
        d, dump = share / "d", share / "dump" / dev
        rc = (d / f"dump-{dev}.rc").read_text().strip() if (d / f"dump-{dev}.rc").exists() else "?"
        files = sorted(p.name for p in dump.iterdir()) if dump.is_dir() else []
        missing = [f for f in DUMP_FILES.get(key, []) if f not in files]
        ata = [f for f in files if f in ("identify.bin", "smart-data.bin")]
        if not r.check(f"dump_{dev}", rc == "0" and not missing and not ata,
                       f"exit status {rc}; missing {missing}; ATA files {ata}; has {files} "
                       f"(see d/dump-{dev}.out)"):
            continue
        replay_equals_live(r, share, exporter, dev, f"{dev}.", frozenset())


# smartctl -x's words for a log page the disk lacks, and the series the exporter
# derives from that page alone (then it must serve none of them)
LACKS = (
    ("Error Counter logging not supported",
     ("ssd_scsi_errors_corrected_total", "ssd_scsi_errors_uncorrected_total",
      "ssd_host_read_bytes_total", "ssd_host_written_bytes_total", "ssd_media_errors_total")),
    ("Device does not support Self Test logging", ("ssd_self_test_last_result",)),
    ("Device does not support Background scan results logging", ("ssd_power_on_seconds_total",)),
)
# lines smartctl -x prints only when the page is there (scsiprint.cpp)
ONLY_WITH = (
    ("Percentage used endurance indicator", ("ssd_percentage_used_ratio",)),
    ("Non-medium error count", ("ssd_scsi_non_medium_errors_total",)),
    ("Accumulated start-stop cycles", ("ssd_scsi_start_stop_cycles_total",)),
)


def lacking_pages_absent(r, share: Path) -> None:
    """Where smartctl -x says the disk lacks a log page, the exporter serves none of
    that page's series, while the rest of the disk is served (up 1)."""
    m = _load(share / "a/metrics-2.txt") or []
    for key, dev in sorted(scsi_disks(share).items()):
        try:
            text = (share / f"a/{dev}-smartctl-x.txt").read_text(errors="replace")
        except OSError:
            r.check(f"scsi.{dev}.lacking_pages_absent", False, f"no a/{dev}-smartctl-x.txt")
            continue
        rules = [(phrase, names) for phrase, names in LACKS if phrase in text]
        rules += [(f"no '{phrase}'", names) for phrase, names in ONLY_WITH if phrase not in text]
        served = {}
        for phrase, names in rules:
            got = [show(s) for n in names for s in select(m, n, device=dev)]
            if got:
                served[phrase] = got[:2]
        up = one(m, "ssd_device_up", device=dev)
        r.check(f"scsi.{dev}.lacking_pages_absent",
                len(rules) >= 3 and not served and up is not None and up.value == 1,
                f"{len(rules)} pages smartctl says are missing; series served anyway: {served}; "
                f"up {up}")
