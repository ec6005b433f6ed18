"""Stage e arithmetic: CPU seconds per poll of the exporter vs one smartctl -j -x."""

from __future__ import annotations

from pathlib import Path

from tools.vm.prom import parse_exposition

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


def _one(path: Path, name: str, device: str) -> float | None:
    s = [x.value for x in parse_exposition(path.read_text())
         if x.name == name and x.labels.get("device") == device]
    return s[0] if s else None


def _per_poll_thread_cpu(b: Path, device: str) -> dict:
    """The poll's own cost: the polling thread's CPU clock around each poll
    (ssd_poll_cpu_seconds_total), over the polls of one drive."""
    c0, c1 = (_one(b / f, "ssd_poll_cpu_seconds_total", device) for f in ("metrics-0.txt", "metrics-1.txt"))
    p0, p1 = (_one(b / f, "ssd_polls_total", device) for f in ("metrics-0.txt", "metrics-1.txt"))
    if None in (c0, c1, p0, p1) or p1 == p0:
        return {"error": "ssd_poll_cpu_seconds_total or ssd_polls_total missing"}
    return {"device": device, "polls": p1 - p0, "cpu_seconds": c1 - c0,
            "cpu_seconds_per_poll": (c1 - c0) / (p1 - p0),
            "source": "delta of ssd_poll_cpu_seconds_total / delta of ssd_polls_total"}


def _threads(b: Path) -> list[dict]:
    """Per-thread user and system CPU over the window (/proc/<pid>/task/*/stat), the
    busiest first: tells the kernel's share (SG_IO, ioctls) from the exporter's own."""
    def read(path: Path) -> dict:
        out = {}
        for line in path.read_text().splitlines():
            f = _stat_fields(line)
            out[line.split()[0]] = (line[line.index("(") + 1:line.rindex(")")],
                                                      int(f[13]), int(f[14]))
        return out
    try:
        t0, t1 = read(b / "exporter-tasks-0"), read(b / "exporter-tasks-1")
    except (OSError, ValueError, IndexError):
        return []
    rows = []
    for tid, (comm, u1, s1) in t1.items():
        _, u0, s0 = t0.get(tid, (comm, 0, 0))
        if u1 - u0 or s1 - s0:
            rows.append({"tid": tid, "comm": comm, "user_seconds": (u1 - u0) / CLK_TCK,
                         "system_seconds": (s1 - s0) / CLK_TCK})
    return sorted(rows, key=lambda r: -(r["user_seconds"] + r["system_seconds"]))


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
    out["smartctl"] = _smartctl(b, "", "/dev/nvme0")
    out["exporter_poll_thread"] = _per_poll_thread_cpu(b, "nvme0")
    s = out["smartctl"].get("cpu_seconds_per_run")
    e = out["exporter"].get("cpu_seconds_per_poll")
    t = out["exporter_poll_thread"].get("cpu_seconds_per_poll")
    # The figure the issue asks for: one poll (its own CPU) vs one smartctl -j -x.
    out["ratio_smartctl_per_poll"] = s / t if t and s else None
    # Whole exporter process (runtime, discovery, scrapes) per poll: an upper bound.
    out["ratio_smartctl_per_poll_whole_process"] = s / e if e and s else None
    out["sata"] = _sata(b)
    idle = _idle(b / "idle")
    out["scsi"] = {d.name.removeprefix("scsi-"): _scsi(d, idle) for d in sorted(b.glob("scsi-*"))}
    out["scsi_idle_exporter"] = idle
    # nvme0 and sda alone, measured like the SCSI disks (no smartctl of their own here)
    out["single_drive"] = {d.name.removeprefix("single-"): _scsi(d, idle)["exporter"] | {
        "poll_thread_cpu_seconds_per_poll":
            _per_poll_thread_cpu(d, d.name.removeprefix("single-")).get("cpu_seconds_per_poll")}
        for d in sorted(b.glob("single-*"))}
    out["exporter_threads"] = _threads(b)
    return out


SCSI_TARGET_RATIO = 30


def _schedstat_seconds(b: Path) -> float | None:
    """The exporter's exact CPU time over the window: the sum over its threads of the
    scheduler's runtime (schedstat field 1, ns); a thread born in the window counts
    from 0. Tick-sampled utime/stime can charge a whole 10 ms tick to a thread that
    ran a few microseconds when the tick came."""
    def read(path: Path) -> dict[str, int]:
        out = {}
        for line in path.read_text().splitlines():
            f = line.split()
            if len(f) >= 2:
                out[f[0]] = int(f[1])
        return out
    try:
        t0, t1 = read(b / "schedstat-0"), read(b / "schedstat-1")
    except (OSError, ValueError):
        return None
    if not t1:
        return None
    return sum(v - t0.get(tid, 0) for tid, v in t1.items()) / 1e9


