"""Stage f, after the run: what must hold through each fault (see faults.py for the
faults themselves and the limits), judged from the share's files."""

from __future__ import annotations

import statistics
from pathlib import Path

from tools.vm.faults import (FD_SLACK, GONE_LIMIT, POLL_GAP_LIMIT, RECOVERY_LIMIT, REPLUG_LIMIT,
                    SCRAPE_LIMIT, SLOW_READ_SECONDS, SLOW_SERIAL, THREAD_FAULT_SLACK,
                    THREAD_SLACK, TIMEOUT_SEEN_LIMIT, _gone_limit, sas_disk, survivors)
from tools.vm.prom import Sample, one, parse_exposition, select, show
from tools.vm.work import read_json


def _scrapes(folder: Path) -> list[tuple[dict, list[Sample]]]:
    """A watch's scrapes in order, each with its first line: epoch, uptime before and
    after the scrape, the exporter's threads and fds ("-" when it was gone)."""
    out = []
    for f in sorted(folder.glob("scrape-*.txt")):
        head, _, body = f.read_text(errors="replace").partition("\n")
        parts = head.split()
        meta = {"file": f.name}
        try:
            meta["epoch"] = int(parts[0])
            meta["seconds"] = float(parts[2]) - float(parts[1])
            meta["threads"] = int(parts[3]) if parts[3] != "-" else None
            meta["fds"] = int(parts[4]) if parts[4] != "-" else None
        except (IndexError, ValueError):
            pass
        try:
            samples = parse_exposition(body)
        except ValueError:
            samples = []
        out.append((meta, samples))
    return out


def _stats(path: Path) -> tuple[int, int] | None:
    """The smallest threads and fds of settled_stats' three samples."""
    try:
        rows = [tuple(int(x) for x in line.split()) for line in path.read_text().splitlines()
                if line.strip() and "-" not in line]
    except (OSError, ValueError):
        return None
    if not rows:
        return None
    return min(r[0] for r in rows), min(r[1] for r in rows)


def common(r, share: Path, stage: str, scrapes: list, survivors: dict[str, str],
           blocks: dict[str, str]) -> None:
    """What must hold during any fault: scrapes answered promptly, the other drives
    polled and probed on schedule, no task restarted."""
    if not r.check(f"fault.{stage}.scrapes", len(scrapes) >= 2,
                   f"{len(scrapes)} scrapes in {stage}/ (want >= 2)"):
        return
    empty = [m["file"] for m, s in scrapes if one(s, "ssd_exporter_devices") is None]
    r.check(f"fault.{stage}.metrics_answered", not empty,
            f"{len(empty)} of {len(scrapes)} scrapes empty or without ssd_exporter_devices: "
            f"{empty[:4]}")
    secs = [m["seconds"] for m, _ in scrapes if "seconds" in m]
    slow = [f"{m['file']} {m['seconds']:.2f} s" for m, _ in scrapes
            if not 0 <= m.get("seconds", 0) <= SCRAPE_LIMIT]
    r.check(f"fault.{stage}.scrape_time", bool(secs) and not slow,
            f"scrapes over {SCRAPE_LIMIT} s: {slow[:4]}")
    if secs:
        print(f"  ({stage}: {len(secs)} scrapes, median {statistics.median(secs) * 1000:.0f} ms, "
              f"max {max(secs) * 1000:.0f} ms, guest clock resolution 10 ms)", flush=True)
    span = scrapes[-1][0].get("epoch", 0) - scrapes[0][0].get("epoch", 0)
    for dev, serial in survivors.items():
        stamps = [(m.get("epoch"), one(s, "ssd_last_poll_timestamp_seconds", device=dev,
                                       serial=serial)) for m, s in scrapes]
        values = [ts.value for _, ts in stamps if ts is not None]
        missing = sum(1 for _, ts in stamps if ts is None)
        # the longest a scrape saw the same poll timestamp, by the guest's clock
        gap, changed_at, prev = 0.0, None, None
        for epoch, ts in stamps:
            if ts is None or epoch is None:
                continue
            if prev is None or ts.value != prev:
                changed_at, prev = epoch, ts.value
            gap = max(gap, epoch - changed_at)
        r.check(f"fault.{stage}.{dev}_polled_on_schedule",
                not missing and len(set(values)) >= 2 and gap <= POLL_GAP_LIMIT,
                f"ssd_last_poll_timestamp_seconds missing in {missing} of {len(stamps)} "
                f"scrapes; {len(set(values))} distinct values over {span} s; the same value "
                f"seen for {gap:.0f} s (limit {POLL_GAP_LIMIT})")
        block = blocks.get(dev)
        if block:
            oks = [one(s, "ssd_probe_ios_total", block=block, op="read", result="ok")
                   for _, s in scrapes]
            first, last = oks[0], oks[-1]
            bad = [show(x) for _, s in scrapes for x in select(s, "ssd_probe_ios_total", block=block)
                   if x.labels.get("result") in ("error", "timeout") and x.value]
            r.check(f"fault.{stage}.{block}_probed",
                    first is not None and last is not None and last.value > first.value and not bad,
                    f"ok count {first} -> {last} over the stage; errors/timeouts: {bad[:2]}")
    restarted = [show(x) for _, s in scrapes for x in select(s, "ssd_exporter_task_restarts_total")
                 if x.value]
    r.check(f"fault.{stage}.no_task_restarts", not restarted, f"{restarted[:3]}")


