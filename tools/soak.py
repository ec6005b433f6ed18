"""Soak: run the exporter for a while under scrapes and report threads,
descriptors and RSS over time, to show nothing grows.

    python3 -m tools.soak [--binary target/release/ssd_exporter] [--minutes 10]
                          [--mode demo|replay]

`demo` serves the simulated fleet (every drive's pages through the live
pollers, a simulated probe per drive) polling every 2 s; `replay` serves
every fixture folder under tests/fixtures, re-read on every poll (every 1 s).
A scrape of /metrics every second throughout. Prints one sample line every
30 s and a summary: first, last and largest value of each, and whether the
last is above the first sample taken after the warm-up (the first minute).
Exits 1 if a scrape failed or the thread or descriptor count grew.
Python 3.11 standard library only.
"""

import argparse
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tools import ROOT
from tools.ops.common import free_port


def sample(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
    threads = int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))
    fds = len(list(Path(f"/proc/{pid}/fd").iterdir()))
    return threads, fds, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(ROOT / "target/release/ssd_exporter"))
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--mode", choices=["demo", "replay"], default="demo")
    a = ap.parse_args()
    port = free_port()
    args = [a.binary, f"--web.listen-address=127.0.0.1:{port}"]
    if a.mode == "demo":
        args += ["--demo"]
    else:
        folders = sorted(p.parent for p in (ROOT / "tests/fixtures").glob("*/*/*/meta.toml"))
        folders += sorted(p.parent for p in (ROOT / "tests/fixtures").glob("*/*/meta.toml"))
        args += ["--poll.interval=1s", "--probe.disable"] + [f"--replay={f}" for f in folders]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples, failed, scrapes = [], 0, 0
    try:
        end = time.monotonic() + a.minutes * 60
        next_sample = time.monotonic()
        start = time.monotonic()
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                    r.read()
                scrapes += 1
            except OSError:
                if time.monotonic() - start > 5:
                    failed += 1
            if time.monotonic() >= next_sample:
                t, f, rss = sample(proc.pid)
                at = time.monotonic() - start
                samples.append((at, t, f, rss))
                print(f"{at:6.0f} s  threads {t:3}  fds {f:3}  rss {rss / 1024:6.1f} MiB", flush=True)
                next_sample += 30
            time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    warm = [s for s in samples if s[0] >= 60] or samples
    first, last = warm[0], warm[-1]
    peak = tuple(max(s[i] for s in samples) for i in range(1, 4))
    print(
        f"mode {a.mode}, {a.minutes:g} min, {scrapes} scrapes, {failed} failed; after warm-up: "
        f"threads {first[1]} -> {last[1]} (peak {peak[0]}), fds {first[2]} -> {last[2]} "
        f"(peak {peak[1]}), rss {first[3] / 1024:.1f} -> {last[3] / 1024:.1f} MiB "
        f"(peak {peak[2] / 1024:.1f})"
    )
    grew = last[1] > first[1] or last[2] > first[2]
    return 1 if failed or grew else 0


if __name__ == "__main__":
    sys.exit(main())