def _idle(b: Path) -> dict:
    """The SCSI bench's exporter watching no drive: CPU seconds per second."""
    try:
        cpu = (_ticks(b / "exporter-stat-1") - _ticks(b / "exporter-stat-0")) / CLK_TCK
        wall = _uptime(b / "uptime-1") - _uptime(b / "uptime-0")
        exact = _schedstat_seconds(b)
        return {"cpu_seconds": cpu, "window_seconds": round(wall, 2),
                "cpu_seconds_per_second": cpu / wall if wall else None,
                "schedstat_cpu_seconds": exact,
                "schedstat_cpu_seconds_per_second": exact / wall if exact is not None and wall
                else None}
    except (OSError, ValueError, IndexError) as e:
        return {"error": str(e)}


def _scsi(b: Path, idle: dict) -> dict:
    """One SCSI disk: an exporter watching only it (probe off); its whole process's
    CPU per poll (issue 15's figure) and its polling thread's, vs smartctl -j -x."""
    dev = b.name.split("-", 1)[1]  # scsi-<disk> or single-<drive>
    out: dict = {"smartctl": _smartctl(b, "", f"/dev/{dev}")}
    try:
        cpu = (_ticks(b / "exporter-stat-1") - _ticks(b / "exporter-stat-0")) / CLK_TCK
        wall = _uptime(b / "uptime-1") - _uptime(b / "uptime-0")
        p0, p1 = (_one(b / f, "ssd_polls_total", dev) for f in ("metrics-0.txt", "metrics-1.txt"))
        polls = p1 - p0 if p0 is not None and p1 is not None else None
        exact = _schedstat_seconds(b)
        out["exporter"] = {"poll_interval_seconds": 0.1, "window_seconds": round(wall, 2),
                           "cpu_seconds": cpu, "polls": polls,
                           "cpu_seconds_per_poll": cpu / polls if polls else None,
                           "schedstat_cpu_seconds": exact,
                           "schedstat_cpu_seconds_per_poll": exact / polls
                           if exact is not None and polls else None,
                           "note": "whole process, one drive, probe off, discovery every 30 s, "
                                   "info logging; 100 Hz ticks"}
    except (OSError, ValueError, IndexError) as e:
        out["exporter"] = {"error": str(e)}
    out["exporter_poll_thread"] = _per_poll_thread_cpu(b, dev)
    out["exporter_threads"] = _threads(b)
    ex, per_s = out["exporter"], idle.get("cpu_seconds_per_second")
    if ex.get("polls") and per_s is not None:
        # what polling adds to the same process idle (an estimate: ticks are coarse)
        ex["cpu_seconds_per_poll_above_idle"] = (
            (ex["cpu_seconds"] - per_s * ex["window_seconds"]) / ex["polls"])
    s = out["smartctl"].get("cpu_seconds_per_run")
    e = out["exporter"].get("cpu_seconds_per_poll")
    t = out["exporter_poll_thread"].get("cpu_seconds_per_poll")
    x = out["exporter"].get("schedstat_cpu_seconds_per_poll")
    out["ratio_smartctl_per_poll_whole_process"] = s / e if e and s else None
    out["ratio_smartctl_per_poll_whole_process_schedstat"] = s / x if x and s else None
    out["ratio_smartctl_per_poll_thread"] = s / t if t and s else None
    out["target_ratio"] = SCSI_TARGET_RATIO
    r = out["ratio_smartctl_per_poll_whole_process"]
    out["meets_target"] = r >= SCSI_TARGET_RATIO if r else None
    return out


def _smartctl(b: Path, tag: str, device: str) -> dict:
    """The children CPU of SMARTCTL_RUNS `smartctl -j -x <device>` runs (files
    smartctl{tag}-*)."""
    try:
        runs = int((b / "smartctl-runs").read_text())
        cpu = _ticks(b / f"smartctl{tag}-stat", children=True) / CLK_TCK
        wall = _uptime(b / f"smartctl{tag}-uptime-1") - _uptime(b / f"smartctl{tag}-uptime-0")
        return {"command": f"smartctl -j -x {device}", "runs": runs,
                "cpu_seconds": cpu, "wall_seconds": round(wall, 2),
                "cpu_seconds_per_run": cpu / runs,
                "children_user_system_ticks": [int(x) for x in _stat_fields((b / f"smartctl{tag}-stat").read_text())[15:17]],
                "exit_status": (b / f"smartctl{tag}-rc").read_text().strip()}
    except (OSError, ValueError, IndexError) as e:
        return {"error": str(e)}


SATA_TARGET_RATIO = 30


def _sata(b: Path) -> dict:
    """One poll of sda (the polling thread's CPU) vs one smartctl -j -x /dev/sda."""
    out = {"smartctl": _smartctl(b, "-sda", "/dev/sda"),
           "exporter_poll_thread": _per_poll_thread_cpu(b, "sda")}
    s = out["smartctl"].get("cpu_seconds_per_run")
    t = out["exporter_poll_thread"].get("cpu_seconds_per_poll")
    out["ratio_smartctl_per_poll"] = s / t if t and s else None
    out["target_ratio"] = SATA_TARGET_RATIO
    out["meets_target"] = (out["ratio_smartctl_per_poll"] >= SATA_TARGET_RATIO
                           if out["ratio_smartctl_per_poll"] else None)
    return out


if __name__ == "__main__":
    import json
    import sys
    print(json.dumps(summarize(Path(sys.argv[1])), indent=2))