def leaks(r, share: Path, name: str, before_path: Path, after_path: Path,
          during: list) -> None:
    before, after = _stats(before_path), _stats(after_path)
    if not r.check(f"fault.{name}.threads_fds_measured", before is not None and after is not None,
                   f"{before_path.name}: {before}, {after_path.name}: {after} (exporter gone?)"):
        return
    (tb, fb), (ta, fa) = before, after
    peak_t = max((m["threads"] for m, _ in during if m.get("threads") is not None), default=None)
    peak_f = max((m["fds"] for m, _ in during if m.get("fds") is not None), default=None)
    print(f"  ({name}: threads {tb} before, peak {peak_t} during, {ta} after; "
          f"fds {fb} before, peak {peak_f} during, {fa} after)", flush=True)
    r.check(f"fault.{name}.threads_bounded_after", ta <= tb + THREAD_SLACK,
            f"threads {tb} before, {ta} after the recovery (slack {THREAD_SLACK})")
    r.check(f"fault.{name}.fds_bounded_after", fa <= fb + FD_SLACK,
            f"open fds {fb} before, {fa} after the recovery (slack {FD_SLACK})")
    r.check(f"fault.{name}.threads_bounded_during",
            peak_t is not None and peak_t <= tb + THREAD_FAULT_SLACK,
            f"threads peaked at {peak_t} during the fault, {tb} before "
            f"(slack {THREAD_FAULT_SLACK})")


