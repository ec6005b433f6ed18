"""Every device open hangs, and the exporter keeps serving with bounded threads.

A fake sysfs lists 100 NVMe controllers, each with one namespace; every
device node (`nvmeK` for the poll, `nvmeKn1` for the probe) is a FIFO with
no writer, so each open(2) the exporter makes blocks for good, as an open of
a sick disk can. The exporter polls every second with a 1 s deadline,
rescans every second and probes every namespace. Checked, each wait bounded:

1. /metrics answers every time it is asked (20 scrapes over the run, each
   given 5 s), lists the 100 drives and counts their stuck polls in
   ssd_poll_errors_total{source="poll"}, rising while they stay stuck;
2. threads stay bounded: at most one blocking poll and one probe thread per
   drive, plus the runtime's own (the bound is 2 x 100 + 32), and the count
   does not grow between the first full sample and the last one, ten
   seconds (ten poll intervals, ten discovery passes) later, beyond a slack
   of 4 for the threads and descriptors that come and go (a scan, a
   scrape); a leak would grow by the drives;
3. open descriptors do not grow either (same slack);
4. ten drives removed from sysfs and put back, three times, while their
   opens hang: no new thread for any of them;
5. a sysfs scan that hangs (an attribute turned into a FIFO) keeps the
   drives found before, and holds one thread however many passes wait on
   it;
6. SIGTERM ends the process within 5 s although 200 threads are stuck.

Usage: python3 -m tools.ops.hung_opens [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
Prints PASS/FAIL lines, the figures, and "N passed, N failed"; exits 1 on
a failure.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tools.ops.common import Checks, exporter_binary, free_port

DRIVES = 100
THREAD_BOUND = 2 * DRIVES + 32
# What may come and go between two samples without anything leaking: a
# discovery scan or a probe-start batch on a blocking thread, a scrape's
# socket, the scan's open sysfs folder. A leak here grows by drives, not by
# a handful: each stuck open that were retried would hold a thread.
SLACK = 4
check = Checks()


def fake_host(root: Path):
    """sysfs and /dev for DRIVES controllers whose nodes are FIFOs."""
    sys_dir, dev = root / "sys", root / "dev"
    dev.mkdir(parents=True)
    for k in range(DRIVES):
        ctrl = sys_dir / "class/nvme" / f"nvme{k}"
        (ctrl / f"nvme{k}n1").mkdir(parents=True)
        (ctrl / "model").write_text("HUNG OPEN TEST\n")
        (ctrl / "serial").write_text(f"HUNG{k:04}\n")
        (ctrl / "firmware_rev").write_text("1.0\n")
        block = sys_dir / "block" / f"nvme{k}n1"
        (block / "queue").mkdir(parents=True)
        (block / "queue/logical_block_size").write_text("512\n")
        (block / "size").write_text("2048\n")
        (block / "stat").write_text("1 0 8 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
        os.mkfifo(dev / f"nvme{k}")
        os.mkfifo(dev / f"nvme{k}n1")
    return sys_dir, dev


def scrape(port, timeout=5.0):
    """(/metrics text or None, seconds taken)."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as r:
            return r.read().decode(), time.monotonic() - start
    except OSError:
        return None, time.monotonic() - start


