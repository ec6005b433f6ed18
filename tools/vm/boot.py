"""One boot of the VM test beside the main one: what a `Scenario` is (its QEMU
devices and disk images, the host's side while the guest runs, its checks and its
deadline) and how it is run (`run`). Each boot's module (``sas_hba``, ``megaraid``,
``nvme_fabrics``, ``selftest``) makes one `Scenario`; ``tools.vm.scenarios`` lists
them. This module names none of them, so they import it without a cycle.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from qemu.qmp import QMPError

from tools.vm.machine import Driver, Failure, Vm


@dataclass(frozen=True)
class Scenario:
    name: str
    """Names the guest files and the work folder; check names start with it."""
    images: tuple[str, ...]
    """Disk images made in the work folder (``<name>.img``, 64 MiB)."""
    devices: Callable[[Path], list[str]]
    """QEMU arguments (``-device``, ``-blockdev``) given the work folder."""
    drive: Callable[[Vm, Driver], None]
    """The host side while the guest runs (QMP actions at its stages); raises
    `Failure` when stuck."""
    check: Callable[[object, Path], None]
    """The checks on the share once QEMU is gone: ``check(report, share)``."""
    timeout: float
    """Deadline of the whole boot, in seconds."""


def until_done(vm: Vm, drv: Driver, timeout: float) -> None:
    """The host side of a scenario whose guest needs no action: wait for its last stage
    (``done``), let it power off."""
    drv.wait_ready("done", timeout)
    drv.go("done")
    if not vm.wait_exit(15):
        raise Failure("the guest did not power off")


def run(sc: Scenario, kernel: Path, initrd: Path, work: Path, report) -> float:
    """Runs `sc` in `work` (made empty first) and its checks; the boot's wall time."""
    work.mkdir(parents=True, exist_ok=True)
    vm = Vm(work, kernel, initrd, sc.images, sc.devices(work))
    (vm.share / "scenario").write_text(f"{sc.name}\n")
    started = time.monotonic()
    drv = Driver(vm, started + sc.timeout)
    try:
        vm.start(drv.deadline)
        sc.drive(vm, drv)
        report.check(f"{sc.name}.vm_run", True)
    except (Failure, QMPError, OSError) as e:
        report.check(f"{sc.name}.vm_run", False, str(e))
        vm.print_tails()
    finally:
        vm.kill()
    seconds = time.monotonic() - started
    try:
        sc.check(report, vm.share)
    except Exception as e:  # a half-written share after a failed boot
        report.check(f"{sc.name}.offline_checks", False, f"{type(e).__name__}: {e}")
    print(f"  ({sc.name}: {seconds:.1f} s of VM wall time)", flush=True)
    return seconds
