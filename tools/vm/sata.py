"""SATA checks: the exporter's sda series against `smartctl -j -x /dev/sda` (7.3).

smartctl 7.3's JSON for QEMU's AHCI disk (see share/a/sda-smartctl.json): `model_name`,
`serial_number`, `firmware_version` (trimmed), `user_capacity.bytes`, `wwn` {naa, oui,
id} only when IDENTIFY words 108-111 hold one (QEMU's disk has none), `smart_status.passed`,
`ata_smart_attributes.table[]` with `id`, `name`, `value`, `worst`, `thresh` and
`raw.value` (the six raw bytes as one little-endian integer), `temperature.current`,
`power_on_time.hours`, `power_cycle_count`, `ata_smart_self_test_log.standard.table[]`
(newest first; `status.string` as ataprint.cpp's ataPrintSmartSelfTestEntry words it).
`smartctl.exit_status` is 4 on QEMU's disk: QEMU aborts "Read SMART Log Directory"
(SMART READ LOG 00h), which sets bit 2 ("some SMART or other ATA command failed").
"""

from __future__ import annotations

import math
from pathlib import Path

from tools.vm.prom import Sample, one, parse_exposition, select, series_key, show
from tools.vm.work import read_json

DEVICE = "sda"
SERIAL = "SATA0000"
ATTR_METRICS = {"value": "ssd_ata_attribute_value", "worst": "ssd_ata_attribute_worst",
                "thresh": "ssd_ata_attribute_threshold", "raw": "ssd_ata_attribute_raw"}
# Attributes whose raw value a live drive advances by itself.
MOVING_ATTRS = {9}
# smartctl's self-test status strings (ataprint.cpp, by result nibble) -> the
# exporter's `result` label.
SELF_TEST_RESULTS = {
    "Completed without error": "passed",
    "Aborted by host": "aborted_by_host",
    "Interrupted (host reset)": "interrupted_by_reset",
    "Fatal or unknown error": "fatal_error",
    "Completed: unknown failure": "unknown_failure",
    "Completed: electrical failure": "electrical_failure",
    "Completed: servo/seek failure": "servo_failure",
    "Completed: read failure": "read_failure",
    "Completed: handling damage??": "handling_damage",
    "Self-test routine in progress": "in_progress",
}
# Bookkeeping series smartctl cannot confirm.
NOT_COMPARED = ("ssd_last_poll_timestamp_seconds", "ssd_poll_duration_seconds",
                "ssd_poll_errors_total", "ssd_polls_total", "ssd_poll_cpu_seconds_total",
                "ssd_exporter_", "ssd_probe_")


def _load(path: Path) -> list[Sample] | None:
    try:
        return parse_exposition(path.read_text())
    except (OSError, ValueError):
        return None


def _rc(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return "?"


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)


def _wwn(js: dict) -> str:
    """The exporter's wwn label: naa.<16 hex digits> of IDENTIFY words 108-111."""
    w = js.get("wwn")
    if not w:
        return ""
    return f"naa.{(w['naa'] << 60) | (w['oui'] << 36) | w['id']:016x}"


def _find(samples: list[Sample], metric: str, labels: dict) -> Sample | None:
    """prom.one with the labels as a dict: the attribute label `name` would clash
    with one()'s own parameter."""
    found = [s for s in samples
             if s.name == metric and all(s.labels.get(k) == v for k, v in labels.items())]
    return found[0] if len(found) == 1 else None


def _sum_errors(m: list[Sample]) -> tuple[float, dict]:
    errs = {s.labels.get("source"): s.value for s in select(m, "ssd_poll_errors_total", device=DEVICE)}
    return sum(errs.values()), errs


# ---- 1. equality with smartctl -j -x, stage a --------------------------------------

