"""The kernel's own timing of a process's 4 KiB pread64 calls, as a referee.

Reads `perf script --ns` output of a recording made with

    perf record -e raw_syscalls:sys_enter --filter 'id == 17' \
                -e raw_syscalls:sys_exit  --filter 'id == 17' -- <command>

(or `perf record -a` with the same events while several programs run) and
prints one JSON object keyed by thread name (perf's comm, e.g. `fio`,
`probe loop0`): how many pread64 calls of exactly 4096 bytes returned 4096,
and their nearest-rank p50/p90/p99 (the same rank rule as the probe's
window) in microseconds, each call timed from its sys_enter to its sys_exit
tracepoint on the same thread. Calls of any other size (fio's and
the probe's reads of small files) are left out.

Used by scripts/bench-probe.sh to check the probe's and fio's own figures
against an independent timer of the very same I/Os. `--selftest` runs its
tests (pytest tools/tests/test_syscall_latency.py).
"""

import json
import math
import re
import sys
from pathlib import Path

PREAD64 = 17  # x86_64
SIZE = 4096
LINE = re.compile(
    r"^\s*(?P<comm>.*?)\s+(?P<tid>\d+)\s+\[\d+\]\s+(?P<t>\d+\.\d+):\s+raw_syscalls:(?P<ev>sys_enter|sys_exit):\s+NR (?P<nr>\d+) (?P<rest>.*)"
)


def durations(lines):
    """Seconds from enter to exit of each 4096-byte pread64 that read 4096
    bytes, grouped by the calling thread's name (perf's comm)."""
    started, out = {}, {}
    for line in lines:
        m = LINE.search(line)
        if not m or int(m["nr"]) != PREAD64:
            continue
        tid, t, rest = m["tid"], float(m["t"]), m["rest"].strip()
        if m["ev"] == "sys_enter":
            args = rest.strip("()").split(", ")
            # pread64(fd, buf, count, offset): count is printed in hex.
            if len(args) >= 3 and int(args[2], 16) == SIZE:
                started[tid] = t
            else:
                started.pop(tid, None)
        elif tid in started:
            t0 = started.pop(tid)
            if rest == f"= {SIZE}":
                out.setdefault(m["comm"], []).append(t - t0)
    return out


def nearest_rank(sorted_values, q):
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def main():
    if sys.argv[1:] == ["--selftest"]:
        import pytest
        return pytest.main([str(Path(__file__).parent / "tests/test_syscall_latency.py")])
    out = {}
    for comm, d in durations(sys.stdin).items():
        d.sort()
        out[comm] = {"samples": len(d)}
        for name, q in (("p50_us", 0.5), ("p90_us", 0.9), ("p99_us", 0.99)):
            out[comm][name] = round(nearest_rank(d, q) * 1e6, 1)
    print(json.dumps(out))
    return 0 if out else 1


if __name__ == "__main__":
    sys.exit(main())
