"""Where a replayed drive's heap bytes go: valgrind's DHAT over the exporter
watching COUNT copies of one NVMe dump, at its heap's peak.

    python3 -m tools.heap_fleet target/release/ssd_exporter [COUNT ...]

For each COUNT (default 64 and 512) it copies the Kingston DC2000B replay
fixture COUNT times, starts the exporter under `valgrind --tool=dhat` on
the copies (probes off, no state file, the default 60 s poll), waits until
every drive is up, makes SCRAPES plain scrapes (default 3) spaced 1.1 s
apart, stops it with SIGTERM and reads DHAT's profile. A site is the
innermost frame of the exporter's own code above the allocator (a name
starting with `ssd_exporter::`), or the innermost frame when none is.
Prints, per COUNT, the heap at its peak and the sites holding the most of
it, and with two counts each site's bytes per drive (the slope between
them). Python 3.11 standard library only; valgrind must be installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench_fleet import free_port, make_dumps, scrape, wait_all_up

SCRAPES = int(os.environ.get("SCRAPES", "3"))
TOP = int(os.environ.get("TOP", "20"))
# Frames that are the allocator or the standard library's containers, not
# the code that decided to keep the bytes.
PLUMBING = re.compile(r"(malloc|calloc|realloc|alloc::|__rust_|core::|std::|hashbrown|"
                      r"vg_replace|<alloc|<core|<std)")


def site(frames: list[str]) -> str:
    """The innermost frame of our code, else the innermost one that is not plumbing."""
    names = [re.sub(r"^0x[0-9A-Fa-f]+: ", "", f) for f in frames]
    for n in names:
        if n.startswith("ssd_exporter::") or n.startswith("<ssd_exporter::"):
            return re.sub(r" \(.*\)$", "", n)
    for n in names:
        if not PLUMBING.search(n.split(" ")[0]):
            return re.sub(r" \(.*\)$", "", n)
    return names[0] if names else "?"


def profile(binary: str, count: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="ssd-heap-"))
    proc = None
    try:
        args = [f"--replay={d}" for d in make_dumps(tmp, count)]
        port = free_port()
        out = tmp / "dhat.json"
        cmd = ["valgrind", "--tool=dhat", f"--dhat-out-file={out}", binary,
               f"--web.listen-address=127.0.0.1:{port}", "--probe.disable",
               "--state.path=none", "--log.level=warn"] + args
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(tmp / "log", "w"))
        # Under valgrind everything is slower: wait longer, scrape less often.
        conn = wait_all_up(port, count, proc, within=900, timeout=120, pause=1)
        for _ in range(SCRAPES):
            time.sleep(1.1)
            scrape(conn)
        conn.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=300)
        data = json.loads(out.read_text())
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    sites: dict[str, int] = {}
    for pp in data["pps"]:
        name = site([data["ftbl"][i] for i in pp["fs"]])
        sites[name] = sites.get(name, 0) + pp.get("gb", 0)
    return {"count": count, "peak": sum(sites.values()), "sites": sites}


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    counts = [int(c) for c in sys.argv[2:]] or [64, 512]
    runs = [profile(binary, c) for c in counts]
    for r in runs:
        print(f"{r['count']} drives: heap at its peak {r['peak'] / 1024:.0f} KiB "
              f"({r['peak'] / r['count'] / 1024:.1f} KiB per drive, all in)")
        for name, b in sorted(r["sites"].items(), key=lambda kv: -kv[1])[:TOP]:
            print(f"  {b / 1024:10.1f} KiB  {name}")
    if len(runs) >= 2:
        a, b = runs[0], runs[-1]
        n = b["count"] - a["count"]
        print(f"per drive, the slope from {a['count']} to {b['count']} drives: "
              f"{(b['peak'] - a['peak']) / n / 1024:.2f} KiB")
        names = set(a["sites"]) | set(b["sites"])
        slope = {k: (b["sites"].get(k, 0) - a["sites"].get(k, 0)) / n for k in names}
        for name, s in sorted(slope.items(), key=lambda kv: -kv[1])[:TOP]:
            print(f"  {s:10.0f} B  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
