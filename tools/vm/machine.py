"""The machine of the VM test: QEMU with its devices, disk images and 9p share, its
QMP client (qemu.qmp), and the stage protocol the guest follows (`Driver`). Shared by
the main boot (`run.py`) and the other boots (`scenarios.py`).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from qemu.qmp import QMPError
from qemu.qmp.legacy import QEMUMonitorProtocol

from tools.vm.margin import margin
from tools.vm.prom import parse_exposition

IMAGE_SIZE = 64 * 1024 * 1024
# Zeros at the start of each image (no partition table for the kernel to find),
# random bytes after it, so that a write of any content changes the checksum.
IMAGE_ZERO_HEAD = 1024 * 1024


class Failure(Exception):
    """The run cannot continue (boot failed, guest hung, deadline passed)."""


def connect_qmp(path: Path, deadline: float) -> QEMUMonitorProtocol:
    """A QMP client (qemu.qmp) on QEMU's socket, capabilities negotiated, once QEMU
    has made the socket (it starts in the background); each command then waits at
    most 10 s. A command QEMU refuses raises qemu.qmp's ExecuteError (a QMPError)."""
    while True:
        qmp = QEMUMonitorProtocol(str(path))
        try:
            qmp.connect()
            qmp.settimeout(10)
            return qmp
        except (QMPError, OSError) as e:
            qmp.close()
            if time.monotonic() > deadline:
                raise Failure(f"QMP socket {path} did not come up: {e}") from e
            time.sleep(0.05)


class Vm:
    """QEMU with the devices a boot asks for, its disk images and a 9p share: the one
    machine every boot of the VM test runs (`run.py`'s main boot, `scenarios.py`'s)."""

    def __init__(self, work: Path, kernel: Path, initrd: Path, images: tuple[str, ...],
                 devices: list[str]):
        self.work = work
        self.images = images
        self.share = work / "share"
        self.serial = work / "serial.log"
        self.qmp_path = work / "qmp.sock"
        self.share.mkdir(parents=True, exist_ok=True)
        for name in images:
            with open(work / f"{name}.img", "wb") as f:
                f.write(bytes(IMAGE_ZERO_HEAD))
                f.write(os.urandom(IMAGE_SIZE - IMAGE_ZERO_HEAD))
        self.cmd = [
            "qemu-system-x86_64",
            "-accel", "tcg,thread=multi", "-cpu", "max", "-machine", "q35",
            "-nodefaults", "-display", "none", "-no-reboot", "-m", "1024", "-smp", "2",
            "-kernel", str(kernel), "-initrd", str(initrd),
            "-append", "console=ttyS0 panic=-1 quiet loglevel=4",
            "-serial", f"file:{self.serial}",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-virtfs", f"local,path={self.share},mount_tag=host,security_model=none,id=host0",
        ] + devices
        self.proc: subprocess.Popen | None = None
        self.qmp: QEMUMonitorProtocol | None = None

    def start(self, deadline: float) -> None:
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                     stdout=open(self.work / "qemu.out", "wb"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.qmp = connect_qmp(self.qmp_path, min(deadline, time.monotonic() + 10))

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_exit(self, timeout: float) -> bool:
        try:
            self.proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self) -> None:
        if self.qmp:
            self.qmp.close()
            self.qmp = None
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def print_tails(self) -> None:
        """The serial console's and the guest log's last lines, on stderr (a failed boot)."""
        print("---- serial console (tail) ----", file=sys.stderr)
        print(self.serial_tail(), file=sys.stderr)
        print("---- guest.log (tail) ----", file=sys.stderr)
        try:
            print("\n".join((self.share / "guest.log").read_text().splitlines()[-30:]),
                  file=sys.stderr)
        except OSError:
            pass

    def serial_tail(self, lines: int = 40) -> str:
        try:
            text = self.serial.read_text(errors="replace")
        except OSError:
            return "(no serial log)"
        return "\n".join(text.splitlines()[-lines:])

    def image_md5s(self) -> dict[str, str]:
        out = {}
        for name in self.images:
            h = hashlib.md5()
            with open(self.work / f"{name}.img", "rb") as f:
                while chunk := f.read(1 << 20):
                    h.update(chunk)
            out[name] = h.hexdigest()
        return out


class Driver:
    """Follows the guest through its stages: waits for .ready, acts, writes .go."""

    def __init__(self, vm: Vm, deadline: float):
        self.vm = vm
        self.share = vm.share
        self.deadline = deadline
        self._seen: dict[str, set[str]] = {}

    def _until(self, timeout: float) -> float:
        return min(self.deadline, time.monotonic() + timeout)

    def wait_ready(self, name: str, timeout: float) -> None:
        path = self.share / f"stage-{name}.ready"
        start = time.monotonic()
        end = self._until(timeout)
        while not path.exists():
            if not self.vm.alive():
                raise Failure(f"QEMU exited before the guest reached stage {name}")
            if time.monotonic() > end:
                if end >= self.deadline:
                    raise Failure(f"run deadline passed while waiting for stage {name}")
                raise Failure(f"the guest did not reach stage {name} within {timeout:.0f} s")
            time.sleep(0.05)
        took = time.monotonic() - start
        margin(f"stage {name} reached", timeout / max(took, 1e-3),
                      f"after {took:.1f} s, limit {timeout:g} s")

    def go(self, name: str) -> None:
        (self.share / f"stage-{name}.go").write_text("go\n")

    def watch(self, name: str, condition, timeout: float, stop: bool = True):
        """Read the guest's scrapes of stage `name` as they arrive until `condition`
        (samples -> bool) holds. Returns (seconds after the call or None, last samples,
        every scrape seen). With stop=False the guest goes on scraping, and the next
        watch of the same stage starts after the scrapes this one saw."""
        start = time.monotonic()
        end = self._until(timeout)
        folder = self.share / name
        seen = self._seen.setdefault(name, set())
        last: list = []
        history: list[list] = []
        try:
            while time.monotonic() < end:
                if not self.vm.alive():
                    raise Failure(f"QEMU exited during stage {name}")
                files = sorted(folder.glob("scrape-*.txt")) if folder.is_dir() else []
                for f in files:
                    if f.name in seen:
                        continue
                    seen.add(f.name)
                    text = f.read_text(errors="replace").split("\n", 1)
                    try:
                        last = parse_exposition(text[1] if len(text) > 1 else "")
                    except ValueError:
                        last = []
                    history.append(last)
                    if last and condition(last):
                        return time.monotonic() - start, last, history
                time.sleep(0.05)
            return None, last, history
        finally:
            if stop:
                (self.share / f"stage-{name}.stop").write_text("stop\n")
