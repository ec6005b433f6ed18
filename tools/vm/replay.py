"""Stage d: the guest's dumps of nvme0 and sda, replayed by the host's exporter, must
serve what the live exporter served for that drive (volatile series aside)."""

from __future__ import annotations

import math
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from tools.vm.prom import Sample, parse_exposition, series_key, show

# Series that legitimately differ between live and replay, or between two scrapes.
VOLATILE = {"ssd_last_poll_timestamp_seconds", "ssd_poll_duration_seconds",
            "ssd_poll_errors_total", "ssd_polls_total", "ssd_poll_cpu_seconds_total",
            "ssd_wearout_estimated_seconds"}
VOLATILE_PREFIX = ("ssd_exporter_", "ssd_probe_", "ssd_latency_")
# Counters a live drive advances by itself (and the exporter's own admin commands do
# not): dump <= replay value, compared as before-scrape <= replay <= after-scrape.
MOVING = {"ssd_host_read_bytes_total", "ssd_host_written_bytes_total",
          "ssd_host_read_commands_total", "ssd_host_write_commands_total",
          "ssd_controller_busy_seconds_total", "ssd_power_on_seconds_total"}
DUMP_FILES = {"id-ctrl.bin": 4096, "smart-log.bin": 512}
# SATA (shared/reference/device-dumps.md): the mandatory files; smart-status.txt is
# optional there, but QEMU's disk answers SMART RETURN STATUS, so the dump must hold it.
SATA_DUMP_FILES = {"identify.bin": 512, "smart-data.bin": 512, "smart-thresholds.bin": 512,
                   "smart-status.txt": None}
# A live state the dump format has no file for (CHECK POWER MODE).
SATA_LIVE_ONLY = {"ssd_power_mode"}
# What the live exporter reads from sysfs, not the drive, and a dump has no file for:
# the PCIe link and AER counters, and where the drive sits (labels of ssd_device_info,
# compared without them).
NVME_LIVE_ONLY = {"ssd_pcie_link_speed_transfers_per_second", "ssd_pcie_link_width_lanes",
                  "ssd_pcie_errors_total"}
