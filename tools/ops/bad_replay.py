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

Usage: python3 -m tools.ops.bad_replay [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter): a pytest module, one test per check.
"""

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tools import ROOT
from tools.ops.common import free_port, run_module, stop_all

FIXTURE = ROOT / "tests/fixtures/nvme/kingston-dc2000b/nvme0"


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


@pytest.fixture(scope="module")
def run(exporter, tmp_path_factory):
    """The two copies replayed for 10 polls after the first counted failure:
    the last scrape, the counts and RSS seen, and the exporter's log."""
    tmp = tmp_path_factory.mktemp("bad-replay")
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
            str(exporter),
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
        polls = (value(text, "ssd_polls_total", device="nvme9") or 0) - polls0
        print(f"MARGIN polls in the 10 s watched: {polls / 2:.1f}x ({polls:.0f}, at least 2 wanted)")
    finally:
        stop_all([proc])
        log.close()
    return {"text": text, "first": first, "polls": polls, "rss0": rss0, "peak": peak,
            "log": log_path.read_text()}


def test_smart_log_failures_counted_once_per_poll(run):
    last = value(run["text"], "ssd_poll_errors_total", device="nvme9", source="smart_log") or 0
    first, polls = run["first"], run["polls"]
    assert first >= 1 and polls >= 2 and last - first == polls, \
        f"{first:.0f} -> {last:.0f} over {polls:.0f} polls"


def test_oversized_ocp_page_counted(run):
    assert (value(run["text"], "ssd_poll_errors_total", device="nvme9", source="ocp_log") or 0) >= 1


def test_bad_drive_is_down(run):
    assert value(run["text"], "ssd_device_up", device="nvme9") == 0


def test_good_copy_is_up(run):
    assert value(run["text"], "ssd_device_up", device="nvme0") == 1


def test_good_copys_values_are_served(run):
    assert value(run["text"], "ssd_percentage_used_ratio", device="nvme0") is not None


def test_rss_flat_over_10_polls(run):
    rss0, peak = run["rss0"], run["peak"]
    assert peak - rss0 <= 8 * 1024 and peak < 64 * 1024, \
        f"{rss0 / 1024:.1f} MiB after the first polls, peak {peak / 1024:.1f} MiB"


def _named(log):
    return [line for line in log.splitlines()
            if "/smart-log.bin" in line and "larger than 1048576 bytes" in line]


def test_log_names_the_file_and_the_cap(run):
    assert len(_named(run["log"])) >= 1


def test_log_says_it_once(run):
    assert len(_named(run["log"])) == 1, "not once but every poll"


if __name__ == "__main__":
    sys.exit(run_module(__file__))
