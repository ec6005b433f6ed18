"""The boots of the VM test beside the main one: each a `Scenario` with its own QEMU
devices, kernel modules and guest script, run after the main boot in a folder of its
own (``<work>/<name>``), one short boot each.

A scenario ``NAME`` is three things, found by its name:

- ``tests/vm/guest/scenarios/NAME.modules``: the kernel modules its guest needs beside
  the initramfs' base list (one name a line; ``build-initramfs.sh`` puts them and their
  dependencies, in ``modprobe --show-depends`` order, into ``/etc/modules-NAME.order``);
- ``tests/vm/guest/scenarios/NAME.sh``: its guest script. ``/init`` runs it instead of
  ``main.sh`` when the share holds a file ``scenario`` naming it, after loading its
  modules;
- a `Scenario` here: the disk images and QEMU devices, what the host does while the
  guest runs, and the checks on the share afterwards.

A new boot (MegaRAID, NVMe over TCP, multipath, self-tests) adds its two guest files,
its module here in ``tools/vm/`` with one `Scenario`, and a line in `SCENARIOS`.
Python 3.11 standard library only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

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


def boot(sc: Scenario, kernel: Path, initrd: Path, work: Path, report) -> float:
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
    except (Failure, OSError) as e:
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


def _all() -> list[Scenario]:
    from tools.vm import megaraid, nvme_fabrics, sas_hba, selftest, usb
    return [sas_hba.SCENARIO, megaraid.SCENARIO, nvme_fabrics.SCENARIO, selftest.SCENARIO,
            usb.SCENARIO]


SCENARIOS: list[Scenario] = _all()


def chosen(names: list[str]) -> list[Scenario]:
    """The scenarios among `names`, in `SCENARIOS` order."""
    return [sc for sc in SCENARIOS if sc.name in names]
