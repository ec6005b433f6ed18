"""Side by side with jpetrucciani/nvme-exporter (issue 13): one QEMU boot, 8 NVMe.

    tests/vm/run.sh --peer /path/to/nvme-exporter [--scrapes N] [--poll-window S] [--keep DIR]
    tests/vm/run.sh --peer /path/to/nvme-exporter --parts spaced --keep DIR   (issue 27)

The spaced part (always run first) scrapes each exporter 60 times 1.1 s apart on one
kept-alive connection, plain and asking gzip, and takes the serving threads' CPU
(ours less its `poll *` and `probe *` threads) less an idle window just as long.

The peer is not part of this repository; build it from its public source:

    git clone https://github.com/jpetrucciani/nvme-exporter /tmp/peer
    (cd /tmp/peer && cargo build --release)    # -> /tmp/peer/target/release/nvme-exporter

run.sh builds ssd_exporter (release) and an initramfs holding both exporters and a
copy of smartmontools' drivedb.h at /peer/drivedb.h (outside the paths the exporter
and smartctl look at by default); this script boots it with 8 emulated NVMe
controllers and an AHCI disk, and the guest (tests/vm/guest/peer.sh) runs the exporters one
after the other, never two at once. The guest only records raw /proc files and
scrapes into the share; the arithmetic is here. Output: a JSON summary (also
share/peer/summary.json) and a table. Exit status 0 when every figure was measured;
the targets are reported, never asserted. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from tools.vm.prom import parse_exposition
from tools.vm.work import work_folder

CLK_TCK = 100  # assumed, as in bench.py: busybox has no getconf; Debian's USER_HZ is 100
NVME = 8
TARGET_SCRAPE = 10    # ours <= 1/10 of the peer's CPU per scrape
TARGET_RSS = 1.5      # ours <= 1.5x the peer's RSS
ASYNC_WORKERS = 2     # ours: worker_threads(2); the peer: tokio's default, one per CPU (-smp 2)
TARGET_POLL = 50      # smartctl -j -x >= 50x our whole-process CPU per poll
TARGET_SPACED = 20    # issue 27: ours <= 0.05x the peer's serving CPU per spaced scrape
SPACING = 1.1         # seconds between spaced scrapes (tests/vm/guest/peer.sh)
# threads that are not serving: ours' per-drive poll and probe threads
BACKGROUND = ("poll ", "probe ")


def vm_command(work: Path, kernel: Path, initrd: Path) -> list[str]:
    share = work / "share"
    cmd = ["qemu-system-x86_64",
           "-accel", "tcg,thread=multi", "-cpu", "max", "-machine", "q35",
           "-nodefaults", "-display", "none", "-no-reboot", "-m", "1024", "-smp", "2",
           "-kernel", str(kernel), "-initrd", str(initrd),
           "-append", "console=ttyS0 panic=-1 quiet loglevel=4",
           "-serial", f"file:{work / 'serial.log'}",
           "-virtfs", f"local,path={share},mount_tag=host,security_model=none,id=host0"]
    for i in range(NVME):
        img = work / f"nvme{i}.img"
        with open(img, "wb") as f:  # sparse: the benchmark never reads much of it
            f.truncate(64 << 20)
        cmd += ["-device", f"pcie-root-port,id=rp{i},bus=pcie.0,chassis={i + 1},slot={i + 1}",
                "-blockdev", f"driver=raw,node-name=n{i},file.driver=file,file.filename={img}",
                "-device", f"nvme,id=nvme{i},serial=NVME000{i},drive=n{i},bus=rp{i}"]
    sata = work / "sata0.img"
    with open(sata, "wb") as f:
        f.truncate(64 << 20)
    cmd += ["-blockdev", f"driver=raw,node-name=s0,file.driver=file,file.filename={sata}",
            "-device", "ide-hd,bus=ide.0,drive=s0,serial=SATA0000,model=QEMU SATA TEST"]
    return cmd


# ---- the arithmetic -------------------------------------------------------------

def stat_fields(line: str) -> list[str]:
    rest = line[line.rindex(")") + 2:].split()
    return ["pid", "comm"] + rest  # index 13 = utime (field 14 in proc(5))


def ticks(path: Path, children: bool = False) -> int:
    f = stat_fields(path.read_text())
    return int(f[15]) + int(f[16]) if children else int(f[13]) + int(f[14])


def user_system(path: Path) -> tuple[int, int]:
    f = stat_fields(path.read_text())
    return int(f[13]), int(f[14])


def uptime(path: Path) -> float:
    return float(path.read_text().split()[0])


def tasks(path: Path) -> dict[str, tuple[str, int, int]]:
    out = {}
    for line in path.read_text().splitlines():
        f = stat_fields(line)
        out[line.split()[0]] = (line[line.index("(") + 1:line.rindex(")")], int(f[13]), int(f[14]))
    return out


def thread_cpu(d: Path, a: str, b: str) -> list[dict]:
    """Per-thread user/system seconds between two snaps, grouped by thread name."""
    try:
        t0, t1 = tasks(d / f"tasks-{a}"), tasks(d / f"tasks-{b}")
    except (OSError, ValueError, IndexError):
        return []
    # tokio names its async workers and its blocking-pool threads alike; the workers
    # are started with the runtime, before any blocking thread: the lowest tids
    tokio = sorted((int(t) for t, (c, _, _) in t1.items() if c.startswith("tokio-")))
    workers = {str(t) for t in tokio[:ASYNC_WORKERS]}
    groups: dict[str, list] = {}
    for tid, (comm, u1, s1) in t1.items():
        _, u0, s0 = t0.get(tid, (comm, 0, 0))
        if comm.startswith("tokio-"):
            comm += " (async worker)" if tid in workers else " (blocking pool)"
        g = groups.setdefault(comm, [0, 0, 0])
        g[0] += u1 - u0
        g[1] += s1 - s0
        g[2] += 1
    rows = [{"thread": c, "threads": n, "user_seconds": u / CLK_TCK, "system_seconds": s / CLK_TCK}
            for c, (u, s, n) in groups.items() if u or s]
    return sorted(rows, key=lambda r: -(r["user_seconds"] + r["system_seconds"]))


def status_kb(d: Path, key: str) -> int | None:
    try:
        for line in (d / "status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def scrape_summary(d: Path) -> dict:
    """CPU per scrape: the process's CPU over N scrapes minus its idle CPU rate times
    the scrapes' wall time, over N; RSS after the scrapes."""
    try:
        n = int((d / "scrapes").read_text())
        idle_cpu = (ticks(d / "stat-idle-1") - ticks(d / "stat-idle-0")) / CLK_TCK
        idle_wall = uptime(d / "uptime-idle-1") - uptime(d / "uptime-idle-0")
        cpu = (ticks(d / "stat-scrapes-1") - ticks(d / "stat-idle-1")) / CLK_TCK
        wall = uptime(d / "uptime-scrapes-1") - uptime(d / "uptime-idle-1")
    except (OSError, ValueError, IndexError) as e:
        return {"error": f"{d.name}: {e}"}
    idle_rate = idle_cpu / idle_wall if idle_wall else 0.0
    # user and system apart: under TCG on a shared host the guest's system time moves
    # with the host's load (run to run, x3), its user time much less
    (iu0, is0), (iu1, is1), (su1, ss1) = (user_system(d / f"stat-{t}")
                                          for t in ("idle-0", "idle-1", "scrapes-1"))
    split = {k: ((b1 - b0) - (i1 - i0) / idle_wall * wall) / CLK_TCK / n if idle_wall else None
             for k, (i0, i1, b0, b1) in {"user": (iu0, iu1, iu1, su1),
                                          "system": (is0, is1, is1, ss1)}.items()}
    failed = len((d / "failed").read_text().split()) if (d / "failed").exists() else 0
    last = d / "last-scrape.txt"
    return {
        "command": (d / "command").read_text().strip(),
        "scrapes": n, "failed_scrapes": failed,
        "scrapes_wall_seconds": round(wall, 2), "scrapes_cpu_seconds": cpu,
        "idle_window_seconds": round(idle_wall, 2), "idle_cpu_seconds": idle_cpu,
        "idle_cpu_seconds_per_second": idle_rate,
        "cpu_seconds_per_scrape_raw": cpu / n,
        "cpu_seconds_per_scrape": (cpu - idle_rate * wall) / n,
        "user_seconds_per_scrape": split["user"],
        "system_seconds_per_scrape": split["system"],
        "wall_seconds_per_scrape": wall / n,
        "scrape_bytes": last.stat().st_size if last.exists() else None,
        "vm_rss_kb": status_kb(d, "VmRSS"), "vm_hwm_kb": status_kb(d, "VmHWM"),
        "threads": status_kb(d, "Threads"),
        "threads_cpu_during_scrapes": thread_cpu(d, "idle-1", "scrapes-1"),
        "threads_cpu_idle": thread_cpu(d, "idle-0", "idle-1"),
    }


