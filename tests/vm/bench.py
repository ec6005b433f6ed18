"""Stage e arithmetic: CPU seconds per poll of the exporter vs one smartctl -j -x."""

from __future__ import annotations

from pathlib import Path

from prom import parse_exposition

CLK_TCK = 100  # assumed: busybox has no getconf; Debian's USER_HZ is 100


def _stat_fields(line: str) -> list[str]:
    # "pid (comm) state ppid ..." -- comm may hold spaces; fields restart after ")"
    rest = line[line.rindex(")") + 2:].split()
    return ["pid", "comm"] + rest  # so index 13 is utime (field 14), as in proc(5)


def _ticks(path: Path, children: bool = False) -> int:
    f = _stat_fields(path.read_text())
    return int(f[15]) + int(f[16]) if children else int(f[13]) + int(f[14])


def _uptime(path: Path) -> float:
    return float(path.read_text().split()[0])


def _polls(path: Path) -> float | None:
    s = [x.value for x in parse_exposition(path.read_text()) if x.name == "ssd_polls_total"]
    return sum(s) if s else None


def summarize(b: Path) -> dict:
    out: dict = {"clk_tck_assumed": CLK_TCK}
    try:
        cpu = (_ticks(b / "exporter-stat-1") - _ticks(b / "exporter-stat-0")) / CLK_TCK
        wall = _uptime(b / "uptime-1") - _uptime(b / "uptime-0")
        p0, p1 = _polls(b / "metrics-0.txt"), _polls(b / "metrics-1.txt")
        polls = None if p0 is None or p1 is None else p1 - p0
        out["exporter"] = {
            "poll_interval_seconds": 0.1, "window_seconds": round(wall, 2),
            "cpu_seconds": cpu, "polls": polls,
            "polls_source": "ssd_polls_total summed over drives" if polls is not None
            else "ssd_polls_total missing",
            "cpu_seconds_per_poll": cpu / polls if polls else None,
            "note": "upper bound: includes the runtime's idle overhead, discovery and 2 scrapes",
        }
    except (OSError, ValueError, IndexError) as e:
        out["exporter"] = {"error": str(e)}
    try:
        runs = int((b / "smartctl-runs").read_text())
        cpu = _ticks(b / "smartctl-stat", children=True) / CLK_TCK
        wall = _uptime(b / "smartctl-uptime-1") - _uptime(b / "smartctl-uptime-0")
        out["smartctl"] = {"command": "smartctl -j -x /dev/nvme0", "runs": runs,
                           "cpu_seconds": cpu, "wall_seconds": round(wall, 2),
                           "cpu_seconds_per_run": cpu / runs,
                           "exit_status": (b / "smartctl-rc").read_text().strip()}
    except (OSError, ValueError, IndexError) as e:
        out["smartctl"] = {"error": str(e)}
    e, s = out["exporter"].get("cpu_seconds_per_poll"), out["smartctl"].get("cpu_seconds_per_run")
    out["ratio_smartctl_per_exporter_poll"] = s / e if e and s else None
    return out


if __name__ == "__main__":
    import json
    import sys
    print(json.dumps(summarize(Path(sys.argv[1])), indent=2))
