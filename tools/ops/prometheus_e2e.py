"""The operators' kit against the real thing: Debian's Prometheus on loopback
scraping `ssd_exporter --demo` and `ssd_exporter --replay <every fixture>`,
with the alert and recording rules loaded. Through Prometheus' HTTP API it
checks that:

- every dashboard panel's query (variables substituted) returns data;
- for each failing drive (the demo's nvme2 and the failing fixtures) the
  alerts it must raise fire, and every other alert of the rules file does
  not; the healthy drives fire none;
- every recording rule produces series;
- every `ssd_*` name the dashboards, the rules and the docs' runbooks use is
  one the exporter really emits (compared with both live expositions).

The rules are loaded with every `for:` shortened to 0s (a copy in a temp
dir): the point is whether each expression matches real data, not the wait.

Usage: python3 -m tools.ops.prometheus_e2e [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from tools import ROOT, grafana
from tools.ops.common import (
    Checks, exporter_binary, free_port, get, prometheus_binary, start_prometheus, stop_all,
    wait_http)

# The demo's drives (README "Demo") and the fixtures' healthy drives.
DEMO_HEALTHY = {"nvme0", "nvme1", "sda", "sdb"}
# Issue 21's healthy SAS dumps fire nothing either: sdsb (75 °C, but its
# reference temperature is 0: no threshold series), sdsd (5Dh/FFh, the TEST
# bit: ssd_smart_passed 1), sdsf (ATA hints, driven as SCSI), sdsg (8200
# defects and sdsh's phy errors, static: no rise in the window), sdsi (a
# 7200 rpm disk), sdsj (a short INQUIRY) and the HPE logical volume sdsk
# (virtual: only identity served, verdict 0).
FIXTURE_HEALTHY = {
    "nvme0", "nvme1", "sda", "sdb", "sdc", "sde", "sdf", "sdg", "sdz",
    "sdsb", "sdsd", "sdsf", "sdsg", "sdsh", "sdsi", "sdsj", "sdsk",
}
DRIVE_VIEW_DEVICES = ["nvme0", "nvme1", "nvme2", "sda", "sdb"]

# Exactly the alerts each failing drive fires: the ones named here must fire
# and every other alert in alerts/ssd_exporter.rules.yml must stay quiet.
FAILING = {
    # The demo's failing drive: its critical warning bits (which explain its
    # failed SMART status, so SsdSmartFailed stays quiet), spare below
    # threshold, 99 % used and ~16 days left, capacitors failed and at 35 %,
    # 72 °C against a 70 °C warning threshold (below the critical one),
    # media errors rising every 20 s, its PCIe link trained x2 of x4 with
    # non-fatal AER errors rising every 30 s (first at 10 s), its OCP media
    # dies offline at the tolerance, and the verdict. Never woken from a
    # power loss, never throttled, its poll never fails; its telemetry
    # header is read again only with the 10th poll (10 min), after the
    # checks, so no capture is seen (no SsdDriveReportedInternalError).
    ("demo", "nvme2"): {
        "SsdPcieLinkDegraded", "SsdPcieErrors", "SsdCriticalWarning", "SsdPlpFailed", "SsdPlpHealthLow", "SsdSpareBelowThreshold",
        "SsdWearCritical", "SsdWearOutForecast", "SsdMediaErrors", "SsdTemperatureWarning",
        "SsdMediaDiesOffline", "SsdHealthCritical",
    },
    # The replayed failing-critical fixture holds still, so nothing rises
    # (no SsdMediaErrors for its 23 media errors); its C0h page is not the
    # OCP page, so no PLP health (no SsdPlpHealthLow); bits explain its
    # SMART status (no SsdSmartFailed); 74 °C is under its 85 °C CCTEMP.
    ("fixtures", "nvme2"): {
        "SsdCriticalWarning", "SsdPlpFailed", "SsdSpareBelowThreshold", "SsdWearCritical",
        "SsdWearOutForecast", "SsdTemperatureWarning", "SsdHealthCritical",
    },
    # The truncated SMART log: down, and its smart_log failure counted;
    # with no health data nothing else can fire.
    ("fixtures", "nvme3"): {"SsdDeviceDown", "SsdPollErrors"},
    # The failing SATA drive: SMART RETURN STATUS failed, 96 % used (the
    # forecast, 68 days, is above the 30-day line), static CRC and
    # uncorrectable counts, 52 °C under its 70 °C limit.
    ("fixtures", "sdd"): {"SsdSmartFailed", "SsdWearCritical", "SsdHealthCritical"},
    # The failing SAS drive (sdh): an informational exception (log 2Fh ASC
    # 5Dh), 98 % used with ~26 days left; static defects and errors.
    ("fixtures", "sdh"): {
        "SsdSmartFailed", "SsdWearCritical", "SsdWearOutForecast", "SsdHealthCritical",
    },
    # Issue 21's SAS dumps that warn or fail. sdsa: 72 °C at or above its log
    # 0Dh reference temperature of 70 °C, served as the warning threshold
    # (SCSI has no critical one), verdict 1: SsdTemperatureWarning only.
    ("fixtures", "sdsa"): {"SsdTemperatureWarning"},
    # sdsc: no 0Dh page, so 2Fh's 68 °C against 2Fh's 65 °C threshold:
    # SsdTemperatureWarning. Its ASC 0Bh warning (drive_reported_warning)
    # keeps ssd_smart_passed 1 (no SsdSmartFailed) and fires
    # SsdDriveReportedWarning; the verdict is 1, so no SsdHealthCritical.
    ("fixtures", "sdsc"): {"SsdTemperatureWarning", "SsdDriveReportedWarning"},
    # sdse: the newest completed self-test failed (behind one in progress and
    # one aborted): self_test_failed makes the verdict 2, and only the
    # catch-all names it; 33 °C under 70 °C, 2Fh ASC 00h.
    ("fixtures", "sdse"): {"SsdHealthCritical"},
    # The demo's fail-slow drive: clean SMART, every read ~7-10x its peers'
    # (nvme0, nvme2: the same model and firmware), so only SsdFailSlow.
    ("demo", "nvme3"): {"SsdFailSlow"},
}
# The demo's failing and fail-slow drives, for the VictoriaMetrics stage
# (tools/ops/vm_pipeline.py), which runs the demo three times.
DEMO_FAILING = "nvme2"
DEMO_FAILING_ALERTS = FAILING[("demo", DEMO_FAILING)]
DEMO_FAIL_SLOW = "nvme3"

# How long the demo runs before the checks: its failing drive's media
# errors rise every 20 s, and `increase()` needs two samples either side.
WARMUP_SECONDS = 45

check = Checks()


def exposition_names(text):
    """Series names of a text exposition (histogram _bucket/_sum/_count kept)."""
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


def rules_for_zero(src, dst):
    """Copies a rules file with every `for:` duration set to 0s."""
    text = Path(src).read_text()
    dst.write_text(re.sub(r"(?m)^(\s+for:\s*)\S+", r"\g<1>0s", text))


def rule_exprs(path):
    """(name, expr) of every rule in a Prometheus rules file, read with a
    small parser for the block scalars and plain values the files use."""
    out = []
    lines = Path(path).read_text().splitlines()
    i = 0
    name = None
    while i < len(lines):
        line = lines[i]
        m = re.match(r"\s*- (alert|record):\s*(\S+)", line)
        if m:
            name = m.group(2)
        m = re.match(r"(\s*)expr:\s*(.*)$", line)
        if m:
            indent, rest = len(m.group(1)), m.group(2)
            if rest in ("|", ">", "|-", ">-"):
                body = []
                i += 1
                while i < len(lines) and (
                    not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
                ):
                    body.append(lines[i].strip())
                    i += 1
                out.append((name, " ".join(body)))
                continue
            out.append((name, rest.strip().strip("'\"")))
        i += 1
    return out


def metric_names(text):
    """`ssd_*` names in a rule expression or prose, leaving out quoted label
    values such as job="ssd_exporter"."""
    return set(re.findall(r"(?<![\"'\w])ssd_[a-z0-9_]+", text)) - {"ssd_exporter"}


def check_dashboard_panels(check, server, prefix="", folder=ROOT / "dashboards"):
    """Every panel's query of the dashboards in `folder` returns data from
    `server` (Prometheus or VictoriaMetrics, the same API): the fleet view
    with every drive; the drive view for each of DRIVE_VIEW_DEVICES in
    turn, passing if it shows data for at least one of them."""
    for path in sorted(Path(folder).glob("*.json")):
        for uid, title, ref, expr in grafana.panels(path):
            devices = DRIVE_VIEW_DEVICES if uid == "ssd-exporter-drive" else [".*"]
            shown, errors, q = [], [], ""
            for device in devices:
                q = grafana.substitute(expr, instance_regex=".*", device_regex=device)
                result, err = query(server, q)
                if err:
                    errors.append(err)
                elif result:
                    shown.append(device)
            check(shown and not errors, f"{prefix}{uid} / {title} / {ref}: "
                  + (f"error {errors[0]}" if errors else f"data for {shown or 'no drive'}")
                  + ("" if shown and not errors else f"  [{q}]"))


def query(prom, expr, at=None):
    """The result of an instant query (at `at`, Unix seconds, else now) and
    None, or None and the error."""
    args = {"query": expr} | ({"time": f"{at:.3f}"} if at is not None else {})
    url = f"{prom}/api/v1/query?" + urllib.parse.urlencode(args)
    try:
        body = json.loads(get(url))
    except urllib.error.HTTPError as e:
        body = json.loads(e.read().decode())
    if body.get("status") != "success":
        return None, body.get("error", "?")
    return body["data"]["result"], None


def main():
    binary = exporter_binary()
    prom_bin = prometheus_binary()
    tmp = Path(tempfile.mkdtemp(prefix="ssd-prom-"))
    procs = []
    try:
        demo_port, replay_port, prom_port = free_port(), free_port(), free_port()
        fixtures = sorted(
            str(d)
            for t in ("nvme", "sata", "sas")
            for f in (ROOT / "tests/fixtures" / t).iterdir()
            if f.is_dir()
            for d in f.iterdir()
            if d.is_dir()
        )
        log = open(tmp / "exporters.log", "w")
        procs.append(subprocess.Popen(
            [binary, "--demo", f"--web.listen-address=127.0.0.1:{demo_port}"],
            stdout=log, stderr=log))
        # With a state file (in the temp dir), so its series are emitted too.
        procs.append(subprocess.Popen(
            [binary, f"--web.listen-address=127.0.0.1:{replay_port}", "--poll.interval=5s",
             "--probe.disable", f"--state.path={tmp / 'state'}"]
            + [f"--replay={d}" for d in fixtures],
            stdout=log, stderr=log))
        demo_started = time.monotonic()
        for f in ("ssd_exporter.rules.yml", "fleet.rules.yml"):
            rules_for_zero(ROOT / "alerts" / f, tmp / f)
        (tmp / "prometheus.yml").write_text(f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [ssd_exporter.rules.yml, fleet.rules.yml]
scrape_configs:
  - job_name: ssd_exporter
    static_configs:
      - targets: ['127.0.0.1:{demo_port}']
        labels: {{fleet: demo}}
      - targets: ['127.0.0.1:{replay_port}']
        labels: {{fleet: fixtures}}
""")
        prom_proc, prom = start_prometheus(prom_bin, tmp, prom_port)
        procs.append(prom_proc)
        demo_text = wait_http(f"http://127.0.0.1:{demo_port}/metrics", "ssd_exporter --demo")
        wait_http(f"http://127.0.0.1:{replay_port}/metrics", "ssd_exporter --replay")
        wait_http(f"{prom}/-/ready", "prometheus")
        time.sleep(max(0.0, WARMUP_SECONDS - (time.monotonic() - demo_started)))
        demo_text = get(f"http://127.0.0.1:{demo_port}/metrics")
        replay_text = get(f"http://127.0.0.1:{replay_port}/metrics")

        targets = json.loads(get(f"{prom}/api/v1/targets"))["data"]["activeTargets"]
        check(len(targets) == 2 and all(t["health"] == "up" for t in targets),
              "prometheus scrapes both exporters: "
              + ", ".join(f"{t['scrapeUrl']} {t['health']} {t['lastError']}" for t in targets))

        # ---- every name used exists in a live exposition
        emitted = exposition_names(demo_text) | exposition_names(replay_text)
        used = {}
        for path in sorted((ROOT / "dashboards").glob("*.json")):
            for uid, title, ref, expr in grafana.panels(path):
                for n in grafana.metric_names(expr):
                    used.setdefault(n, f"dashboard {uid} panel {title!r}")
        rule_files = [ROOT / "alerts/ssd_exporter.rules.yml", ROOT / "alerts/fleet.rules.yml"]
        recorded = {name for f in rule_files for name, _ in rule_exprs(f) if ":" in (name or "")}
        for f in rule_files:
            for name, expr in rule_exprs(f):
                for n in metric_names(expr):
                    used.setdefault(n, f"{f.name} rule {name}")
        for n in metric_names((ROOT / "docs/runbooks.md").read_text()):
            used.setdefault(n, "docs/runbooks.md")
        # a histogram is named by its family in prose, by its series in queries
        emitted |= {n.removesuffix("_bucket") for n in emitted if n.endswith("_bucket")}
        unknown = sorted(f"{n} ({where})" for n, where in used.items()
                         if n not in emitted and n not in recorded)
        check(not unknown and len(used) > 30,
              f"{len(used)} ssd_* names used by dashboards, rules and runbooks all emitted"
              + (": unknown " + "; ".join(unknown) if unknown else ""))

        # ---- every dashboard panel query returns data
        # The fleet view with every drive; the drive view (one drive at a
        # time) for each demo drive in turn: a panel passes if it shows data
        # for at least one of them (SATA panels for sda, problems for nvme2).
        check_dashboard_panels(check, prom)

        # ---- recording rules produce series
        for name in sorted(recorded):
            result, err = query(prom, name)
            check(bool(result), f"recording rule {name}: "
                  + (f"error {err}" if err else f"{len(result)} series"))

        # ---- alerts: expected ones fire, healthy drives fire none
        alerts = json.loads(get(f"{prom}/api/v1/alerts"))["data"]["alerts"]
        firing = {}
        for a in alerts:
            if a["state"] != "firing":
                continue
            key = (a["labels"].get("fleet", "?"), a["labels"].get("device", "-"))
            firing.setdefault(key, set()).add(a["labels"]["alertname"])
        all_alerts = {name for f in rule_files for name, _ in rule_exprs(f)
                      if name and ":" not in name}
        for (fleet, d), want in sorted(FAILING.items()):
            unknown = want - all_alerts
            check(not unknown, f"{fleet} {d}: every expected alert is a rule"
                  + (f"; no rule {sorted(unknown)}" if unknown else ""))
            got = firing.get((fleet, d), set())
            missing, extra = want - got, got - want
            check(not missing, f"{fleet} {d} fires {sorted(want)}"
                  + (f"; missing {sorted(missing)}" if missing else ""))
            quiet = all_alerts - want
            check(not extra, f"{fleet} {d} fires none of the other {len(quiet)} alerts"
                  + (f"; fired {sorted(extra)}" if extra else ""))
        # Every replayed fixture is asserted: failing (its exact alerts) or
        # healthy (none); a new fixture must be put in one of the two.
        replayed = {Path(d).name for d in fixtures}
        asserted = FIXTURE_HEALTHY | {d for (fleet, d) in FAILING if fleet == "fixtures"}
        check(replayed == asserted, f"{len(replayed)} replayed fixtures, each failing or healthy"
              + (f"; unasserted {sorted(replayed - asserted)}" if replayed - asserted else "")
              + (f"; not replayed {sorted(asserted - replayed)}" if asserted - replayed else ""))
        for fleet, healthy in (("demo", DEMO_HEALTHY), ("fixtures", FIXTURE_HEALTHY)):
            for d in sorted(healthy):
                got = firing.get((fleet, d), set())
                check(not got, f"{fleet} healthy {d} fires nothing" + (f": {sorted(got)}" if got else ""))
        stray = {k: v for k, v in firing.items() if k[1] == "-"}
        check(not stray, "no drive-less alert fires" + (f": {stray}" if stray else ""))
    finally:
        stop_all(procs)
        if check.failures:
            for f in ("exporters.log", "prometheus.log"):
                if (tmp / f).exists():
                    print(f"---- {f} (tail)")
                    print("\n".join((tmp / f).read_text().splitlines()[-15:]))
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"prometheus e2e: {check.passed} passed, {check.failed} failed")
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
