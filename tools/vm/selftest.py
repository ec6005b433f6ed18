"""The self-test boot: scheduled self-tests against the real kernel. QEMU's AHCI disk
runs SMART EXECUTE OFF-LINE IMMEDIATE (a short test completes at once) and keeps a
self-test log, which smartctl reads as the oracle; scsi_debug answers SEND DIAGNOSTIC
and has no self-test log page (so its slot is held for the test's interval). The
guest (tests/vm/guest/scenarios/selftest.sh) runs the exporter with a 4 s schedule and
concurrency 1 (run A); with a 1 h schedule and no state file for 5 s (run C); then, with one state file, a 4 s schedule that tests both drives
(run B0), the guest's clock set 2 h on, and twice a 1 h schedule (runs B1, B2): the
saved runs are 2 h old, so both drives are due in B1, and B1's runs are remembered in B2.
"""

from __future__ import annotations

import hashlib
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
    _check_spread(r, out, (sata, sas))
    _check_restart(r, out, (sata, sas))


HOUR_MS = 3_600_000


def place_ms(serial: str) -> int:
    """Where in each hour (counted from the Unix epoch) a drive never tested is first
    due: the first 8 bytes of its serial's SHA-256, big-endian, modulo the hour."""
    return int.from_bytes(hashlib.sha256(serial.encode()).digest()[:8], "big") % HOUR_MS


def _check_spread(r, out: Path, devs: tuple[str, str]) -> None:
    """Run C: a drive never tested starts only at its place in the hour. The window is
    the guest's clock at the exporter's start to the scrape's, a second of slack each side
    (the clock has whole seconds); a place that close to its edge accepts either."""
    start = _clock(out / "c-start")
    try:
        end = int(read_text(out / "c.txt").split(" ", 1)[0])
    except ValueError:
        end = None
    scrape = read_timed(out / "c.txt")
    for dev in devs:
        s = one(scrape, "ssd_self_tests_started_total", device=dev, type="short")
        # A drive without a serial is placed by its kernel name.
        serial = (s.labels.get("serial") or dev) if s is not None else ""
        if start is None or end is None or s is None:
            r.check(f"selftest.first_run_spread.{dev}", False,
                    f"run C: start {start}, scrape clock {end}, started_total {s}")
            continue
        at = place_ms(serial)
        wide = (end + 1 - start) * 1000
        until = (at - start * 1000) % HOUR_MS  # from the window's start to the next due
        near = until <= 2000 or until >= HOUR_MS - 2000 or abs(until - wide) <= 2000
        ok = s.value in (0.0, 1.0) if near else s.value == (1.0 if until <= wide else 0.0)
        r.check(f"selftest.first_run_spread.{dev}", ok,
                f"run C (1 h, never tested): started_total {s.value} in [{start}, {end}] s; "
                f"serial {serial!r} is due {at / 1000:.1f} s into each hour")


def _clock(path: Path) -> int | None:
    try:
        return int(read_text(path).strip())
    except ValueError:
        return None


def _check_restart(r, out: Path, devs: tuple[str, str]) -> None:
    """Runs B0-B2: the runs B0 saved make both drives due in B1 once the clock is 2 h
    on (a drive never tested would wait for its place in the hour); B2 remembers B1's."""
    before, after = _clock(out / "clock-before-step"), _clock(out / "clock-after-step")
    stepped = before is not None and after is not None and 7200 <= after - before <= 7260
    r.check("selftest.clock_stepped", stepped,
            f"guest clock {before} -> {after} around `date -s` (want +2 h)")
    b0, b1, b2 = (read_scrape(out / f"b{n}.txt") for n in range(3))
    for dev in devs:
        seeded = _started(b0, dev)
        r.check(f"selftest.state_seeded.{dev}", seeded is not None and seeded >= 1,
                f"started_total run B0 {seeded} (want >= 1: a run saved in the state file)")
        first, second = _started(b1, dev), _started(b2, dev)
        t1 = one(b1, "ssd_self_test_last_run_timestamp_seconds", device=dev)
        t2 = one(b2, "ssd_self_test_last_run_timestamp_seconds", device=dev)
        r.check(f"selftest.restart_remembers.{dev}", first == 1 and second == 0,
                f"started_total run B1 {first}, B2 {second} (want 1 then 0: the state "
                "file's run from B0 is 2 h old, B1's is within the 1 h schedule)")
        r.check(f"selftest.last_run_restored.{dev}", t1 is not None and t2 is not None
                and after is not None and t1.value >= after - 1
                and abs(t1.value - t2.value) < 0.01,
                f"last run B1 {t1}, B2 {t2} (want B1's own run, after the step at {after}, "
                "restored in B2)")


SCENARIO = Scenario(name="selftest", images=("sata0",), devices=devices, drive=drive,
                    check=check, timeout=150)
