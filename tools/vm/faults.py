"""Stage f: faults injected on the real kernel path while the exporter runs (issue 14,
item 5), and what must hold through each of them.

f-nvme / f-replug (QEMU's NVMe, the hot-plugged controller NVME0002 on rp2):
  the host sets a 256 B/s throttle on the controller's drive (QMP qom-set
  /objects/tg2 limits), so a 4 KiB probe read takes about 16 s; once a scrape shows
  the probe's watchdog counted that read as a timeout (probe.timeout 5 s), the host
  hot-unplugs the controller (device_del) with the read still in flight, then lifts
  the throttle once it is gone and plugs the same controller back (device_add, same
  serial and drive). Its poll (admin commands, not throttled) must go on while the read is
  stuck. The kernel's removal waits for the read QEMU holds (del_gendisk freezes the
  queue), and meanwhile the controller's admin commands fail with a host path error:
  those poll errors must be counted under their sources. When QEMU completes the read
  the removal finishes and the series must go within GONE_LIMIT; at the re-plug they come back, polled and probed again.

In every fault stage:
  - /metrics answers every scrape, each within SCRAPE_LIMIT (timed in the guest);
  - the other drives are polled on schedule (ssd_last_poll_timestamp_seconds never
    stalls longer than POLL_GAP_LIMIT) and probed (ok count rising, no error or
    timeout);
  - nothing leaks: threads and fds after the recovery (the guest waits out tokio's
    10 s blocking-thread keep-alive first) within THREAD_SLACK / FD_SLACK of before,
    and threads during the fault within THREAD_FAULT_SLACK of before;
  - no poll task restarted (ssd_exporter_task_restarts_total 0: nothing panicked).

The host's timings of the live actions go to <stage>/host-times.json, so --recheck
judges a kept run exactly as the live run did (fault_checks.py).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tools.vm.probe import scsi_blocks, scsi_disks
from tools.vm.prom import Sample, one, select

SLOW_SERIAL = "NVME0002"
SLOW_ID = "nvme2"
SLOW_BPS = 384
PROBE_BYTES = 4096
# a read issued after the throttle was set takes (4096 - 384/10) / 384 ~ 10.6 s
SLOW_READ_SECONDS = (PROBE_BYTES - SLOW_BPS / 10) / SLOW_BPS
PROBE_TIMEOUT = 5.0  # the exporter's default probe.timeout
# from the throttle to the watchdog's timeout count: probe.timeout, a Poisson gap
# (--probe.rate 50) and the guest's 0.5 s scrape cadence, under TCG
TIMEOUT_SEEN_LIMIT = 10.0
# from the read's completion (the kernel then finishes the removal) to the series gone:
# discovery runs every 1 s, the guest scrapes every 0.5 s
GONE_LIMIT = 4.0


def _gone_limit(seen: float) -> float:
    """Seconds from setting the throttle to the series gone: the stuck read was issued
    at most `seen - PROBE_TIMEOUT` after the throttle, completes SLOW_READ_SECONDS
    later, and then GONE_LIMIT."""
    return max(seen - PROBE_TIMEOUT, 0) + SLOW_READ_SECONDS + GONE_LIMIT
REPLUG_LIMIT = 12.0

SCRAPE_LIMIT = 2.0  # seconds, generous: a scrape only encodes snapshots
POLL_GAP_LIMIT = 3.5  # --poll.interval 1 s with jitter, seen through 0.5 s scrapes
THREAD_SLACK = 2
FD_SLACK = 2
# during a fault: one stuck blocking call of the faulty drive (its poll; its probe
# read stays on its own thread), plus spares the pool may start for the others
THREAD_FAULT_SLACK = 3

NVME_SURVIVORS = {"nvme0": "NVME0000", "sda": "SATA0000"}
SURVIVOR_BLOCKS = {"nvme0": "nvme0n1", "sda": "sda"}


def sas_disk(share: Path) -> str | None:
    return scsi_disks(share).get("SAS")


def survivors(share: Path, faulty: str | None) -> tuple[dict[str, str], dict[str, str]]:
    """The drives that must go on while `faulty` misbehaves: device -> serial, and
    device -> probed block."""
    drives, blocks = dict(NVME_SURVIVORS), dict(SURVIVOR_BLOCKS)
    for block, (dev, serial) in scsi_blocks(share).items():
        drives[dev], blocks[dev] = serial, block
    drives.pop(faulty, None)
    blocks.pop(faulty, None)
    return drives, blocks


# ---- live: the host's side of the stages -------------------------------------------

def _timeout_seen(samples: list[Sample]) -> bool:
    return any(s.value >= 1 for s in select(samples, "ssd_probe_ios_total", serial=SLOW_SERIAL,
                                            result="timeout"))


def _gone(samples: list[Sample]) -> bool:
    return (bool(samples) and one(samples, "ssd_exporter_devices") is not None
            and not any(s.labels.get("serial") == SLOW_SERIAL for s in samples))


def _replugged(samples: list[Sample]) -> bool:
    up = [s for s in select(samples, "ssd_device_up", serial=SLOW_SERIAL) if s.value == 1]
    ok = [s for s in select(samples, "ssd_probe_ios_total", serial=SLOW_SERIAL, result="ok")
          if s.value > 0]
    return bool(up) and bool(ok)


def _deleted(vm, dev_id: str, timeout: float) -> bool:
    """QEMU has finished the device_del (the guest acknowledged it): the id is free."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        names = {p["name"] for p in vm.qmp.cmd("qom-list", path="/machine/peripheral")}
        if dev_id not in names:
            return True
        time.sleep(0.1)
    return False


