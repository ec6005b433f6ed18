"""The self-test boot: scheduled self-tests against the real kernel. QEMU's AHCI disk
runs SMART EXECUTE OFF-LINE IMMEDIATE (a short test completes at once) and keeps a
self-test log, which smartctl reads as the oracle; scsi_debug answers SEND DIAGNOSTIC
and has no self-test log page (so its slot is held for the test's interval). The
guest (tests/vm/guest/scenarios/selftest.sh) runs the exporter with a 4 s schedule and
concurrency 1 (run A), then twice with a 1 h schedule and one state file (runs B1, B2).
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.vm.prom import one, parse_exposition
from tools.vm.boot import Scenario, until_done
from tools.vm.work import read_json, read_scrape, read_text


def devices(work: Path) -> list[str]:
    return ["-blockdev", f"driver=raw,node-name=s0,file.driver=file,"
            f"file.filename={work / 'sata0.img'}",
            "-device", "ide-hd,bus=ide.0,drive=s0,serial=SATA0000,model=QEMU SATA TEST"]


def drive(vm, drv) -> None:
    until_done(vm, drv, 90)


EVENT = re.compile(r'msg="scheduled self-test (started|ended)')
DEVICE = re.compile(r'\bdevice=(\S+)')


def events(log: str) -> list[tuple[str, str]]:
    """`(started|ended, device)` in log order."""
    out = []
    for line in log.splitlines():
        e, d = EVENT.search(line), DEVICE.search(line)
        if e and d:
            out.append((e.group(1), d.group(1).strip('"')))
    return out


def most_at_once(evs: list[tuple[str, str]]) -> int:
    running: set[str] = set()
    most = 0
    for what, dev in evs:
        if what == "started":
            running.add(dev)
            most = max(most, len(running))
        else:
            running.discard(dev)
    return most


def read_timed(path: Path) -> list:
    """A `timed_scrape` file's exposition (its first line is the guest's clock)."""
    try:
        return parse_exposition(path.read_text().split("\n", 1)[1])
    except (OSError, ValueError, IndexError):
        return []


def _table(js: dict) -> list[dict]:
    return js.get("ata_smart_self_test_log", {}).get("standard", {}).get("table", []) or []


def _started(scrape, dev: str) -> float | None:
    s = one(scrape, "ssd_self_tests_started_total", device=dev, type="short")
    return None if s is None else s.value


def check(r, share: Path) -> None:
    out = share / "selftest"
    disks = dict(line.split("=", 1) for line in read_text(out / "disks").splitlines()
                 if "=" in line)
    sata, sas = disks.get("SATA", ""), disks.get("SAS", "")
    if not r.check("selftest.disks_present", bool(sata) and bool(sas),
                   f"selftest/disks: {disks} (want the AHCI and the scsi_debug disk)"):
        return
    evs = events(read_text(out / "a.log"))
    starts = {d: sum(1 for w, x in evs if w == "started" and x == d) for d in (sata, sas)}
    r.check("selftest.started_on_each_drive", all(n >= 1 for n in starts.values()),
            f"'scheduled self-test started' lines per drive in selftest/a.log: {starts}")
    r.check("selftest.never_two_at_once", most_at_once(evs) == 1,
            f"at most {most_at_once(evs)} drives testing at once (concurrency 1): {evs}")
    # Both drives due every 4 s for 16 s: they must have taken turns, several times.
    r.check("selftest.took_turns", sum(starts.values()) >= 4,
            f"{sum(starts.values())} starts in 16 s (want >= 4, alternating): {evs}")
    scrapes = sorted(out.glob("a-*.txt"))
    last = read_timed(scrapes[-1]) if scrapes else []
    for dev in (sata, sas):
        got = _started(last, dev)
        r.check(f"selftest.counter.{dev}", got is not None and 1 <= got <= starts[dev],
                f"ssd_self_tests_started_total{{device={dev},type=short}} {got}; "
                f"log starts {starts[dev]}")
    # QEMU's disk ends a short test at once: byte 363 reads 0 at every poll.
    flags = [one(read_timed(s), "ssd_self_test_in_progress", device=sata) for s in scrapes]
    seen = [f.value for f in flags if f is not None]
    r.check("selftest.in_progress_served", bool(seen) and set(seen) == {0.0},
            f"ssd_self_test_in_progress{{device={sata}}} over {len(scrapes)} scrapes: {seen}")
    before, after = (_table(read_json(out / f)) for f in ("selftest-before.json",
                                                           "selftest-after.json"))
    new = len(after) - len(before)
    kinds = {e.get("type", {}).get("string", "") for e in after[:max(new, 0)]}
    r.check("selftest.smartctl_sees_the_tests", new == starts[sata] and new >= 1
            and all("Short" in k for k in kinds),
            f"smartctl -l selftest /dev/{sata}: {len(before)} -> {len(after)} entries "
            f"({kinds}); the exporter started {starts[sata]}")
    b1, b2 = read_scrape(out / "b1.txt"), read_scrape(out / "b2.txt")
    for dev in (sata, sas):
        first, second = _started(b1, dev), _started(b2, dev)
        r.check(f"selftest.restart_remembers.{dev}", first == 1 and second == 0,
                f"started_total run B1 {first}, B2 {second} (want 1 then 0: the state "
                "file's last run is within the 1 h schedule)")
        t1 = one(b1, "ssd_self_test_last_run_timestamp_seconds", device=dev)
        t2 = one(b2, "ssd_self_test_last_run_timestamp_seconds", device=dev)
        r.check(f"selftest.last_run_restored.{dev}", t1 is not None and t2 is not None
                and abs(t1.value - t2.value) < 0.01, f"last run B1 {t1}, B2 {t2}")


SCENARIO = Scenario(name="selftest", images=("sata0",), devices=devices, drive=drive,
                    check=check, timeout=150)
