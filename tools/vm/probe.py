"""The latency probe on the guest's real block devices (after the run, from the share).

The guest starts the exporter with --probe.rate=PROBE_RATE for the whole run, so the
probe reads /dev/nvme0n1, /dev/nvme1n1 and /dev/sda (O_DIRECT, 4 KiB) throughout:

- stage p: two scrapes 2 s apart (p/metrics-{1,2}.txt, guest uptime before each):
  ok counts above 0 and rising at roughly the configured rate, no error/timeout
  results, histogram _count = ok + timeout (errors are not timed), the quantile and
  window series with device = the controller or disk and its serial;
- never writes: md5sum of the three devices before the exporter starts and after it
  stopped (page cache dropped) in the guest; and md5 of every image file on the
  host before the boot and after QEMU exited (this also covers nvme1, unplugged,
  and the hot-plugged nvme2). The images are random after a zeroed first MiB, so a
  write of any content shows;
- stage c-unplug: nvme1n1's probe is running just before the device_del; afterwards
  its series are gone, nvme0n1's and sda's ok counts still rise, no panic, the
  probe's stop is logged and nvme1 causes no storm of warnings;
- the hot-plugged controller (serial NVME0002) is probed by the end of the run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tools.vm.prom import Sample, one, parse_exposition, select, show

PROBE_RATE = 50.0
# block -> (device label, serial)
BLOCKS = {"nvme0n1": ("nvme0", "NVME0000"), "nvme1n1": ("nvme1", "NVME0001"),
          "sda": ("sda", "SATA0000")}
SURVIVORS = ("nvme0n1", "sda")
UNPLUGGED = "nvme1n1"
HOTPLUG_SERIAL = "NVME0002"
QUANTILES = ("0.5", "0.9", "0.99", "0.999", "0.9999")
WINDOW = "10m"
# ok I/Os per second at least this share of --probe.rate (Poisson, 2 s, TCG)
MIN_RATE_SHARE = 0.2
# warn lines naming nvme1 between the unplug and the hot-plug
MAX_UNPLUG_WARNINGS = 5
# guest block device -> host image
GUEST_IMAGES = {"/dev/nvme0n1": "nvme0", "/dev/nvme1n1": "nvme1", "/dev/sda": "sata0"}


def _load(path: Path) -> list[Sample] | None:
    try:
        return parse_exposition(path.read_text())
    except (OSError, ValueError):
        return None


def _uptime(path: Path) -> float | None:
    try:
        return float(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _md5sums(path: Path) -> dict[str, str]:
    """busybox md5sum output: '<hex>  <path>' per line."""
    out = {}
    try:
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and re.fullmatch(r"[0-9a-f]{32}", parts[0]):
                out[parts[1]] = parts[0]
    except OSError:
        pass
    return out


def _ios(m: list[Sample], block: str, result: str) -> Sample | None:
    return one(m, "ssd_probe_ios_total", block=block, op="read", result=result)


def _val(s: Sample | None) -> float:
    return s.value if s is not None else 0.0


def _bad_results(m: list[Sample], block: str) -> list[str]:
    return [show(s) for s in select(m, "ssd_probe_ios_total", block=block)
            if s.labels.get("result") in ("error", "timeout") and s.value != 0]


# ---- 1. probes run on the real devices (stage p) -------------------------------------

def running(r, share: Path, blocks: dict[str, tuple[str, str]] = BLOCKS) -> None:
    p = share / "p"
    m1, m2 = _load(p / "metrics-1.txt"), _load(p / "metrics-2.txt")
    t1, t2 = _uptime(p / "uptime-1"), _uptime(p / "uptime-2")
    if not r.check("probe.scrapes", bool(m1) and bool(m2) and t1 is not None and t2 is not None,
                   "p/metrics-1.txt, p/metrics-2.txt or their uptimes missing"):
        return
    dt = t2 - t1
    for block, (device, serial) in blocks.items():
        ok1, ok2 = _ios(m1, block, "ok"), _ios(m2, block, "ok")
        labels_ok = all(s is not None and s.labels.get("device") == device and s.labels.get("serial") == serial
                        for s in (ok1, ok2))
        r.check(f"probe.{block}.ios_ok", labels_ok and ok1.value > 0 and ok2.value > ok1.value,
                f"ssd_probe_ios_total{{block=\"{block}\",result=\"ok\"}}: {ok1} then {ok2} "
                f"(want > 0, rising, device=\"{device}\", serial=\"{serial}\"); "
                f"all for the block: {[show(s) for s in select(m2, 'ssd_probe_ios_total', block=block)]}")
        bad = _bad_results(m1, block) + _bad_results(m2, block)
        r.check(f"probe.{block}.no_errors_or_timeouts", not bad, f"{bad}")
        if ok1 is not None and ok2 is not None and dt > 0:
            rate = (ok2.value - ok1.value) / dt
            skipped = {s.labels.get("reason"): s.value for s in select(m2, "ssd_probe_skipped_total", block=block)}
            busy = one(m2, "ssd_probe_busy_ratio", block=block)
            print(f"  (probe {block}: {rate:.1f} ok/s over {dt:.1f} s at --probe.rate={PROBE_RATE:g}; "
                  f"skipped {skipped}; busy ratio {busy.value if busy else None})", flush=True)
            need = MIN_RATE_SHARE * PROBE_RATE
            print(f"  MARGIN probe.{block}.rate: {rate / need:.1f}x ({rate:.1f} ok/s, "
                  f"at least {need:g} wanted)", flush=True)
            r.check(f"probe.{block}.rate", rate >= MIN_RATE_SHARE * PROBE_RATE,
                    f"{rate:.1f} ok probe I/Os per second, want >= {MIN_RATE_SHARE * PROBE_RATE:g} "
                    f"(--probe.rate={PROBE_RATE:g}); skipped {skipped}")
        for name, m in (("metrics-1", m1), ("metrics-2", m2)):
            _histogram(r, f"probe.{block}.histogram[p/{name}]", m, block, device, serial)
        _quantiles(r, f"probe.{block}.quantiles", m2, block, device, serial, ok2)


def _histogram(r, cname: str, m: list[Sample], block: str, device: str, serial: str) -> None:
    full = {"device": device, "serial": serial, "block": block, "op": "read"}
    count = one(m, "ssd_probe_latency_seconds_count", **full)
    total = one(m, "ssd_probe_latency_seconds_sum", **full)
    buckets = sorted(((float(s.labels.get("le")), s.value)
                      for s in select(m, "ssd_probe_latency_seconds_bucket", **full)))
    ok, timeout = _val(_ios(m, block, "ok")), _val(_ios(m, block, "timeout"))
    problems = []
    if count is None or total is None or not buckets:
        problems.append(f"missing: _count {count}, _sum {total}, {len(buckets)} buckets")
    else:
        if count.value != ok + timeout:
            problems.append(f"_count {count.value:g} != ok {ok:g} + timeout {timeout:g}")
        if buckets[-1][0] != float("inf") or buckets[-1][1] != count.value:
            problems.append(f"last bucket {buckets[-1]} is not le=+Inf = _count {count.value:g}")
        if any(b[1] > a[1] for b, a in zip(buckets, buckets[1:])):
            problems.append("bucket counts not cumulative")
        if not total.value > 0:
            problems.append(f"_sum {total.value:g}")
    r.check(cname, not problems, "; ".join(problems))


def _quantiles(r, cname: str, m: list[Sample], block: str, device: str, serial: str,
               ok: Sample | None) -> None:
    full = {"device": device, "serial": serial, "block": block, "op": "read", "window": WINDOW}
    got = {q: one(m, "ssd_probe_latency_quantile_seconds", q=q, **full) for q in QUANTILES}
    missing = [q for q, s in got.items() if s is None]
    values = [got[q].value for q in QUANTILES if got[q] is not None]
    n = one(m, "ssd_probe_window_samples", **full)
    problems = []
    if missing:
        any_labels = [show(s) for s in select(m, "ssd_probe_latency_quantile_seconds", block=block)][:2]
        problems.append(f"no q={missing} with {full}; for the block: {any_labels}")
    if values and (min(values) <= 0 or values != sorted(values) or max(values) > 10):
        problems.append(f"quantiles not 0 < p50 <= ... <= p99.99 (s): {values}")
    if n is None or not n.value > 0 or (ok is not None and n.value > ok.value):
        problems.append(f"ssd_probe_window_samples {n} (want 1..ok {_val(ok):g})")
    r.check(cname, not problems, "; ".join(problems))
    if values:
        print(f"  (probe {block}: p50 {values[0] * 1e6:.0f} us, p99 "
              f"{got['0.99'].value * 1e6 if got['0.99'] else float('nan'):.0f} us, "
              f"{_val(n):g} samples in the window)", flush=True)


# ---- 2. never writes -----------------------------------------------------------------

def never_writes(r, share: Path) -> None:
    p = share / "p"
    before, after = _md5sums(p / "md5-before.txt"), _md5sums(p / "md5-after.txt")
    t0, t1 = _uptime(p / "md5-uptime-0"), _uptime(p / "md5-uptime-1")
    if t0 is not None and t1 is not None:
        print(f"  (guest md5sum of {len(before)} devices: {t1 - t0:.1f} s)", flush=True)
    # the SCSI disks' names depend on the guest's probe order (env/scsi-disks)
    scsi = scsi_disks(share)
    images = dict(GUEST_IMAGES)
    if scsi.get("VSCSI"):
        images[f"/dev/{scsi['VSCSI']}"] = "vscsi0"
    # scsi_debug's disk is the guest's RAM: no host image, the guest's sums only
    guest_only = [f"/dev/{scsi['SAS']}"] if scsi.get("SAS") else []
    want = set(images) | set(guest_only)
    r.check("probe.never_writes.guest_checksums_before", set(before) == want and len(want) == 5,
            f"p/md5-before.txt covers {sorted(before)}, want {sorted(want)} "
            f"(env/scsi-disks: {scsi})")
    r.check("probe.never_writes.exporter_stopped_before_checksum",
            not (p / "exporter-still-running").exists() and bool(after),
            "the exporter was still running 3 s after SIGTERM, or no p/md5-after.txt")
    for dev in ["/dev/nvme0n1", "/dev/sda"] + sorted(set(images) - set(GUEST_IMAGES)) + guest_only:
        b, a = before.get(dev), after.get(dev)
        r.check(f"probe.never_writes.guest{dev.replace('/dev/', '.')}", b is not None and a == b,
                f"md5sum {dev} before the exporter {b}, after {a}")
    try:
        host = json.loads((p / "host-md5.json").read_text())
    except (OSError, ValueError):
        host = {}
    hb, ha = host.get("before", {}), host.get("after", {})
    if not r.check("probe.never_writes.host_images", bool(hb) and bool(ha),
                   "no p/host-md5.json"):
        return
    for name in sorted(hb):
        r.check(f"probe.never_writes.host_image.{name}", hb[name] == ha.get(name),
                f"{name}.img md5 before boot {hb[name]}, after QEMU exited {ha.get(name)}")
    mismatch = {dev: (before.get(dev), hb.get(img)) for dev, img in images.items()
                if before.get(dev) != hb.get(img)}
    r.check("probe.never_writes.guest_checksum_is_the_image", not mismatch,
            f"guest md5sum vs host image md5 (the guest must read the whole image): {mismatch}")


def scsi_blocks(share: Path) -> dict[str, tuple[str, str]]:
    """The SCSI disks as probe blocks: block -> (device label, serial by smartctl)."""
    out = {}
    for dev in scsi_disks(share).values():
        try:
            serial = json.loads((share / f"env/smartctl-{dev}.json").read_text())["serial_number"]
        except (OSError, ValueError, KeyError):
            serial = "?"
        out[dev] = (dev, serial)
    return out


def scsi_disks(share: Path) -> dict[str, str]:
    """env/scsi-disks, written by the guest: VSCSI=<QEMU scsi-hd>, SAS=<scsi_debug>."""
    out = {}
    try:
        for line in (share / "env/scsi-disks").read_text().splitlines():
            k, _, v = line.partition("=")
            if v.strip():
                out[k.strip()] = v.strip()
    except OSError:
        pass
    return out


# ---- 3. hot-unplug while probing ------------------------------------------------------

def unplug(r, share: Path) -> None:
    c = share / "c-unplug"
    pre = _load(c / "metrics-before.txt")
    p2 = _load(share / "p/metrics-2.txt") or []
    a1, a2 = _load(c / "metrics-after-1.txt"), _load(c / "metrics-after-2.txt")
    if not r.check("probe.hot_unplug.scrapes", bool(pre) and bool(a1) and bool(a2),
                   "c-unplug/metrics-before.txt, metrics-after-1.txt or -2.txt empty or missing"):
        return
    b0, b1 = _ios(p2, UNPLUGGED, "ok"), _ios(pre, UNPLUGGED, "ok")
    r.check(f"probe.hot_unplug.{UNPLUGGED}_probing_at_unplug",
            b0 is not None and b1 is not None and b1.value > b0.value,
            f"ok count p/metrics-2 {b0}, right before device_del {b1}: want rising")
    for block in SURVIVORS:
        s1, s2 = _ios(a1, block, "ok"), _ios(a2, block, "ok")
        r.check(f"probe.hot_unplug.{block}_still_probing",
                s1 is not None and s2 is not None and s2.value > s1.value,
                f"ok count after the unplug: {s1} then {s2} (2 s apart), want rising")
        bad = _bad_results(a1, block) + _bad_results(a2, block)
        r.check(f"probe.hot_unplug.{block}_no_errors", not bad, f"{bad}")
    # the last scrape of the watch and the two after it
    watch = sorted(c.glob("scrape-*.txt"))
    last = []
    if watch:
        text = watch[-1].read_text(errors="replace").split("\n", 1)
        try:
            last = parse_exposition(text[1] if len(text) > 1 else "")
        except ValueError:
            pass
    left = [show(s) for m in (last, a1, a2) for s in m
            if s.name.startswith("ssd_probe_") and (s.labels.get("block") == UNPLUGGED
                                                    or s.labels.get("device") == "nvme1")]
    r.check(f"probe.hot_unplug.{UNPLUGGED}_probe_series_gone", not left,
            f"still served after the unplug: {left[:3]}")


# ---- 3b. every scrape of the run ------------------------------------------------------

# The guest's scrapes in the order it took them (a watch's scrapes carry a clock line).
SCRAPE_ORDER = ("a/metrics-1.txt", "a/metrics-2.txt", "p/metrics-1.txt", "p/metrics-2.txt",
                "b-set/scrape-*.txt", "b-clear/scrape-*.txt", "c-unplug/metrics-before.txt",
                "c-unplug/scrape-*.txt", "c-unplug/metrics-after-1.txt",
                "c-unplug/metrics-after-2.txt", "c-plug/scrape-*.txt", "s/metrics-0.txt",
                "s/metrics-1.txt", "s/metrics-2.txt", "d/metrics-before.txt",
                "d/metrics-after.txt")


def _scrapes(share: Path) -> list[tuple[str, list[Sample]]]:
    out = []
    for pattern in SCRAPE_ORDER:
        for f in sorted(share.glob(pattern)):
            text = f.read_text(errors="replace")
            if f.name.startswith("scrape-"):
                text = text.split("\n", 1)[-1]
            try:
                m = parse_exposition(text)
            except ValueError:
                continue
            if m:
                out.append((str(f.relative_to(share)), m))
    return out


def whole_run(r, share: Path) -> None:
    """nvme0n1's and sda's probes run the whole time: in every scrape from stage p on
    their ok count is served and never goes down (a restarted probe would start from
    0, e.g. one stopped by the unplug of the other controller), and no scrape shows an
    error or timeout for them."""
    scrapes = _scrapes(share)
    start = next((i for i, (n, _) in enumerate(scrapes) if n.startswith("p/")), len(scrapes))
    for block in SURVIVORS:
        bad = [f"{n}: {b}" for n, m in scrapes for b in _bad_results(m, block)]
        r.check(f"probe.{block}.no_errors_in_any_scrape", bool(scrapes) and not bad,
                f"{len(bad)} in {len(scrapes)} scrapes: {bad[:3]}")
        prev, problems = None, []
        for n, m in scrapes[start:]:
            s = _ios(m, block, "ok")
            if s is None:
                problems.append(f"{n}: no ok series")
            elif prev is not None and s.value < prev[1]:
                problems.append(f"{prev[0]} {prev[1]:g} -> {n} {s.value:g}")
            if s is not None:
                prev = (n, s.value)
        r.check(f"probe.{block}.ok_count_never_resets", len(scrapes) > start and not problems,
                f"over {len(scrapes) - start} scrapes from stage p on: {problems[:3]}")


# ---- 4. the exporter log --------------------------------------------------------------

def _log(share: Path) -> list[str]:
    try:
        return (share / "exporter.log").read_text(errors="replace").splitlines()
    except OSError:
        return []


def _int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def log(r, share: Path) -> None:
    lines = _log(share)
    panics = [ln for ln in lines if "panic" in ln.lower()]
    r.check("exporter_log_no_panic", bool(lines) and not panics,
            f"{len(lines)} log lines; panics: {panics[:3]}")
    for block in BLOCKS:
        started = [ln for ln in lines if "latency probe started" in ln
                   and re.search(rf"\bblock=\"?{block}\b", ln)]
        r.check(f"probe.log_started.{block}", bool(started),
                f"no 'latency probe started' line with block={block}")
    c = share / "c-unplug"
    lo, hi = _int(c / "log-lines-before"), _int(c / "log-lines-after")
    if not r.check("probe.hot_unplug.log_window", lo is not None and hi is not None and lo <= hi,
                   f"log line counts before the unplug {lo}, before the hot-plug {hi}"):
        return
    window = lines[lo:hi]
    stopped = [ln for ln in window if "latency probe stopped" in ln
               and re.search(rf"\bblock=\"?{UNPLUGGED}\b", ln)]
    r.check(f"probe.hot_unplug.{UNPLUGGED}_probe_stop_logged", bool(stopped),
            f"no 'latency probe stopped' for block={UNPLUGGED} in the {len(window)} lines "
            f"logged between the unplug and the hot-plug")
    warns = [ln for ln in window if "level=warn" in ln and "nvme1" in ln]
    r.check("probe.hot_unplug.no_warning_storm", len(warns) <= MAX_UNPLUG_WARNINGS,
            f"{len(warns)} level=warn lines naming nvme1 after the unplug "
            f"(max {MAX_UNPLUG_WARNINGS}), e.g. {warns[:3]}")
    for ln in window:
        if "nvme1" in ln and ("level=warn" in ln or "probe" in ln or "level=error" in ln):
            print(f"  (after unplug: {ln[:240]})", flush=True)


# ---- 5. the hot-plugged controller ----------------------------------------------------

def hot_plugged(r, share: Path) -> None:
    m = _load(share / "d/metrics-after.txt") or []
    ok = [s for s in select(m, "ssd_probe_ios_total", serial=HOTPLUG_SERIAL, result="ok")
          if s.value > 0]
    r.check("probe.hot_plug.new_controller_probed", bool(ok),
            f"no ssd_probe_ios_total{{serial=\"{HOTPLUG_SERIAL}\",result=\"ok\"}} > 0 in "
            f"d/metrics-after.txt: {[show(s) for s in select(m, 'ssd_probe_ios_total', serial=HOTPLUG_SERIAL)]}")
    if ok:
        print(f"  (hot-plugged controller probed as block=\"{ok[0].labels.get('block')}\", "
              f"device=\"{ok[0].labels.get('device')}\")", flush=True)


def all_checks(r, share: Path) -> None:
    if (share / "p/metrics-1.txt").exists():
        running(r, share, {**BLOCKS, **scsi_blocks(share)})
    else:
        r.check("probe.scrapes", False, "the guest never reached stage p")
    never_writes(r, share)
    if (share / "c-unplug").is_dir():
        unplug(r, share)
    else:
        r.check("probe.hot_unplug", False, "the guest never reached stage c-unplug")
    whole_run(r, share)
    log(r, share)
    if (share / "d/metrics-after.txt").exists():
        hot_plugged(r, share)