def equality(r, share: Path) -> None:
    a = share / "a"
    m1, m2 = _load(a / "metrics-1.txt"), _load(a / "metrics-2.txt")
    js = read_json(a / "sda-smartctl.json")
    rc = _rc(a / "sda-smartctl.rc")
    # bits 0-1: command line / device open failed; anything else still yields data
    usable = bool(js.get("model_name")) and rc.isdigit() and int(rc) & 3 == 0
    if not r.check("sda.smartctl_json", usable,
                   f"smartctl -j -x /dev/sda exit status {rc}, no usable JSON (a/sda-smartctl.*)"):
        return
    print(f"  (sda: smartctl -j -x exit status {rc}; messages: "
          f"{[m.get('string') for m in js.get('smartctl', {}).get('messages', [])]})", flush=True)
    if not m1 or not m2:
        r.check("sda.equality_scrapes", False, "a/metrics-1.txt or a/metrics-2.txt empty")
        return
    t2 = int((a / "t2").read_text())
    ts = one(m2, "ssd_last_poll_timestamp_seconds", device=DEVICE)
    fresh = ts is not None and ts.value >= t2 + 1
    r.check("sda.polled_after_smartctl", fresh,
            f"ssd_last_poll_timestamp_seconds in metrics-2 {ts} is not after smartctl ({t2})")

    serial = js["serial_number"]
    checked: set = set()

    def same(cname: str, name: str, labels: dict, want: float) -> None:
        full = {"device": DEVICE, "serial": serial, **labels}
        s1, s2 = one(m1, name, **full), one(m2, name, **full)
        checked.update(series_key(s) for s in (s1, s2) if s is not None)
        if s1 is None or s2 is None:
            similar = [show(s) for s in select(m1, name, device=DEVICE)]
            r.check(cname, False, f"no series {name}{_fmt(full)} (smartctl: {want:g}); "
                    f"same name for {DEVICE}: {similar[:3]}")
        else:
            r.check(cname, _same(s1.value, want) and _same(s2.value, want),
                    f"exporter {s1.value:g} / {s2.value:g}, smartctl {want:g}")

    info = {"transport": "sata", "model": js["model_name"],
            "firmware": js["firmware_version"], "wwn": _wwn(js)}
    same("sda.ssd_device_info", "ssd_device_info", info, 1)
    same("sda.ssd_capacity_bytes", "ssd_capacity_bytes", {}, js["user_capacity"]["bytes"])
    same("sda.ssd_smart_passed", "ssd_smart_passed", {},
         1 if js["smart_status"]["passed"] else 0)
    same("sda.ssd_device_up", "ssd_device_up", {}, 1)
    def absent(cname: str, name: str, labels: dict, what: str) -> None:
        """smartctl does not report it: neither may the exporter (no fake 0)."""
        full = {"device": DEVICE, "serial": serial, **labels}
        found = [show(s) for m in (m1, m2) for s in select(m, name, **full)]
        r.check(cname, not found, f"smartctl reports no {what}, the exporter serves {found}")

    _attributes(r, m1, m2, js, serial, checked)
    if "temperature" in js:
        same("sda.ssd_temperature_celsius{composite}", "ssd_temperature_celsius",
             {"sensor": "composite"}, js["temperature"]["current"])
    else:
        absent("sda.ssd_temperature_celsius{composite}", "ssd_temperature_celsius",
               {"sensor": "composite"}, "temperature")
    if "power_cycle_count" in js:
        same("sda.ssd_power_cycles_total", "ssd_power_cycles_total", {}, js["power_cycle_count"])
    else:
        absent("sda.ssd_power_cycles_total", "ssd_power_cycles_total", {}, "power_cycle_count")
    if "power_on_time" in js:
        _power_on(r, m1, m2, js, serial, fresh, checked)
    else:
        absent("sda.ssd_power_on_seconds_total", "ssd_power_on_seconds_total", {},
               "power_on_time")
    if "rotation_rate" in js:
        print(f"  (sda: smartctl rotation_rate {js['rotation_rate']}: no exporter metric)")
    unchecked = sorted(show(s) for s in m1 if s.labels.get("device") == DEVICE
                       and series_key(s) not in checked and not s.name.startswith(NOT_COMPARED))
    if unchecked:
        print("  (sda series not compared with smartctl: " + "; ".join(unchecked) + ")",
              flush=True)


def _fmt(labels: dict) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