def nvme(r, share: Path) -> None:
    f, g = share / "f-nvme", share / "f-replug"
    if not r.check("fault.nvme.stage_ran", (f / "host-times.json").exists(),
                   "the run never reached stage f-nvme"):
        return
    times = read_json(f / "host-times.json")
    seen, dele = times.get("timeout_seen"), times.get("device_del")
    r.check("fault.nvme.slow_read_counted_as_timeout", seen is not None and seen <= TIMEOUT_SEEN_LIMIT,
            f"ssd_probe_ios_total{{serial=\"{SLOW_SERIAL}\",result=\"timeout\"}} >= 1 "
            f"{'not seen' if seen is None else f'after {seen:.1f} s'} (limit {TIMEOUT_SEEN_LIMIT} s)")
    # a read issued after the throttle was set cannot have finished before the unplug
    r.check("fault.nvme.unplugged_with_probe_read_in_flight",
            seen is not None and dele is not None and dele < 0.9 * SLOW_READ_SECONDS,
            f"device_del {dele} s after the throttle was set; a throttled read takes "
            f"{SLOW_READ_SECONDS:.1f} s")
    if seen is not None and dele is not None:
        print(f"  (f-nvme: probe timeout counted {seen:.1f} s after the throttle, device_del "
              f"at {dele:.1f} s; a throttled read needs {SLOW_READ_SECONDS:.1f} s)", flush=True)
    scrapes = _scrapes(f)
    # the throttle holds until the controller is gone: while its read is stuck, the
    # slow controller's own poll goes on
    polls = {x.value for _, s in scrapes
             for x in select(s, "ssd_last_poll_timestamp_seconds", serial=SLOW_SERIAL)}
    r.check("fault.nvme.slow_drive_still_polled", len(polls) >= 3,
            f"{len(polls)} distinct ssd_last_poll_timestamp_seconds of {SLOW_SERIAL} while "
            f"throttled (want >= 3: admin commands are not throttled)")
    errs: dict[str, float] = {}
    for _, s in scrapes:
        for x in select(s, "ssd_poll_errors_total", serial=SLOW_SERIAL):
            errs[x.labels.get("source")] = max(errs.get(x.labels.get("source"), 0), x.value)
    first = {x.labels.get("source"): x.value
             for x in select(scrapes[0][1] if scrapes else [], "ssd_poll_errors_total",
                             serial=SLOW_SERIAL)}
    grown = {k: v - first.get(k, 0) for k, v in errs.items() if v > first.get(k, 0)}
    r.check("fault.nvme.poll_errors_counted_by_source_during_removal",
            "smart_log" in grown,
            f"ssd_poll_errors_total{{serial=\"{SLOW_SERIAL}\"}} growth by source over the stage: "
            f"{grown} (want smart_log among them: its admin commands fail while it is removed)")
    if grown:
        print(f"  (f-nvme: poll errors counted while the controller was being removed: {grown})",
              flush=True)
    gone = times.get("series_gone")
    limit = _gone_limit(seen if seen is not None else TIMEOUT_SEEN_LIMIT)
    r.check("fault.nvme.unplug_series_removed", gone is not None and gone <= limit,
            f"no {SLOW_SERIAL} series {'never' if gone is None else f'{gone:.1f} s'} after the "
            f"throttle was set (limit {limit:.1f} s: the stuck read's end + {GONE_LIMIT} s)")
    if gone is not None:
        print(f"  (f-nvme: series gone {gone:.1f} s after the throttle was set, "
              f"{gone - (dele or 0):.1f} s after device_del)", flush=True)
    r.check("fault.nvme.qemu_finished_unplug", times.get("qemu_deleted") is True,
            "QEMU still listed the controller 10 s after device_del")
    r.check("fault.nvme.exporter_alive_after_unplug", (f / "exporter-alive").exists(),
            "the exporter process was gone after the unplug")
    back = read_json(g / "host-times.json").get("replugged")
    r.check("fault.nvme.replugged_polled_and_probed", back is not None and back <= REPLUG_LIMIT,
            f"ssd_device_up 1 and a probe ok count for {SLOW_SERIAL} "
            f"{'never' if back is None else f'after {back:.1f} s'} (limit {REPLUG_LIMIT} s)")
    if back is not None:
        print(f"  (f-replug: {SLOW_SERIAL} polled and probed again {back:.1f} s after device_add)",
              flush=True)
    replug = _scrapes(g)
    # the throttle, the unplug and the re-plug as one fault
    common(r, share, "nvme", scrapes + replug, *survivors(share, None))
    leaks(r, share, "nvme", f / "stats-before", g / "stats-after", scrapes + replug)
    after = []
    try:
        after = parse_exposition((g / "metrics-after.txt").read_text())
    except (OSError, ValueError):
        pass
    up = [s for s in select(after, "ssd_device_up", serial=SLOW_SERIAL) if s.value == 1]
    r.check("fault.nvme.replugged_still_up_after_settling", bool(up),
            f"ssd_device_up for {SLOW_SERIAL} in f-replug/metrics-after.txt: "
            f"{[show(s) for s in select(after, 'ssd_device_up', serial=SLOW_SERIAL)]}")


def _value(samples: list[Sample], name: str, **labels) -> float:
    s = one(samples, name, **labels)
    return s.value if s is not None else 0.0


# what the kernel prints (scsi_print_sense, KERN_INFO) for each injected answer; the
# timeouts leave no such line and are shown by the exporter's counts instead
DMESG_SIGN = {"f-medium": "Medium Error", "f-recovered": "Recovered Error"}


def _new_dmesg(folder: Path, sign: str) -> int:
    try:
        before = (folder / "dmesg-before.txt").read_text(errors="replace").count(sign)
        after = (folder / "dmesg-after.txt").read_text(errors="replace").count(sign)
    except OSError:
        return -1
    return after - before


