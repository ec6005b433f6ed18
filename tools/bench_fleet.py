"""Many replayed drives on one host (a JBOD head node): what the exporter costs
at that count, as a scraper pays it.

    python3 -m tools.bench_fleet target/release/ssd_exporter [COUNT ...]

For each COUNT (default 64 and 1000) it copies one replay fixture COUNT times
(`tests/fixtures/nvme/kingston-dc2000b/nvme0`, folders d0000, d0001, ...), starts the
exporter on them with probes off and no state file, waits until every drive is
up, and then measures:

- RSS (VmRSS) and threads once every drive is up, with the resident part of
  the threads' stacks (from /proc/<pid>/smaps), and the peak RSS (VmHWM) at
  the end;
- the page: series and bytes of one plain-text scrape;
- `SCRAPES` scrapes (default 40) on one kept-alive connection, spaced 1.1 s
  apart, so each pays for what changed since the last one (the drives
  polled since, at `--poll.interval`: POLL, default the exporter's 60 s;
  POLL=1s makes every scrape re-encode every drive): wall
  time p50/p99 from request to last byte, and the process's CPU per scrape
  (user + system from /proc/<pid>/stat) less that of an idle window as long
  as the scrapes took, spread over them.

Prints one line per count and a Markdown table row for BENCHMARKS.md. The
machine's load average is printed beside: wall times on a shared machine are
an upper bound.
"""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests/fixtures/nvme/kingston-dc2000b/nvme0"
SCRAPES = int(os.environ.get("SCRAPES", "40"))
# The exporter's default; a shorter one makes every scrape re-encode every
# drive (each poll publishes a new snapshot).
POLL = os.environ.get("POLL", "60s")
SPACING = 1.1
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def make_dumps(tmp: Path, count: int) -> list[Path]:
    dumps = []
    for i in range(count):
        d = tmp / f"d{i:04d}"
        shutil.copytree(FIXTURE, d, ignore=shutil.ignore_patterns("meta.toml", "*.md"))
        dumps.append(d)
    return dumps


def stacks(pid: int) -> tuple[int, float, float]:
    """The threads' stacks in /proc/<pid>/smaps: (how many, their RSS in KiB,
    the RSS of the signal stacks in KiB).

    A thread's stack (glibc's pthread stacks, which std::thread uses) is an
    anonymous read-write mapping right above a one-page PROT_NONE guard
    mapping; the main thread's is named [stack]. Rust's standard library
    gives each thread an alternate signal stack of the same shape, but small
    (SIGSTKSZ, a few pages; a thread stack is 2 MiB by default), which tells
    the two apart. Malloc arenas also reserve PROT_NONE space, but never a
    single page below a read-write mapping.
    """
    regions = []  # (start, end, perms, name, rss_kb)
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            start, end = (int(x, 16) for x in head[0].split("-"))
            regions.append([start, end, head[1], head[5] if len(head) > 5 else "", 0])
        elif head[0] == "Rss:" and regions:
            regions[-1][4] = int(head[1])
    count, rss, signal_rss = 0, 0, 0
    for below, r in zip(regions, regions[1:]):
        guard = (below[2] == "---p" and below[3] == "" and below[1] - below[0] == 4096
                 and below[1] == r[0])
        if (guard and r[2] == "rw-p" and r[3] == "") or r[3] == "[stack]":
            if r[1] - r[0] >= 256 * 1024 or r[3] == "[stack]":
                count += 1
                rss += r[4]
            else:
                signal_rss += r[4]
    return count, rss, signal_rss


def scrape(conn: http.client.HTTPConnection) -> bytes:
    conn.request("GET", "/metrics")
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        raise RuntimeError(f"scrape answered {r.status}")
    return body