def _attributes(r, m1, m2, js: dict, serial: str, checked: set) -> None:
    """Every attribute smartctl lists, with its id AND name, in all four families;
    and no attribute smartctl does not list."""
    table = js.get("ata_smart_attributes", {}).get("table", [])
    r.check("sda.smartctl_lists_attributes", bool(table), "no ata_smart_attributes.table")
    for a in table:
        labels = {"device": DEVICE, "serial": serial, "id": str(a["id"]), "name": a["name"]}
        for key, metric in ATTR_METRICS.items():
            want = a["raw"]["value"] if key == "raw" else a[key]
            s1, s2 = _find(m1, metric, labels), _find(m2, metric, labels)
            checked.update(series_key(s) for s in (s1, s2) if s is not None)
            cname = f"sda.{metric}{{{a['id']},{a['name']}}}"
            if s1 is None or s2 is None:
                other = [show(s) for s in select(m1, metric, device=DEVICE, id=str(a["id"]))]
                r.check(cname, False, f"no series {metric}{_fmt(labels)} (smartctl {want}); "
                        f"same id: {other}")
            elif key == "raw" and a["id"] in MOVING_ATTRS:
                r.check(cname, s1.value <= want <= s2.value,
                        f"want before {s1.value:g} <= smartctl {want} <= after {s2.value:g}")
            else:
                r.check(cname, _same(s1.value, want) and _same(s2.value, want),
                        f"exporter {s1.value:g} / {s2.value:g}, smartctl {want}")
    want_ids = {str(a["id"]) for a in table}
    extra = sorted({f"{s.name}{{id={s.labels.get('id')},name={s.labels.get('name')}}}"
                    for m in (m1, m2) for metric in ATTR_METRICS.values()
                    for s in select(m, metric, device=DEVICE) if s.labels.get("id") not in want_ids})
    r.check("sda.no_extra_attributes", not extra, f"not listed by smartctl: {extra[:6]}")


def _power_on(r, m1, m2, js: dict, serial: str, fresh: bool, checked: set) -> None:
    """A moving counter: metrics-1 (before smartctl) <= smartctl <= metrics-2 (after a
    later poll), in whole hours, as smartctl reports it."""
    hours = js["power_on_time"]["hours"]
    full = {"device": DEVICE, "serial": serial}
    s1 = one(m1, "ssd_power_on_seconds_total", **full)
    s2 = one(m2, "ssd_power_on_seconds_total", **full)
    checked.update(series_key(s) for s in (s1, s2) if s is not None)
    if s1 is None or s2 is None:
        r.check("sda.ssd_power_on_seconds_total", False,
                f"no series (smartctl power_on_time.hours {hours})")
        return
    h1, h2 = s1.value // 3600, s2.value // 3600
    ok = h1 <= hours and (hours <= h2 or not fresh)
    r.check("sda.ssd_power_on_seconds_total", ok,
            f"want before {s1.value:g} s ({h1:g} h) <= smartctl {hours} h "
            f"<= after {s2.value:g} s ({h2:g} h)")


# ---- 2. the aborted log read ---------------------------------------------------------

def aborted_log(r, share: Path) -> None:
    """QEMU aborts the SMART log directory read (smartctl exits 4). Whatever log the
    exporter reads and QEMU aborts must count as unsupported: sda stays up, its
    attributes stay served, and its poll error counters do not rise."""
    scrapes = {n: _load(share / n) for n in ("a/metrics-1.txt", "a/metrics-2.txt",
                                            "s/metrics-1.txt", "s/metrics-2.txt")}
    scrapes = {n: m for n, m in scrapes.items() if m}
    if not r.check("sda.aborted_log_scrapes", len(scrapes) == 4,
                   f"only {sorted(scrapes)} were scraped"):
        return
    down = [f"{n}: {one(m, 'ssd_device_up', device=DEVICE)}" for n, m in scrapes.items()
            if (u := one(m, "ssd_device_up", device=DEVICE)) is None or u.value != 1]
    r.check("sda.up_despite_aborted_log_read", not down, "; ".join(down))
    no_attrs = [n for n, m in scrapes.items() if not select(m, "ssd_ata_attribute_raw", device=DEVICE)]
    r.check("sda.attributes_served_despite_aborted_log_read", not no_attrs,
            f"no ssd_ata_attribute_raw for sda in {no_attrs}")
    first, last = scrapes["a/metrics-1.txt"], scrapes["s/metrics-2.txt"]
    e0, by0 = _sum_errors(first)
    e1, by1 = _sum_errors(last)
    p0 = one(first, "ssd_polls_total", device=DEVICE)
    p1 = one(last, "ssd_polls_total", device=DEVICE)
    polls = (p1.value - p0.value) if p0 and p1 else 0
    rising = {k: f"{by0.get(k, 0):g} -> {v:g}" for k, v in by1.items() if v > by0.get(k, 0)}
    r.check("sda.poll_errors_not_rising", polls >= 3 and not rising,
            f"{polls:g} polls between a/metrics-1 and s/metrics-2 (need >= 3); "
            f"rising: {rising}")
    print(f"  (sda: {polls:g} polls, ssd_poll_errors_total {e0:g} -> {e1:g}, "
          f"sources {sorted(by1)})", flush=True)
    # The exporter's own account of the aborted reads: logged as "not supported",
    # never at warn/error level.
    try:
        lines = (share / "exporter.log").read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    sda = [ln for ln in lines if "/dev/sda" in ln]
    loud = [ln for ln in sda if "level=warn" in ln.lower() or "level=error" in ln.lower()]
    unsupported = [ln for ln in sda if "not supported" in ln]
    r.check("sda.aborted_reads_logged_as_unsupported", not loud,
            f"{len(loud)} warn/error lines for /dev/sda, e.g. {loud[:2]}")
    for ln in unsupported[:4]:
        print(f"  (sda unsupported: {ln.split('msg=', 1)[-1][:200]})", flush=True)