def scsi_fault(r, share: Path, stage: str, sas: str) -> None:
    on, off = share / stage, share / f"{stage}-after"
    name = stage.removeprefix("f-")
    times = read_json(on / "host-times.json")
    if not r.check(f"fault.{name}.stage_ran", bool(times), f"the run never finished {stage}"):
        return
    fault, after = _scrapes(on), _scrapes(off)
    visible, back = times.get("fault_visible"), times.get("recovered")
    common(r, share, name, fault + after, *survivors(share, sas))
    if not fault or not after:
        return
    if stage in DMESG_SIGN:
        n = _new_dmesg(on, DMESG_SIGN[stage])
        r.check(f"fault.{name}.injected_on_the_kernel_path", n > 0,
                f"{n} new '{DMESG_SIGN[stage]}' lines in the guest's dmesg during {stage} "
                "(the fault did not happen?)")
        print(f"  ({stage}: {n} '{DMESG_SIGN[stage]}' sense lines in dmesg)", flush=True)
    first, last, end = fault[0][1], fault[-1][1], after[-1][1]
    ios = {res: [_value(m, "ssd_probe_ios_total", block=sas, op="read", result=res)
                 for m in (first, last, end)] for res in ("ok", "error", "timeout")}
    errs = {}
    for m_name, m in (("first", first), ("last", last), ("end", end)):
        for x in select(m, "ssd_poll_errors_total", device=sas):
            errs.setdefault(x.labels.get("source"), {})[m_name] = x.value
    grown = {src: v.get("last", 0) - v.get("first", 0) for src, v in errs.items()
             if v.get("last", 0) > v.get("first", 0)}
    ups = [_value(m, "ssd_device_up", device=sas) for _, m in fault]
    stamps = {_value(m, "ssd_last_poll_timestamp_seconds", device=sas) for _, m in fault}
    print(f"  ({stage} on {sas}: probe ok/error/timeout {ios}; poll errors grown by source "
          f"{grown}; up {ups[0]:g}..{ups[-1]:g} over {len(fault)} scrapes; fault visible "
          f"{visible}, recovered {back} s after clearing)", flush=True)
    r.check(f"fault.{name}.recovered", back is not None and back <= RECOVERY_LIMIT[stage],
            f"{sas} up and its probe ok count rising without new errors "
            f"{'never' if back is None else f'after {back:.1f} s'} "
            f"(limit {RECOVERY_LIMIT[stage]} s)")
    if stage == "f-medium":
        # reads fail, LOG SENSE does not: the probe counts errors, the poll goes on
        r.check("fault.medium.probe_errors_counted", visible is not None
                and ios["error"][1] - ios["error"][0] >= 3,
                f"ssd_probe_ios_total{{block=\"{sas}\",result=\"error\"}} {ios['error']}")
        r.check("fault.medium.disk_still_polled", all(u == 1 for u in ups) and len(stamps) >= 2
                and not grown,
                f"{sas} up {ups}, {len(stamps)} poll timestamps, poll errors grown {grown}: "
                "medium errors hit reads only, the poll must go on without errors")
    elif stage == "f-recovered":
        # a recovered error is a success with sense attached
        r.check("fault.recovered.no_errors_counted",
                ios["error"][2] == ios["error"][0] and ios["timeout"][2] == ios["timeout"][0]
                and not grown and ios["ok"][1] > ios["ok"][0] and all(u == 1 for u in ups),
                f"probe {ios}, poll errors grown {grown}, up {ups}: recovered errors are "
                "successes")
    elif stage == "f-timeout":
        r.check("fault.timeout.probe_timeout_counted", ios["timeout"][1] > ios["timeout"][0],
                f"ssd_probe_ios_total{{block=\"{sas}\",result=\"timeout\"}} {ios['timeout']}")
        r.check("fault.timeout.poll_errors_counted", bool(grown) and ups[-1] == 0,
                f"{sas}: poll errors grown by source {grown}, up at the end of the fault "
                f"{ups[-1]:g} (want errors counted and up 0)")
    leaks(r, share, name, on / "stats-before", off / "stats-after", fault + after)
    r.check(f"fault.{name}.exporter_alive", (off / "exporter-alive").exists(),
            f"the exporter process was gone after {stage}")


def all_checks(r, share: Path) -> None:
    nvme(r, share)
    sas = sas_disk(share)
    if not r.check("fault.scsi_debug_disk", bool(sas), "no scsi_debug disk: no SCSI faults"):
        return
    for stage in ("f-medium", "f-recovered", "f-timeout"):
        scsi_fault(r, share, stage, sas)
