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
- a `Scenario` (``tools.vm.boot``) in its own module in ``tools/vm/``: the disk images
  and QEMU devices, what the host does while the guest runs, and the checks on the
  share afterwards.

A new boot (MegaRAID, NVMe over TCP, multipath, self-tests) adds its two guest files,
its module in ``tools/vm/`` with one `Scenario`, and a line in `SCENARIOS` here. Its
module imports ``tools.vm.boot``, never this one: this list imports every boot's module.
"""

from __future__ import annotations

from tools.vm import megaraid, nvme_fabrics, sas_hba, selftest, usb
from tools.vm.boot import Scenario

SCENARIOS: list[Scenario] = [sas_hba.SCENARIO, megaraid.SCENARIO, nvme_fabrics.SCENARIO,
                             selftest.SCENARIO, usb.SCENARIO]


def chosen(names: list[str]) -> list[Scenario]:
    """The scenarios among `names`, in `SCENARIOS` order."""
    return [sc for sc in SCENARIOS if sc.name in names]