PLACE_LABELS = {"fabric", "pci_address", "slot", "sas_address", "sas_phy", "enclosure", "path"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unplaced(s: Sample) -> Sample:
    """`ssd_device_info` without the place labels (sysfs's, not the dump's)."""
    if s.name != "ssd_device_info":
        return s
    return s._replace(labels={k: v for k, v in s.labels.items() if k not in PLACE_LABELS})


def _stable(samples: list[Sample], device: str, skip: frozenset = frozenset()) -> dict:
    return {series_key(u): u for u in map(_unplaced, samples) if u.labels.get("device") == device
            and u.name not in VOLATILE and u.name not in skip
            and not u.name.startswith(VOLATILE_PREFIX)}


def _moving(key: tuple) -> bool:
    """Counters a live drive advances by itself, and the raw Power_On_Hours attribute."""
    name, labels = key
    return name in MOVING or (name == "ssd_ata_attribute_raw" and ("id", "9") in labels)


def _load(path: Path) -> list[Sample] | None:
    try:
        return parse_exposition(path.read_text())
    except (OSError, ValueError):
        return None


def fetch_replay(exporter: Path, folder: Path, log: Path, timeout: float = 15):
    """Run `exporter --replay folder` on a free port; return (samples or None, error)."""
    port = _free_port()
    # A fresh state directory of its own, as the guest's exporter had at its first
    # start: both then serve ssd_state_age_seconds 0, and nothing is read from (or
    # written to) the host's /var/lib/ssd_exporter.
    state = Path(tempfile.mkdtemp(prefix="ssd-replay-state-"))
    cmd = [str(exporter), "--replay", str(folder), f"--web.listen-address=127.0.0.1:{port}",
           "--poll.interval=1s", f"--state.path={state}", "--metrics.diagnostics"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        end = time.monotonic() + timeout
        last_err = "no answer"
        placeholder: list[str] = []
        while time.monotonic() < end:
            if proc.poll() is not None:
                return None, f"exited with {proc.returncode} (see {log})"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
                    samples = parse_exposition(resp.read().decode())
                # before its first poll the exporter serves a placeholder drive
                # (ssd_device_up 0, empty identity labels): wait for the real one
                if any(s.name == "ssd_device_up" and s.value == 1 for s in samples):
                    return samples, ""
                ups = [show(s) for s in samples if s.name == "ssd_device_up"]
                if ups and not placeholder:
                    placeholder = ups
                    print(f"  (replay before its first poll served: {ups})", flush=True)
                last_err = f"no ssd_device_up 1 series; saw {ups}"
            except (OSError, ValueError) as e:
                last_err = str(e)
            time.sleep(0.2)
        return None, f"/metrics not ready within {timeout:.0f} s: {last_err}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(state, ignore_errors=True)


def dump_and_replay(r, share: Path, exporter: Path) -> None:
    d, dump = share / "d", share / "dump/nvme0"
    rc = (d / "dump.rc").read_text().strip() if (d / "dump.rc").exists() else "?"
    sizes = {f: (dump / f).stat().st_size if (dump / f).exists() else None for f in DUMP_FILES}
    ok = rc == "0" and all(sizes[f] == n for f, n in DUMP_FILES.items())
    if not r.check("dump_nvme0", ok, f"exit status {rc}, files {sizes} (see d/dump.out)"):
        return
    replay_equals_live(r, share, exporter, "nvme0", "", frozenset(NVME_LIVE_ONLY))


def dump_and_replay_sata(r, share: Path, exporter: Path) -> None:
    d, dump = share / "d", share / "dump/sda"
    rc = (d / "dump-sda.rc").read_text().strip() if (d / "dump-sda.rc").exists() else "?"
    sizes = {f: (dump / f).stat().st_size if (dump / f).exists() else None
             for f in SATA_DUMP_FILES}
    ok = rc == "0" and all(sizes[f] == n if n else sizes[f] for f, n in SATA_DUMP_FILES.items())
    if not r.check("dump_sda", ok, f"exit status {rc}, files {sizes} (see d/dump-sda.out)"):
        return
    status = (dump / "smart-status.txt").read_text().strip()
    r.check("dump_sda_smart_status", status == "passed",
            f"smart-status.txt holds {status!r}, SMART RETURN STATUS said passed")
    replay_equals_live(r, share, exporter, "sda", "sda.", frozenset(SATA_LIVE_ONLY))


def replay_equals_live(r, share: Path, exporter: Path, dev: str, prefix: str,
                        skip: frozenset) -> None:
    d, dump = share / "d", share / "dump" / dev
    print(f"  (dump files: {sorted(p.name for p in dump.iterdir())})", flush=True)
    before, after = _load(d / "metrics-before.txt"), _load(d / "metrics-after.txt")
    if not before or not after:
        r.check(f"{prefix}replay_equals_live", False, "the guest's scrapes around the dump are empty")
        return
    replay, err = fetch_replay(exporter, dump, share / f"replay-{dev}.log")
    if not r.check(f"replay_serves_{dev}", replay is not None, err):
        return
    rep, lb, la = (_stable(x, dev, skip) for x in (replay, before, after))
    missing = sorted(show(la[k]) for k in la.keys() - rep.keys())
    extra = sorted(show(rep[k]) for k in rep.keys() - la.keys())
    r.check(f"{prefix}replay_same_series", not missing and not extra,
            f"only live: {missing[:6]}; only replay: {extra[:6]}")
    diffs = []
    for k in sorted(rep.keys() & la.keys()):
        v, hi = rep[k].value, la[k].value
        lo = lb[k].value if k in lb else hi
        if _moving(k):
            good = lo <= v <= hi
        else:
            good = math.isclose(v, hi, rel_tol=1e-12, abs_tol=1e-9) or (math.isnan(v) and math.isnan(hi))
        if not good:
            diffs.append(f"{show(rep[k])} (live {lo:g}..{hi:g})")
    r.check(f"{prefix}replay_same_values", not diffs, "; ".join(diffs[:8]))
    print(f"  (replay: {len(rep.keys() & la.keys())} {dev} series compared, "
          f"{sum(1 for k in rep if _moving(k))} of them as moving counters)", flush=True)
    for name in sorted(skip):
        live = [show(s) for s in after if s.name == name and s.labels.get("device") == dev]
        replayed = [show(s) for s in replay if s.name == name and s.labels.get("device") == dev]
        print(f"  (not compared, no dump file for it: live {live}, replay {replayed})", flush=True)
