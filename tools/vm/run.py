"""Boot the test guest under QEMU and check ssd_exporter against nvme-cli.

    python3 -m tools.vm.run --kernel VMLINUZ --initrd INITRD --exporter HOST_BINARY [--bench]

The guest (tests/vm/guest/main.sh) runs the exporter next to nvme-cli and writes
everything it sees into a 9p share; this script drives the emulated hardware over QMP
at the points the guest asks for (stage-<name>.ready -> action -> stage-<name>.go),
then compares the files. Every wait has a deadline; the whole run has one too, and
QEMU is killed on any failure. Output: one "PASS name" / "FAIL name: detail" line per
check and a final "N passed, M failed"; exit status 0 only if nothing failed.
Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tools.vm import checks, faults
from tools.vm.prom import parse_exposition
from tools.vm.work import work_folder

IMAGE_SIZE = 64 * 1024 * 1024
# Zeros at the start of each image (no partition table for the kernel to find),
# random bytes after it, so that a write of any content changes the checksum.
IMAGE_ZERO_HEAD = 1024 * 1024
IMAGES = ("nvme0", "nvme1", "nvme2", "sata0", "vscsi0")
# QEMU's plain SCSI disk (scsi-hd on virtio-scsi-pci): identity smartctl must report.
VSCSI = {"serial": "VSCSI0000", "vendor": "QEMU", "product": "QEMU SCSI TEST",
         "wwn": "0x5000c50015ea71ad"}


class Failure(Exception):
    """The run cannot continue (boot failed, guest hung, deadline passed)."""


class Qmp:
    """A minimal QMP client: one command at a time, events are skipped."""

    def __init__(self, path: Path, deadline: float):
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(str(path))
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise Failure(f"QMP socket {path} did not come up")
                time.sleep(0.05)
        self.sock.settimeout(10)
        self.buf = b""
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self) -> dict:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Failure("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def execute(self, cmd: str, **args) -> object:
        msg = {"execute": cmd}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:
                continue
            if "error" in reply:
                raise Failure(f"QMP {cmd} {args}: {reply['error']}")
            return reply.get("return")

    def close(self) -> None:
        self.sock.close()


class Vm:
    """QEMU with two NVMe controllers (own root ports + a spare), AHCI disk, 9p share."""

    def __init__(self, work: Path, kernel: Path, initrd: Path):
        self.work = work
        self.share = work / "share"
        self.serial = work / "serial.log"
        self.qmp_path = work / "qmp.sock"
        self.share.mkdir(parents=True, exist_ok=True)
        for name in IMAGES:
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
        ]
        for i in range(3):
            self.cmd += ["-device", f"pcie-root-port,id=rp{i},bus=pcie.0,chassis={i + 1},slot={i + 1}"]
            self.cmd += ["-blockdev", f"driver=raw,node-name=n{i},file.driver=file,"
                         f"file.filename={work / f'nvme{i}.img'}"]
        # nvme2's drive and port stay unused until the hot-plug stage. Its drive sits
        # behind a throttle filter whose group (tg2) has no limits until stage f-nvme
        # sets one at run time (QMP qom-set /objects/tg2 limits), making its reads slow.
        self.cmd += ["-object", "throttle-group,id=tg2",
                     "-blockdev", "driver=throttle,node-name=t2,throttle-group=tg2,file=n2"]
        for i in range(2):
            self.cmd += ["-device", f"nvme,id=nvme{i},serial=NVME000{i},drive=n{i},bus=rp{i}"]
        self.cmd += [
            "-blockdev", f"driver=raw,node-name=s0,file.driver=file,file.filename={work / 'sata0.img'}",
            "-device", "ide-hd,bus=ide.0,drive=s0,serial=SATA0000,model=QEMU SATA TEST",
            # a plain SCSI disk on another HBA driver (virtio_scsi, loaded late by the guest);
            # rotation_rate=1: non-rotating, as an SSD reports it (VPD B1h)
            "-device", "virtio-scsi-pci,id=vscsi0,bus=pcie.0",
            "-blockdev", f"driver=raw,node-name=v0,file.driver=file,file.filename={work / 'vscsi0.img'}",
            "-device", f"scsi-hd,bus=vscsi0.0,drive=v0,serial={VSCSI['serial']},"
                       f"vendor={VSCSI['vendor']},product={VSCSI['product']},wwn={VSCSI['wwn']},"
                       "rotation_rate=1",
        ]
        self.proc: subprocess.Popen | None = None
        self.qmp: Qmp | None = None

    def start(self, deadline: float) -> None:
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                     stdout=open(self.work / "qemu.out", "wb"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.qmp = Qmp(self.qmp_path, min(deadline, time.monotonic() + 10))

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

    def serial_tail(self, lines: int = 40) -> str:
        try:
            text = self.serial.read_text(errors="replace")
        except OSError:
            return "(no serial log)"
        return "\n".join(text.splitlines()[-lines:])

    def image_md5s(self) -> dict[str, str]:
        out = {}
        for name in IMAGES:
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
        checks.margin(f"stage {name} reached", timeout / max(took, 1e-3),
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


def run_vm(vm: Vm, drv: Driver, bench: bool, report: checks.Report) -> None:
    """Boot, follow the scenario, act on the hardware. Raises Failure when stuck."""
    vm.start(drv.deadline)
    # Stage limits: 3x the slowest of two runs on a 2-core machine under a load
    # average of 13-20 from other builds (boot 68 / 88 s, a 43 / 33 s, d 18 /
    # 24 s, done 39 s); the run deadline likewise (245 / 292 s). Each run
    # prints its margins.
    drv.wait_ready("boot", 270)
    report.nvme_cli_sanity(vm.share)
    drv.go("boot")

    drv.wait_ready("a", 130)
    serving = (vm.share / "exporter-ready").read_text().strip() == "ok"
    report.check("exporter_serves_every_drive", serving,
                 "no ssd_device_up 1 for nvme0, nvme1, sda and the two SCSI disks within 30 s "
                 "(see exporter.log)")
    drv.go("a")
    # Watch up to the check's limit and a little more; don't wait for a dead exporter.
    def wt(limit: float) -> float:
        return limit + 2 if serving else 1.0

    drv.wait_ready("b-set", 30)
    vm.qmp.execute("qom-set", path="/machine/peripheral/nvme0",
                   property="smart_critical_warning", value=0x4)
    drv.go("b-set")
    report.critical_set(*drv.watch("b-set", checks.reliability_is(1), wt(checks.CRITICAL_LIMIT)))
    drv.wait_ready("b-clear", 30)
    vm.qmp.execute("qom-set", path="/machine/peripheral/nvme0",
                   property="smart_critical_warning", value=0)
    drv.go("b-clear")
    report.critical_cleared(*drv.watch("b-clear", checks.reliability_is(0), wt(checks.CRITICAL_LIMIT)))

    drv.wait_ready("c-unplug", 30)
    vm.qmp.execute("device_del", id="nvme1")
    drv.go("c-unplug")
    report.unplugged(*drv.watch("c-unplug", checks.unplugged, wt(checks.UNPLUG_LIMIT)))
    drv.wait_ready("c-plug", 30)
    vm.qmp.execute("device_add", driver="nvme", id="nvme2", serial="NVME0002",
                   drive="t2", bus="rp2")
    drv.go("c-plug")
    report.plugged(*drv.watch("c-plug", checks.plugged, wt(checks.PLUG_LIMIT)))

    drv.wait_ready("d", 75)
    drv.go("d")
    faults.nvme_stages(vm, drv, report)
    faults.scsi_stages(vm, drv, report, faults.sas_disk(vm.share))
    if bench:
        drv.wait_ready("bench", 200)
        drv.go("bench")
    drv.wait_ready("done", 120)
    drv.go("done")
    if not vm.wait_exit(15):
        raise Failure("the guest did not power off")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", type=Path)
    ap.add_argument("--initrd", type=Path)
    ap.add_argument("--exporter", required=True, type=Path,
                    help="host build of ssd_exporter, for the replay check")
    ap.add_argument("--bench", action="store_true", help="also run the benchmark stage")
    ap.add_argument("--timeout", type=float, default=900,
                    help="deadline for the whole VM run in seconds (default 900; "
                         "--bench adds 200)")
    ap.add_argument("--keep", type=Path, help="keep the work folder here (default: temp)")
    ap.add_argument("--recheck", type=Path, metavar="WORK",
                    help="no VM: only re-run the checks on the files of a kept run")
    args = ap.parse_args()

    if args.recheck:
        report = checks.Report()
        report.offline(args.recheck / "share", args.exporter)
        print(f"{report.passed} passed, {report.failed} failed")
        return 0 if report.failed == 0 else 1
    if not args.kernel or not args.initrd:
        ap.error("--kernel and --initrd are required (except with --recheck)")

    work, share = work_folder(args.keep, "ssd-vm-")
    (share / "config").write_text(f"BENCH={1 if args.bench else 0}\n"
                                  f"PROBE_RATE={checks.PROBE_RATE:g}\n")

    report = checks.Report()
    vm = Vm(work, args.kernel, args.initrd)
    md5_before = vm.image_md5s()
    timeout = args.timeout + (200 if args.bench else 0)
    drv = Driver(vm, time.monotonic() + timeout)
    started = time.monotonic()
    try:
        run_vm(vm, drv, args.bench, report)
        report.check("vm_run", True)
    except (Failure, OSError) as e:
        report.check("vm_run", False, str(e))
        print("---- serial console (tail) ----", file=sys.stderr)
        print(vm.serial_tail(), file=sys.stderr)
        print("---- guest.log (tail) ----", file=sys.stderr)
        try:
            print("\n".join((share / "guest.log").read_text().splitlines()[-30:]), file=sys.stderr)
        except OSError:
            pass
    finally:
        vm.kill()
    vm_seconds = time.monotonic() - started
    checks.margin("vm run", timeout / max(vm_seconds, 1e-3),
                  f"{vm_seconds:.0f} s, deadline {timeout:g} s")
    # the images as QEMU left them, for probe.never_writes (kept for --recheck)
    (share / "p").mkdir(exist_ok=True)
    (share / "p/host-md5.json").write_text(json.dumps(
        {"before": md5_before, "after": vm.image_md5s()}, indent=1))

    report.offline(share, args.exporter)
    if args.bench:
        result = checks.bench_result(share)
        print(json.dumps(result, indent=2))
        report.check("bench_measured", bool(result.get("ratio_smartctl_per_poll")),
                     f"incomplete: {json.dumps(result)}")
        sata = result.get("sata", {})
        ratio = sata.get("ratio_smartctl_per_poll")
        report.check("bench_sata_measured", bool(ratio), f"incomplete: {json.dumps(sata)}")
        if ratio:
            print(f"  (bench_sata: one sda poll is {ratio:.1f}x cheaper than smartctl -j -x "
                  f"/dev/sda; target >= {sata['target_ratio']}x "
                  f"{'met' if sata['meets_target'] else 'NOT met'})", flush=True)
        scsi = result.get("scsi", {})
        report.check("bench_scsi_measured", len(scsi) == 2 and all(
            v.get("ratio_smartctl_per_poll_whole_process") for v in scsi.values()),
            f"incomplete: {json.dumps(scsi)}")
        for dev, v in sorted(scsi.items()):
            ratio = v.get("ratio_smartctl_per_poll_whole_process")
            if ratio:
                print(f"  (bench_scsi {dev}: one poll, whole process, is {ratio:.1f}x cheaper "
                      f"than smartctl -j -x /dev/{dev}; target >= {v['target_ratio']}x "
                      f"{'met' if v['meets_target'] else 'NOT met'})", flush=True)
    keep = args.keep or report.failed
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.stdout.flush()
    print(f"vm: {vm_seconds:.1f} s" + (f"; files kept in {work}" if keep else ""),
          file=sys.stderr, flush=True)
    print(f"{report.passed} passed, {report.failed} failed")
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