def serving_ticks(d: Path, a: str, b: str) -> tuple[int, int]:
    """(user, system) ticks between two snaps of every thread but the poll and probe
    ones (ours; the peer has none of those, so all of its threads count): each thread
    alive at the second snap, less what it had at the first (0 if it is new). A thread
    that ended in between (tokio's idle blocking threads do) is left out."""
    t0, t1 = tasks(d / f"tasks-{a}"), tasks(d / f"tasks-{b}")
    u = sy = 0
    for tid, (comm, tu, ts) in t1.items():
        if not comm.startswith(BACKGROUND):
            _, u0, s0 = t0.get(tid, (comm, 0, 0))
            u += tu - u0
            sy += ts - s0
    return u, sy


def responses(path: Path) -> tuple[int, list[int]]:
    """200 responses on the kept-alive connection, and each body's Content-Length."""
    try:
        raw = path.read_bytes()
    except OSError:
        return 0, []
    ok = raw.count(b"HTTP/1.1 200")
    lengths = []
    for line in raw.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            try:
                lengths.append(int(line.split(b":", 1)[1]))
            except ValueError:
                pass
    return ok, lengths


def spaced_summary(d: Path) -> dict:
    """CPU per scrape as a scraper pays it (issue 27): the serving threads' CPU over
    N scrapes spaced 1.1 s apart on one kept-alive connection, less the same threads'
    CPU over the idle window just before (as long), over N."""
    try:
        n = int((d / "scrapes").read_text())
        idle = serving_ticks(d, "idle-0", "idle-1")
        busy = serving_ticks(d, "idle-1", "scrapes-1")
        whole = {t: ticks(d / f"stat-{t}") for t in ("idle-0", "idle-1", "scrapes-1")}
        idle_wall = uptime(d / "uptime-idle-1") - uptime(d / "uptime-idle-0")
        wall = uptime(d / "uptime-scrapes-1") - uptime(d / "uptime-idle-1")
    except (OSError, ValueError, IndexError) as e:
        return {"error": f"{d.name}: {e}"}
    if not idle_wall:
        return {"error": f"{d.name}: empty idle window"}

    def per_scrape(idle_ticks, busy_ticks):
        # the busy window less the idle rate times its length, per scrape
        return (busy_ticks - idle_ticks / idle_wall * wall) / CLK_TCK / n

    ok, lengths = responses(d / "responses")
    return {
        "command": (d / "command").read_text().strip(),
        "scrapes": n, "responses_200": ok,
        "gzip": "-gzip" in d.name,
        "body_bytes": sorted(lengths)[len(lengths) // 2] if lengths else None,
        "wall_seconds": round(wall, 2), "idle_window_seconds": round(idle_wall, 2),
        "serving_cpu_seconds_per_scrape": per_scrape(sum(idle), sum(busy)),
        "serving_user_seconds_per_scrape": per_scrape(idle[0], busy[0]),
        "serving_system_seconds_per_scrape": per_scrape(idle[1], busy[1]),
        "serving_idle_cpu_seconds_per_second": sum(idle) / CLK_TCK / idle_wall,
        "process_cpu_seconds_per_scrape":
            per_scrape(whole["idle-1"] - whole["idle-0"], whole["scrapes-1"] - whole["idle-1"]),
        "vm_rss_kb": status_kb(d, "VmRSS"), "vm_hwm_kb": status_kb(d, "VmHWM"),
        "threads": status_kb(d, "Threads"),
        "threads_cpu_during_scrapes": thread_cpu(d, "idle-1", "scrapes-1"),
        "threads_cpu_idle": thread_cpu(d, "idle-0", "idle-1"),
    }


def sum_metric(path: Path, name: str) -> float | None:
    try:
        s = [x.value for x in parse_exposition(path.read_text()) if x.name == name]
    except (OSError, ValueError):
        return None
    return sum(s) if s else None


def poll_summary(d: Path) -> dict:
    try:
        cpu = (ticks(d / "stat-1") - ticks(d / "stat-0")) / CLK_TCK
        wall = uptime(d / "uptime-1") - uptime(d / "uptime-0")
    except (OSError, ValueError, IndexError) as e:
        return {"error": f"{d.name}: {e}"}
    p0, p1 = (sum_metric(d / f"metrics-{i}.txt", "ssd_polls_total") for i in (0, 1))
    c0, c1 = (sum_metric(d / f"metrics-{i}.txt", "ssd_poll_cpu_seconds_total") for i in (0, 1))
    polls = p1 - p0 if None not in (p0, p1) else None
    (u0, s0), (u1, s1) = user_system(d / "stat-0"), user_system(d / "stat-1")
    out = {"command": (d / "command").read_text().strip(),
           "window_seconds": round(wall, 2), "cpu_seconds": cpu, "polls": polls,
           "user_seconds_per_poll": (u1 - u0) / CLK_TCK / polls if polls else None,
           "system_seconds_per_poll": (s1 - s0) / CLK_TCK / polls if polls else None,
           "polls_per_second": polls / wall if polls and wall else None,
           "cpu_seconds_per_poll": cpu / polls if polls else None,
           "poll_thread_cpu_seconds_per_poll": (c1 - c0) / polls
           if polls and None not in (c0, c1) else None,
           "vm_rss_kb": status_kb(d, "VmRSS"),
           "threads_cpu": thread_cpu(d, "0", "1")}
    return out


def smartctl_summary(d: Path) -> dict:
    try:
        runs = int((d / "runs").read_text())
        cpu = ticks(d / "stat", children=True) / CLK_TCK
        wall = uptime(d / "uptime-1") - uptime(d / "uptime-0")
    except (OSError, ValueError, IndexError) as e:
        return {"error": f"{d.name}: {e}"}
    return {"runs": runs, "cpu_seconds": cpu, "wall_seconds": round(wall, 2),
            "cpu_seconds_per_run": cpu / runs,
            "exit_status": (d / "rc").read_text().strip()}


def strace_counts(path: Path) -> dict[str, int] | None:
    """strace -c's table as {syscall: calls}."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    out = {}
    for line in lines:
        f = line.split()
        if len(f) in (5, 6) and f[0][0].isdigit() and f[-1] != "total":
            out[f[-1]] = int(f[3])
    return out


def strace_summary(b: Path) -> dict:
    """Syscalls per scrape and per poll (strace -c -f, after the measurements)."""
    out: dict = {}
    for d in sorted(b.glob("strace-*")):
        c = strace_counts(d / "strace.txt")
        if c is None:
            continue
        name = d.name.removeprefix("strace-")
        if name == "polls":
            p0, p1 = (sum_metric(d / f"metrics-{i}.txt", "ssd_polls_total") for i in (0, 1))
            n = p1 - p0 if None not in (p0, p1) else None
            unit = "per_poll (polls counted over the traced 10 s and the two scrapes)"
        else:
            n = int((d / "scrapes").read_text()) if (d / "scrapes").exists() else None
            unit = "per_scrape"
        top = sorted(c.items(), key=lambda kv: -kv[1])[:12]
        out[name] = {"n": n, "unit": unit, "calls_total": sum(c.values()),
                     "calls_per_unit": round(sum(c.values()) / n, 1) if n else None,
                     "top_per_unit": {k: round(v / n, 1) for k, v in top} if n else dict(top),
                     "idle_5s_calls": strace_counts(d / "strace-idle.txt")}
    return out


def ratio(a, b):
    return a / b if a is not None and b else None


def summarize(b: Path) -> dict:
    out: dict = {"clk_tck_assumed": CLK_TCK, "nvme_controllers": NVME,
                 "drivedb_in_guest": (b / "drivedb.txt").read_text().splitlines()
                 if (b / "drivedb.txt").exists() else None,
                 "clocksource": (b / "clocksource.txt").read_text().split("\n", 1)[0]
                 if (b / "clocksource.txt").exists() else None,
                 "scrape": {}, "spaced": {}, "poll": {}, "smartctl": {}}
    for d in sorted(b.glob("spaced-*")):
        out["spaced"][d.name.removeprefix("spaced-")] = spaced_summary(d)
    for d in sorted(b.glob("scrape-*")):
        out["scrape"][d.name.removeprefix("scrape-")] = scrape_summary(d)
    for d in sorted(b.glob("poll-*")):
        out["poll"][d.name.removeprefix("poll-")] = poll_summary(d)
    for d in sorted(b.glob("smartctl-*")):
        out["smartctl"][d.name.removeprefix("smartctl-")] = smartctl_summary(d)
    out["strace"] = strace_summary(b)
    sc, po, sm = out["scrape"], out["poll"], out["smartctl"]
    peer = sc.get("peer", {})
    r: dict = {}
    for k in ("ours-probe", "ours-noprobe", "ours-drivedb", "ours-nodrivedb"):
        o = sc.get(k, {})
        x = ratio(peer.get("cpu_seconds_per_scrape"), o.get("cpu_seconds_per_scrape"))
        y = ratio(o.get("vm_rss_kb"), peer.get("vm_rss_kb"))
        r[k] = {"peer_cpu_per_scrape_over_ours": x,
                "peer_user_per_scrape_over_ours": ratio(peer.get("user_seconds_per_scrape"),
                                                        o.get("user_seconds_per_scrape")),
                "scrape_target_met": x >= TARGET_SCRAPE if x else None,
                "ours_rss_over_peer": y,
                "rss_target_met": y <= TARGET_RSS if y else None}
    sp = out["spaced"]
    for z in ("", "-gzip"):
        peer_z = sp.get(f"peer{z}", {})
        for k in ("ours-probe", "ours-noprobe"):
            o = sp.get(k + z)
            if not o:
                continue
            x = ratio(o.get("serving_cpu_seconds_per_scrape"),
                      peer_z.get("serving_cpu_seconds_per_scrape"))
            y = ratio(o.get("vm_hwm_kb"), peer_z.get("vm_hwm_kb"))
            r[f"spaced-{k}{z}"] = {"ours_serving_cpu_over_peer": x,
                                   "target_met": x <= 1 / TARGET_SPACED if x is not None else None,
                                   "ours_peak_rss_over_peer": y,
                                   "rss_target_met": y <= TARGET_RSS if y else None}
    for k, dev in (("nvme-all", "nvme0"), ("one-nvme0", "nvme0"), ("one-sda", "sda")):
        s = sm.get(dev, {}).get("cpu_seconds_per_run")
        p = po.get(k, {})
        x = ratio(s, p.get("cpu_seconds_per_poll"))
        r[f"poll-{k}"] = {"smartctl": f"smartctl -j -x /dev/{dev}",
                          "smartctl_over_ours_whole_process": x,
                          "smartctl_over_ours_poll_thread":
                              ratio(s, p.get("poll_thread_cpu_seconds_per_poll")),
                          "target_met": x >= TARGET_POLL if x else None}
    out["ratios"] = r
    out["targets"] = {"cpu_per_scrape": f"ours <= 1/{TARGET_SCRAPE} of the peer's",
                      "cpu_per_spaced_scrape": f"ours <= 1/{TARGET_SPACED} of the peer's, serving threads",
                      "rss": f"ours <= {TARGET_RSS}x the peer's",
                      "cpu_per_poll": f"smartctl -j -x >= {TARGET_POLL}x ours, whole process"}
    return out


def table(s: dict) -> str:
    def ms(v):
        return f"{v * 1000:8.2f}" if isinstance(v, (int, float)) else "       -"
    lines = ["Spaced scrapes (1.1 s apart, one kept-alive connection): serving threads' CPU per"
             " scrape, idle subtracted; peak RSS:",
             f"  {'exporter':20} {'ms/scrape':>9} {'user ms':>8} {'sys ms':>8} {'process':>8} "
             f"{'200s':>5} {'bytes':>7} {'HWM KiB':>8} {'ours/peer':>9} {'HWM ratio':>9}"]
    for k, v in s.get("spaced", {}).items():
        r = s["ratios"].get(f"spaced-{k}", {})
        x, y = r.get("ours_serving_cpu_over_peer"), r.get("ours_peak_rss_over_peer")
        lines.append(f"  {k:20} {ms(v.get('serving_cpu_seconds_per_scrape'))}  "
                     f"{ms(v.get('serving_user_seconds_per_scrape'))} "
                     f"{ms(v.get('serving_system_seconds_per_scrape'))} "
                     f"{ms(v.get('process_cpu_seconds_per_scrape'))} "
                     f"{v.get('responses_200', '-'):>5} {v.get('body_bytes') or '-':>7} "
                     f"{v.get('vm_hwm_kb') or '-':>8} "
                     f"{f'{x:.3f}x' if x is not None else '-':>9} {f'{y:.2f}x' if y else '-':>9}")
    lines += ["CPU per scrape (idle subtracted), RSS after the scrapes:",
             f"  {'exporter':16} {'ms/scrape':>9} {'user ms':>8} {'sys ms':>8} {'raw ms':>8} {'idle ms/s':>9} "
             f"{'bytes':>7} {'RSS KiB':>8} {'peer/ours':>9} {'RSS ratio':>9}"]
    for k, v in s["scrape"].items():
        r = s["ratios"].get(k, {})
        x, y = r.get("peer_cpu_per_scrape_over_ours"), r.get("ours_rss_over_peer")
        lines.append(f"  {k:16} {ms(v.get('cpu_seconds_per_scrape'))}  "
                     f"{ms(v.get('user_seconds_per_scrape'))} {ms(v.get('system_seconds_per_scrape'))} "
                     f"{ms(v.get('cpu_seconds_per_scrape_raw'))} "
                     f"{ms(v.get('idle_cpu_seconds_per_second'))}  "
                     f"{v.get('scrape_bytes') or '-':>7} {v.get('vm_rss_kb') or '-':>8} "
                     f"{f'{x:.2f}x' if x else '-':>9} {f'{y:.2f}x' if y else '-':>9}")
    lines.append("Whole-process CPU per poll (every 100 ms, probe off) vs smartctl -j -x:")
    for k, v in s["poll"].items():
        r = s["ratios"].get(f"poll-{k}", {})
        x, t = r.get("smartctl_over_ours_whole_process"), r.get("smartctl_over_ours_poll_thread")
        lines.append(f"  {k:10} polls {v.get('polls')!s:>6} ms/poll {ms(v.get('cpu_seconds_per_poll'))} "
                     f"(user {ms(v.get('user_seconds_per_poll'))}) "
                     f"thread ms/poll {ms(v.get('poll_thread_cpu_seconds_per_poll'))} "
                     f"{r.get('smartctl')}: {f'{x:.1f}x' if x else '-'} "
                     f"(thread {f'{t:.1f}x' if t else '-'})")
    for k, v in s["smartctl"].items():
        lines.append(f"  smartctl -j -x /dev/{k}: {ms(v.get('cpu_seconds_per_run'))} ms/run "
                     f"over {v.get('runs')} runs (exit {v.get('exit_status')})")
    return "\n".join(lines)


def git_head(folder: Path) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def describe(binary: Path | None) -> dict | None:
    """The peer binary: path, sha256 and the commit of the checkout it was built in."""
    if not binary:
        return None
    import hashlib
    try:
        digest = hashlib.sha256(binary.read_bytes()).hexdigest()
    except OSError:
        digest = None
    return {"path": str(binary), "sha256": digest, "commit": git_head(binary.parent)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", type=Path)
    ap.add_argument("--initrd", type=Path)
    ap.add_argument("--peer", type=Path, help="the nvme-exporter binary (already in the initrd)")
    ap.add_argument("--scrapes", type=int, default=200, help="sequential scrapes per exporter")
    ap.add_argument("--idle", type=int, default=15, help="seconds of idle CPU measured first")
    ap.add_argument("--poll-window", type=int, default=60,
                    help="seconds of polling every 100 ms per poll configuration")
    ap.add_argument("--smartctl-runs", type=int, default=50)
    ap.add_argument("--parts", choices=("all", "spaced"), default="all",
                    help="spaced: only the spaced kept-alive scrapes (issue 27), about 16 min of VM")
    ap.add_argument("--timeout", type=float, default=None,
                    help="deadline of the VM run in seconds (default: from the windows)")
    ap.add_argument("--keep", type=Path, help="keep the work folder here (default: temp)")
    ap.add_argument("--recheck", type=Path, metavar="WORK",
                    help="no VM: only redo the arithmetic on a kept run")
    args = ap.parse_args()

    if args.recheck:
        s = summarize(args.recheck / "share" / "peer")
        print(json.dumps(s, indent=2))
        print(table(s))
        return 0
    if not args.kernel or not args.initrd:
        ap.error("--kernel and --initrd are required (except with --recheck)")
    # The commit the VM's binary was built from (run.sh builds it just before),
    # read now: later commits made while the VM runs must not be credited.
    commit = git_head(Path(__file__).resolve().parent)
    work, share = work_folder(args.keep, "ssd-vm-peer-")
    (share / "peer-config").write_text(
        f"SCRAPES={args.scrapes}\nIDLE={args.idle}\nPOLL_WINDOW={args.poll_window}\n"
        f"SMARTCTL_RUNS={args.smartctl_runs}\nPEER_PARTS={args.parts}\n")
    # 5 scrape configurations (start, idle, scrapes at <= 0.1 s each under TCG), 3 poll
    # windows, smartctl (about 0.3 s per SATA run), boot
    # 6 spaced configurations (start, an idle window and 60 scrapes of 1.1 s each)
    spaced = 6 * (30 + 2 * 60 * 1.1)
    timeout = args.timeout or (60 + spaced if args.parts == "spaced" else
                               60 + spaced + 5 * (20 + args.idle + args.scrapes * 0.15)
                               + 3 * (15 + args.poll_window) + args.smartctl_runs * 0.6)
    proc = subprocess.Popen(vm_command(work, args.kernel, args.initrd),
                            stdin=subprocess.DEVNULL, stdout=open(work / "qemu.out", "wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    started = time.monotonic()
    try:
        proc.wait(timeout=timeout)
        ok = True
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        ok = False
    vm_seconds = time.monotonic() - started
    b = share / "peer"
    done = (b / "done").exists()
    if not ok or not done:
        print(f"peer: the guest did not finish ({'deadline of %.0f s passed' % timeout if not ok else 'no peer/done'})",
              file=sys.stderr)
        try:
            print("\n".join((share / "guest.log").read_text().splitlines()[-30:]), file=sys.stderr)
        except OSError:
            pass
    s = summarize(b) if b.is_dir() else {"error": "no share/peer"}
    s["peer_binary"] = describe(args.peer)
    s["ours_commit"] = commit
    if b.is_dir():
        (b / "summary.json").write_text(json.dumps(s, indent=2))
    print(json.dumps(s, indent=2))
    if "scrape" in s or "spaced" in s:
        print(table(s))
    spaced_ok = bool(s.get("spaced")) and all(
        v.get("responses_200") == v.get("scrapes") and "error" not in v
        for v in s["spaced"].values())
    rest_ok = "scrape" in s and all(
        v.get("peer_cpu_per_scrape_over_ours") and v.get("ours_rss_over_peer")
        for k, v in s["ratios"].items() if not k.startswith(("poll-", "spaced-"))) and all(
        v.get("smartctl_over_ours_whole_process") for k, v in s["ratios"].items()
        if k.startswith("poll-"))
    measured = done and spaced_ok and (args.parts == "spaced" or rest_ok)
    keep = args.keep or not measured
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"vm: {vm_seconds:.1f} s" + (f"; files kept in {work}" if keep else ""), file=sys.stderr)
    return 0 if measured else 1


if __name__ == "__main__":
    sys.exit(main())
