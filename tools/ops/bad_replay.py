"""A replay folder whose page files are hostile: counted, bounded, the rest served.

Two copies of the Kingston DC2000B fixture are replayed, polled every
second. In the bad one, smart-log.bin is a symlink to /dev/zero (before the
size cap, reading it grew RSS to 7 GB within 20 s) and ocp-smart-log.bin a
2 MiB file (over the 1 MiB page-file cap). Checked, every wait bounded:

1. the bad drive's smart_log and ocp_log failures are counted in
   ssd_poll_errors_total, smart_log's once per poll (as many as
   ssd_polls_total rose by, over at least 2 polls);
2. the bad drive is down (its mandatory page fails), the good copy is up
   and its values served;
3. RSS stays flat: at most 8 MiB above its value after the first polls,
   and under 64 MiB in all, over 10 polls;
4. the log names the file and the cap, once (not every poll).

The two waits on the clock (the first counted failure within 10 s; at least
2 polls in the 10 s watched, at --poll.interval=1s: 9 or 10 seen on a loaded
2-core machine) print their margin on every run.

Usage: python3 -m tools.ops.bad_replay [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a failure.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tools import ROOT
from tools.ops.common import Checks, exporter_binary, free_port, stop_all

FIXTURE = ROOT / "tests/fixtures/nvme/kingston-dc2000b/nvme0"
check = Checks()


def scrape(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return r.read().decode()
    except OSError:
        return None


def value(text, name, **labels):
    for line in (text or "").splitlines():
        if not line.startswith(name + "{"):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def rss_kib(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))


def main():
    binary = exporter_binary()
    tmp = Path(tempfile.mkdtemp(prefix="ssd-bad-replay-"))
    good, bad = tmp / "good/nvme0", tmp / "bad/nvme9"
    shutil.copytree(FIXTURE, good)
    shutil.copytree(FIXTURE, bad)
    (bad / "smart-log.bin").unlink()
    os.symlink("/dev/zero", bad / "smart-log.bin")
    (bad / "ocp-smart-log.bin").write_bytes(b"\0" * (2 << 20))
    port = free_port()
    log_path = tmp / "exporter.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            str(binary),
            f"--web.listen-address=127.0.0.1:{port}",
            "--poll.interval=1s",
            "--probe.disable",
            "--path.drivedb=none",
            f"--replay={good}",
            f"--replay={bad}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        text = None
        started = time.monotonic()
        for _ in range(100):
            text = scrape(port)
            if value(text, "ssd_poll_errors_total", device="nvme9", source="smart_log"):
                break
            time.sleep(0.1)
        waited = time.monotonic() - started
        print(f"MARGIN first smart_log failure counted: {10 / max(waited, 1e-3):.1f}x "
              f"(after {waited:.2f} s, limit 10 s)")
        first = value(text, "ssd_poll_errors_total", device="nvme9", source="smart_log") or 0
        polls0 = value(text, "ssd_polls_total", device="nvme9") or 0
        rss0 = rss_kib(proc.pid)
        peak = rss0
        for _ in range(10):
            time.sleep(1)
            text = scrape(port)
            peak = max(peak, rss_kib(proc.pid))
        last = value(text, "ssd_poll_errors_total", device="nvme9", source="smart_log") or 0
        polls = (value(text, "ssd_polls_total", device="nvme9") or 0) - polls0
        print(f"MARGIN polls in the 10 s watched: {polls / 2:.1f}x ({polls:.0f}, at least 2 wanted)")
        ocp = value(text, "ssd_poll_errors_total", device="nvme9", source="ocp_log") or 0
        check(first >= 1 and polls >= 2 and last - first == polls,
              f"smart_log failures counted once per poll ({first:.0f} -> {last:.0f} "
              f"over {polls:.0f} polls)")
        check(ocp >= 1, f"the oversized ocp page counted too ({ocp:.0f})")
        check(value(text, "ssd_device_up", device="nvme9") == 0, "the bad drive is down")
        check(value(text, "ssd_device_up", device="nvme0") == 1, "the good copy is up")
        check(
            value(text, "ssd_percentage_used_ratio", device="nvme0") is not None,
            "the good copy's values are served",
        )
        check(
            peak - rss0 <= 8 * 1024 and peak < 64 * 1024,
            f"RSS flat over 10 polls ({rss0 / 1024:.1f} MiB after the first, peak {peak / 1024:.1f} MiB)",
        )
        logged = log_path.read_text()
        named = [l for l in logged.splitlines() if "/smart-log.bin" in l and "larger than 1048576 bytes" in l]
        check(len(named) >= 1, "the log names the file and the cap")
        check(len(named) == 1, f"and says it once, not every poll ({len(named)} lines)")
    finally:
        stop_all([proc])
        log.close()
        if check.failed:
            print("".join(log_path.read_text().splitlines(True)[-10:]))
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