def wait_all_up(port: int, count: int, proc: subprocess.Popen, within: float,
                timeout: float, pause: float) -> http.client.HTTPConnection:
    """A kept-alive connection to the exporter on `port` once `count` drives
    are up (`ssd_device_up` 1), scraping every `pause` s; raises when that
    takes more than `within` s or the process ends."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    deadline = time.monotonic() + within
    while True:
        try:
            body = scrape(conn)
            up = sum(1 for line in body.splitlines()
                     if line.startswith(b"ssd_device_up{") and float(line.split()[-1]) == 1)
            if up >= count:
                return conn
        except (OSError, RuntimeError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError(f"{count} drives: not all up within {within:.0f} s")
        time.sleep(pause)


def run(binary: str, count: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="ssd-fleet-"))
    proc = None
    try:
        dumps = make_dumps(tmp, count)
        port = free_port()
        args = [binary, f"--web.listen-address=127.0.0.1:{port}", "--probe.disable",
                "--state.path=none", f"--poll.interval={POLL}", "--log.level=warn"]
        args += [f"--replay={d}" for d in dumps]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(tmp / "log", "w"))
        conn = wait_all_up(port, count, proc, within=120, timeout=30, pause=0.5)
        time.sleep(3)
        rss_up = status(proc.pid, "VmRSS") / 1024
        threads = status(proc.pid, "Threads")
        n_stacks, stack_kb, signal_kb = stacks(proc.pid)
        page = scrape(conn)
        series = sum(1 for line in page.splitlines() if line and not line.startswith(b"#"))
        # The idle window: as long as the scrapes will take.
        window = SCRAPES * SPACING
        c0 = cpu_seconds(proc.pid)
        time.sleep(window)
        idle = cpu_seconds(proc.pid) - c0
        walls = []
        c0 = cpu_seconds(proc.pid)
        t_start = time.monotonic()
        for i in range(SCRAPES):
            next_at = t_start + i * SPACING
            time.sleep(max(0.0, next_at - time.monotonic()))
            t = time.perf_counter()
            scrape(conn)
            walls.append((time.perf_counter() - t) * 1000)
        time.sleep(max(0.0, t_start + window - time.monotonic()))
        busy = cpu_seconds(proc.pid) - c0
        walls.sort()
        return {
            "count": count,
            "rss_up": rss_up,
            "rss_peak": status(proc.pid, "VmHWM") / 1024,
            "threads": threads,
            "stacks": n_stacks,
            "stack_mib": stack_kb / 1024,
            "signal_stack_mib": signal_kb / 1024,
            "series": series,
            "page_kb": len(page) / 1024,
            "p50": statistics.median(walls),
            "p99": walls[min(len(walls) - 1, int(0.99 * len(walls)))],
            "cpu_ms": max(0.0, busy - idle) * 1000 / SCRAPES,
            "idle_cpu_ms_s": idle * 1000 / window,
        }
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    counts = [int(c) for c in sys.argv[2:]] or [64, 1000]
    print(f"load average {os.getloadavg()[0]:.2f} at start; {SCRAPES} scrapes spaced {SPACING} s, "
          f"poll interval {POLL}")
    rows = []
    for count in counts:
        r = run(binary, count)
        rows.append(r)
        print(f"  {count} drives: RSS {r['rss_up']:.1f} MiB (peak {r['rss_peak']:.1f}), "
              f"{r['threads']} threads ({r['stacks']} stacks, {r['stack_mib']:.1f} MiB resident, "
              f"signal stacks {r['signal_stack_mib']:.1f} MiB), "
              f"{r['series']} series, {r['page_kb']:.0f} KiB page, "
              f"scrape p50 {r['p50']:.2f} ms p99 {r['p99']:.2f} ms, "
              f"CPU {r['cpu_ms']:.2f} ms per scrape (idle {r['idle_cpu_ms_s']:.2f} ms/s)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    print("| drives | RSS (peak) | threads | stacks resident | series | page | scrape p50 | p99 "
          "| CPU per scrape |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['count']} | {r['rss_up']:.1f} MiB ({r['rss_peak']:.1f}) | {r['threads']} | "
              f"{r['stack_mib']:.1f} MiB | "
              f"{r['series']} | {r['page_kb']:.0f} KiB | {r['p50']:.2f} ms | {r['p99']:.2f} ms | "
              f"{r['cpu_ms']:.2f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