def threads(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def stuck_polls(text):
    return sum(
        float(l.rsplit(" ", 1)[1])
        for l in text.splitlines()
        if l.startswith("ssd_poll_errors_total{") and 'source="poll"' in l
    )


def devices(text):
    m = re.search(r"^ssd_exporter_devices (\S+)", text, re.M)
    return float(m.group(1)) if m else None


def main():
    binary = exporter_binary()
    tmp = Path(tempfile.mkdtemp(prefix="ssd-hung-"))
    sys_dir, dev = fake_host(tmp)
    port = free_port()
    log = open(tmp / "exporter.log", "w")
    proc = subprocess.Popen(
        [
            str(binary),
            f"--web.listen-address=127.0.0.1:{port}",
            f"--path.sysfs={sys_dir}",
            f"--path.dev={dev}",
            "--poll.interval=1s",
            "--poll.timeout=1s",
            "--discovery.interval=1s",
            "--probe.rate=5",
            "--path.drivedb=none",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    scrapes = []
    try:
        # 1. the drives show up, stuck, and the scrape answers throughout.
        text, full = None, False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text, took = scrape(port)
            # Counted from the first answer on (before it, the port may not
            # be bound yet).
            if text is not None or scrapes:
                scrapes.append(took if text is not None else None)
            if text is not None and devices(text) == DRIVES and stuck_polls(text) >= DRIVES:
                full = True
                break
            time.sleep(0.5)
        check(full, f"all {DRIVES} drives listed with their stuck polls counted")
        t0, f0, p0 = threads(proc.pid), fds(proc.pid), stuck_polls(text or "")
        peak = t0
        for _ in range(10):
            time.sleep(1)
            text, took = scrape(port)
            scrapes.append(took if text is not None else None)
            peak = max(peak, threads(proc.pid))
        t1, f1, p1 = threads(proc.pid), fds(proc.pid), stuck_polls(text or "")
        check(p1 > p0, f"stuck polls keep being counted ({p0:.0f} -> {p1:.0f})")
        check(peak <= THREAD_BOUND, f"threads at most {THREAD_BOUND} (peak {peak})")
        check(
            t1 <= t0 + SLACK,
            f"threads do not grow over 10 s of hung opens ({t0} -> {t1}, slack {SLACK})",
        )
        check(f1 <= f0 + SLACK, f"descriptors do not grow ({f0} -> {f1}, slack {SLACK})")

        # 4. drives removed and re-added while their opens hang.
        moved = tmp / "moved"
        moved.mkdir()
        for _ in range(3):
            for k in range(10):
                shutil.move(str(sys_dir / "class/nvme" / f"nvme{k}"), moved / f"nvme{k}")
            gone = False
            for _ in range(50):
                text, took = scrape(port)
                scrapes.append(took if text is not None else None)
                if text is not None and devices(text) == DRIVES - 10:
                    gone = True
                    break
                time.sleep(0.2)
            for k in range(10):
                shutil.move(str(moved / f"nvme{k}"), sys_dir / "class/nvme" / f"nvme{k}")
            back = False
            for _ in range(50):
                text, took = scrape(port)
                scrapes.append(took if text is not None else None)
                if text is not None and devices(text) == DRIVES:
                    back = True
                    break
                time.sleep(0.2)
            if not (gone and back):
                break
        check(gone and back, "ten drives removed and re-added three times, each seen")
        time.sleep(3)
        t2 = threads(proc.pid)
        check(
            t2 <= t1 + SLACK,
            f"no new thread for re-added drives whose opens hang ({t1} -> {t2}, slack {SLACK};"
            " 20 would be one per re-added drive and probe)",
        )

        # 5. a sysfs scan that hangs (an attribute that is a FIFO): the
        # drives already found stay served, and the next passes wait for
        # that scan instead of starting new ones, so threads stay bounded.
        model = sys_dir / "class/nvme/nvme50/model"
        model.unlink()
        os.mkfifo(model)
        t3 = threads(proc.pid)
        listed = True
        for _ in range(25):
            time.sleep(1)
            text, took = scrape(port)
            scrapes.append(took if text is not None else None)
            listed = listed and text is not None and devices(text) == DRIVES
        t4 = threads(proc.pid)
        check(listed, "a hung sysfs scan keeps the drives already found")
        check(
            t4 <= t3 + SLACK,
            f"25 s (2 scan timeouts, 25 passes) of a hung scan hold one thread ({t3} -> {t4})",
        )
        hung_log = (tmp / "exporter.log").read_text()
        check(
            "sysfs scan did not finish" in hung_log,
            "the hung scan is logged",
        )

        answered = [s for s in scrapes if s is not None]
        check(
            len(answered) == len(scrapes),
            f"every scrape answered ({len(answered)}/{len(scrapes)})",
        )
        if answered:
            answered.sort()
            p50 = answered[len(answered) // 2]
            print(
                f"  figures: threads {t0} -> {t1} (peak {peak}), fds {f0} -> {f1}, "
                f"scrapes {len(answered)}, p50 {p50 * 1000:.1f} ms, max {answered[-1] * 1000:.1f} ms"
            )

        # 6. a clean stop despite the stuck threads.
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=5)
            check(code == 0, f"SIGTERM ends the process within 5 s (exit {code})")
        except subprocess.TimeoutExpired:
            check(False, "SIGTERM ends the process within 5 s")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        if check.failed:
            print("  exporter log tail:")
            print("".join((tmp / "exporter.log").read_text().splitlines(True)[-15:]))
        # Opens still blocked on the FIFOs died with the process.
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
