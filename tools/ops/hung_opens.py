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

Usage: python3 -m tools.ops.hung_opens [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter): a pytest module, one test per check;
it prints the figures.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tools.ops.common import free_port, run_module

DRIVES = 100
THREAD_BOUND = 2 * DRIVES + 32
# What may come and go between two samples without anything leaking: a
# discovery scan or a probe-start batch on a blocking thread, a scrape's
# socket, the scan's open sysfs folder. A leak here grows by drives, not by
# a handful: each stuck open that were retried would hold a thread.
SLACK = 4


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


def drives_stuck(text):
    """How many drives have had a poll written off (a non-zero
    `ssd_poll_errors_total{source="poll"}`)."""
    return sum(
        1
        for l in text.splitlines()
        if l.startswith("ssd_poll_errors_total{") and 'source="poll"' in l
        and float(l.rsplit(" ", 1)[1]) > 0
    )


def devices(text):
    m = re.search(r"^ssd_exporter_devices (\S+)", text, re.M)
    return float(m.group(1)) if m else None


@pytest.fixture(scope="module")
def run(exporter, tmp_path_factory):
    """The exporter against the fake host, through the six steps of the module's
    doc; what each step saw."""
    tmp = tmp_path_factory.mktemp("hung")
    sys_dir, dev = fake_host(tmp)
    port = free_port()
    log = open(tmp / "exporter.log", "w")
    proc = subprocess.Popen(
        [
            str(exporter),
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
    seen = {}
    scrapes = seen["scrapes"] = []
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
            # Every drive stuck at least once: the pool has written off one
            # worker per hung drive (its bound), so from here on the thread
            # count must not grow. (A sum of DRIVES stuck polls could come
            # from fewer drives, some twice, before the last had its first.)
            if text is not None and devices(text) == DRIVES and drives_stuck(text) >= DRIVES:
                full = True
                break
            time.sleep(0.5)
        seen["full"] = full
        t0, f0, p0 = threads(proc.pid), fds(proc.pid), stuck_polls(text or "")
        peak = t0
        for _ in range(10):
            time.sleep(1)
            text, took = scrape(port)
            scrapes.append(took if text is not None else None)
            peak = max(peak, threads(proc.pid))
        t1, f1, p1 = threads(proc.pid), fds(proc.pid), stuck_polls(text or "")
        seen.update(t0=t0, f0=f0, p0=p0, peak=peak, t1=t1, f1=f1, p1=p1)

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
        seen["readded"] = gone and back
        time.sleep(3)
        seen["t2"] = threads(proc.pid)

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
        seen.update(t3=t3, t4=threads(proc.pid), listed=listed,
                    log=(tmp / "exporter.log").read_text())

        answered = sorted(s for s in scrapes if s is not None)
        if answered:
            print(
                f"  figures: threads {t0} -> {t1} (peak {peak}), fds {f0} -> {f1}, "
                f"scrapes {len(answered)}, p50 {answered[len(answered) // 2] * 1000:.1f} ms, "
                f"max {answered[-1] * 1000:.1f} ms"
            )

        # 6. a clean stop despite the stuck threads.
        proc.send_signal(signal.SIGTERM)
        try:
            seen["sigterm_exit"] = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            seen["sigterm_exit"] = "still running after 5 s"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    # Opens still blocked on the FIFOs died with the process.
    return seen


def test_drives_listed_with_stuck_polls_counted(run):
    assert run["full"], f"not all {DRIVES} drives listed with their stuck polls counted"


def test_stuck_polls_keep_being_counted(run):
    assert run["p1"] > run["p0"], f"{run['p0']:.0f} -> {run['p1']:.0f}"


def test_threads_bounded(run):
    assert run["peak"] <= THREAD_BOUND, f"peak {run['peak']}, bound {THREAD_BOUND}"


def test_threads_do_not_grow_over_10_s_of_hung_opens(run):
    assert run["t1"] <= run["t0"] + SLACK, f"{run['t0']} -> {run['t1']}, slack {SLACK}"


def test_descriptors_do_not_grow(run):
    assert run["f1"] <= run["f0"] + SLACK, f"{run['f0']} -> {run['f1']}, slack {SLACK}"


def test_drives_removed_and_readded_three_times(run):
    assert run["readded"], "ten drives removed and re-added three times, not each seen"


def test_no_new_thread_for_readded_drives(run):
    # 20 would be one per re-added drive and probe
    assert run["t2"] <= run["t1"] + SLACK, f"{run['t1']} -> {run['t2']}, slack {SLACK}"


def test_hung_scan_keeps_the_drives_found(run):
    assert run["listed"]


def test_hung_scan_holds_one_thread(run):
    """25 s (2 scan timeouts, 25 passes) of a hung scan hold one thread."""
    assert run["t4"] <= run["t3"] + SLACK, f"{run['t3']} -> {run['t4']}"


def test_hung_scan_is_logged(run):
    assert "sysfs scan did not finish" in run["log"]


def test_every_scrape_answered(run):
    scrapes = run["scrapes"]
    assert None not in scrapes, f"{sum(s is not None for s in scrapes)}/{len(scrapes)} answered"


def test_sigterm_ends_the_process_within_5_s(run):
    assert run["sigterm_exit"] == 0, f"exit {run['sigterm_exit']}"


if __name__ == "__main__":
    sys.exit(run_module(__file__))