def nvme_stages(vm, drv, report) -> None:
    times: dict[str, float | bool | None] = {}
    drv.wait_ready("f-nvme", 60)
    vm.qmp.cmd("qom-set", path="/objects/tg2", property="limits",
                   value={"bps-total": SLOW_BPS})
    t0 = time.monotonic()
    drv.go("f-nvme")
    seen, _, _ = drv.watch("f-nvme", _timeout_seen, TIMEOUT_SEEN_LIMIT + 2, stop=False)
    times["timeout_seen"] = seen
    vm.qmp.cmd("device_del", id=SLOW_ID)
    times["device_del"] = time.monotonic() - t0
    # The kernel's removal waits for the read QEMU holds (lifting the limits does not
    # reschedule a queued request); meanwhile the controller's admin commands fail.
    limit = _gone_limit(seen if seen is not None else TIMEOUT_SEEN_LIMIT)
    gone, _, _ = drv.watch("f-nvme", _gone, max(1.0, limit + 2 - (time.monotonic() - t0)))
    times["series_gone"] = None if gone is None else gone + times["device_del"]
    times["qemu_deleted"] = _deleted(vm, SLOW_ID, 10)
    vm.qmp.cmd("qom-set", path="/objects/tg2", property="limits", value={"bps-total": 0})
    (drv.share / "f-nvme/host-times.json").write_text(json.dumps(times, indent=1))

    drv.wait_ready("f-replug", 60)
    if times["qemu_deleted"]:
        vm.qmp.cmd("device_add", driver="nvme", id=SLOW_ID, serial=SLOW_SERIAL,
                       drive="t2", bus="rp2")
    drv.go("f-replug")
    back, _, _ = drv.watch("f-replug", _replugged, REPLUG_LIMIT + 2)
    (drv.share / "f-replug/host-times.json").write_text(json.dumps({"replugged": back}))


# ---- live: scsi_debug's faults (the guest sets them, the host judges when to go on) --

# seconds each scsi_debug fault stays on at least, and at most
FAULT_MIN = 3.0
FAULT_MAX = {"f-medium": 10.0, "f-recovered": 10.0, "f-timeout": 16.0}
# seconds from clearing a fault to the disk polled and probed again: a read stuck in
# f-timeout ends after its retries (2 s block-layer timeout, 5 retries)
RECOVERY_LIMIT = {"f-medium": 6.0, "f-recovered": 6.0, "f-timeout": 20.0}


def _sas_ios(samples: list[Sample], sas: str, result: str) -> float:
    s = one(samples, "ssd_probe_ios_total", block=sas, op="read", result=result)
    return s.value if s is not None else 0.0


def _fault_visible(stage: str, sas: str):
    """The fault on for FAULT_MIN, and visible: f-medium probe errors, f-timeout a probe
    timeout and the disk down (its poll overran), f-recovered nothing (it is harmless)."""
    start = time.monotonic()

    def cond(samples: list[Sample]) -> bool:
        if time.monotonic() - start < FAULT_MIN:
            return False
        if stage == "f-medium":
            return _sas_ios(samples, sas, "error") >= 3
        if stage == "f-timeout":
            up = one(samples, "ssd_device_up", device=sas)
            return _sas_ios(samples, sas, "timeout") >= 1 and up is not None and up.value == 0
        return True
    return cond


def _recovered(sas: str):
    """The disk polled (up 1) and its probe reading fine again: ok count rising over two
    scrapes with no error or timeout added between them."""
    prev: list = []

    def cond(samples: list[Sample]) -> bool:
        up = one(samples, "ssd_device_up", device=sas)
        now = (_sas_ios(samples, sas, "ok"), _sas_ios(samples, sas, "error"),
               _sas_ios(samples, sas, "timeout"))
        ok = (bool(prev) and up is not None and up.value == 1 and now[0] > prev[0][0]
              and now[1:] == prev[0][1:])
        prev[:] = [now]
        return ok
    return cond


def scsi_stages(vm, drv, report, sas: str | None) -> None:
    if not sas:
        return
    for stage in ("f-medium", "f-recovered", "f-timeout"):
        times = {}
        drv.wait_ready(stage, 60)
        drv.go(stage)
        times["fault_visible"], _, _ = drv.watch(stage, _fault_visible(stage, sas),
                                                 FAULT_MAX[stage])
        drv.wait_ready(f"{stage}-after", 60)
        drv.go(f"{stage}-after")
        times["recovered"], _, _ = drv.watch(f"{stage}-after", _recovered(sas),
                                             RECOVERY_LIMIT[stage] + 2)
        (drv.share / stage / "host-times.json").write_text(json.dumps(times, indent=1))