# ---- 3. labels -----------------------------------------------------------------------

def labels(r, share: Path) -> None:
    """Every sda series carries device and serial (the general check covers every
    scrape; this one makes sure sda is actually in them, with its own serial)."""
    m = _load(share / "a/metrics-1.txt") or []
    sda = [s for s in m if s.labels.get("device") == DEVICE]
    bad = [show(s) for s in sda if s.labels.get("serial") != SERIAL]
    r.check("sda.every_series_has_device_and_serial", bool(sda) and not bad,
            f"{len(sda)} sda series; without serial {SERIAL}: {bad[:4]}")
    print(f"  (sda: {len(sda)} series, {len({s.name for s in sda})} metric names)", flush=True)


# ---- 4. self-test ----------------------------------------------------------------------

def self_test(r, share: Path) -> None:
    s = share / "s"
    before_js = read_json(share / "a/sda-smartctl.json")
    before = _load(share / "a/metrics-2.txt") or []
    count = before_js.get("ata_smart_self_test_log", {}).get("standard", {}).get("count")
    if count == 0:
        pre = [show(x) for x in select(before, "ssd_self_test_last_result", device=DEVICE)]
        r.check("sda.self_test_none_before", not pre,
                f"smartctl logs no self-test yet, exporter serves {pre}")
    rc = _rc(s / "selftest.rc")
    if not r.check("sda.smartctl_short_self_test_started", rc == "0",
                   f"smartctl -t short /dev/sda exit status {rc} (s/selftest.out)"):
        return
    js = read_json(s / "sda-smartctl.json")
    table = js.get("ata_smart_self_test_log", {}).get("standard", {}).get("table", [])
    if not r.check("sda.smartctl_self_test_logged", bool(table),
                   f"no ata_smart_self_test_log.standard.table in s/sda-smartctl.json "
                   f"(exit status {_rc(s / 'sda-smartctl.rc')})"):
        return
    newest = table[0]
    status = newest.get("status", {}).get("string", "")
    want = SELF_TEST_RESULTS.get(status)
    print(f"  (sda: smartctl's newest self-test: {newest.get('type', {}).get('string')}, "
          f"{status!r}, status value {newest.get('status', {}).get('value')})", flush=True)
    if not r.check("sda.smartctl_self_test_status_known", want is not None,
                   f"status string {status!r} not in the mapping"):
        return
    for name in ("metrics-1.txt", "metrics-2.txt"):
        m = _load(s / name) or []
        got = select(m, "ssd_self_test_last_result", device=DEVICE)
        ok = len(got) == 1 and got[0].labels.get("result") == want and got[0].value == 1
        r.check(f"sda.ssd_self_test_last_result[s/{name}]", ok,
                f"exporter {[show(x) for x in got]}, smartctl {status!r} -> result=\"{want}\"")
