"""The operators' kit on a scalable pipeline: three `ssd_exporter --demo` on
loopback (127.0.0.1, .2 and .3, so the shipped relabelling makes three
hosts) scraped by vmagent, remote-written into VictoriaMetrics, and vmalert
evaluating every rule file in alerts/ against it, writing the recording
rules and ALERTS back and sending alerts to a stand-in Alertmanager. Debian's
victoria-metrics package (1.79) provides the three programs. It checks that:

- every rule file loads in vmalert (`-dryRun`), and every rule evaluates
  in it without an error (MetricsQL is not exactly PromQL);
- the shipped configs are valid: deploy/victoriametrics/'s vmagent scrape
  configs (vmagent -dryRun, and promtool for the static one), its systemd
  units (systemd-analyze verify) and the Prometheus agent-mode example
  (promtool check config --agent);
- every dashboard query (dashboards/*.json, through tools.grafana) returns
  data from VictoriaMetrics, and every recording rule produces series there;
- on each of the three hosts the failing drive fires what it must, the
  fail-slow drive SsdFailSlow and nothing else, the healthy drives nothing,
  as vmalert, the ALERTS series in VictoriaMetrics and Alertmanager see it.

The pipeline runs the shipped files (vmagent-static.yml, the ExecStart of
vmagent.service and vmalert.service) with only the addresses, paths and
intervals replaced; the rules are copies with every `for:` set to 0s, as in
tools.ops.prometheus_e2e. Every wait is bounded; the stage prints its wall
time and "N passed, M failed".

Usage: python3 -m tools.ops.vm_pipeline [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
"""

import json
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tools import ROOT
from tools.ops.common import Checks, exporter_binary, free_port, get, stop_all, wait_http
from tools.ops.prometheus_e2e import (DEMO_FAIL_SLOW, DEMO_FAILING, DEMO_FAILING_ALERTS,
                                      DEMO_HEALTHY, check_dashboard_panels, query, rule_exprs,
                                      rules_for_zero)

DEPLOY = ROOT / "deploy" / "victoriametrics"
HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")
# Placeholders in the shipped files and what the stage puts there.
VM_HOST = "victoria-metrics.example.net:8428"
ALERTMANAGER_HOST = "alertmanager.example.net:9093"
# After the exporters start: the demo's media errors rise every 20 s
# (increase() needs two samples either side), and nvme0 first throttles at
# 150 s, which would fire SsdThermalThrottling, so everything is judged
# before that.
WARMUP_SECONDS = 45
DEADLINE_SECONDS = 130

check = Checks()


def exec_start(unit):
    """The command of a systemd unit's ExecStart, continuation lines joined."""
    text = re.sub(r"\\\n\s*", " ", Path(unit).read_text())
    line = next(l for l in text.splitlines() if l.startswith("ExecStart="))
    return shlex.split(line.removeprefix("ExecStart="))


def substituted(argv, flags, hosts):
    """argv with the values of `flags` (name → value) replaced, any other
    flag in `flags` but not in argv appended, and every `hosts` key replaced
    by its value in the rest."""
    out, seen = [], set()
    for arg in argv:
        name = arg.split("=", 1)[0].lstrip("-")
        if name in flags:
            out.append(f"-{name}={flags[name]}")
            seen.add(name)
            continue
        for old, new in hosts.items():
            arg = arg.replace(old, new)
        out.append(arg)
    return out + [f"-{n}={v}" for n, v in flags.items() if n not in seen]


class Alertmanager(BaseHTTPRequestHandler):
    """Takes vmalert's POST /api/v2/alerts and keeps what it was sent."""

    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.endswith("/api/v2/alerts"):
            Alertmanager.received.extend(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def run(cmd, timeout=60):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, (p.stdout + p.stderr).strip()


def check_files(tmp):
    """Every rule file in vmalert, the shipped configs in their checkers."""
    for f in sorted((ROOT / "alerts").glob("*.rules.yml")):
        rc, out = run(["vmalert", "-dryRun", f"-rule={f}"])
        errors = [l for l in out.splitlines() if "error" in l.lower() or "fatal" in l.lower()]
        check(rc == 0 and not errors, f"vmalert -dryRun loads alerts/{f.name}"
              + ("" if rc == 0 and not errors else f": {errors[-1:] or out[-300:]}"))
    for f in ("vmagent-static.yml", "vmagent-kubernetes.yml"):
        rc, out = run(["vmagent", "-dryRun", f"-promscrape.config={DEPLOY / f}"])
        check(rc == 0, f"vmagent -dryRun accepts deploy/victoriametrics/{f}"
              + ("" if rc == 0 else f": {out[-300:]}"))
    # Debian's promtool has no Kubernetes service discovery, so only the
    # static config is checked as a Prometheus config.
    for args in (["deploy/victoriametrics/vmagent-static.yml"],
                 ["--agent", "deploy/victoriametrics/prometheus-agent.yml"]):
        rc, out = run(["promtool", "check", "config", *[str(ROOT / a) if a.endswith(".yml")
                                                          else a for a in args]])
        check(rc == 0, f"promtool check config {' '.join(args)}"
              + ("" if rc == 0 else f": {out[-300:]}"))
    for unit in ("vmagent.service", "vmalert.service"):
        rc, out = run(["systemd-analyze", "verify", str(DEPLOY / unit)])
        check(rc == 0 and not out, f"systemd-analyze verify deploy/victoriametrics/{unit}"
              + ("" if rc == 0 and not out else f": {out[-300:]}"))


def start(tmp, ports, log):
    """The pipeline: exporters, VictoriaMetrics, vmagent, vmalert."""
    procs = []
    binary = exporter_binary()
    for host, port in zip(HOSTS, ports["exporters"]):
        procs.append(subprocess.Popen(
            [binary, "--demo", f"--web.listen-address={host}:{port}"], stdout=log, stderr=log))
    vm = f"127.0.0.1:{ports['vm']}"
    procs.append(subprocess.Popen(
        ["victoria-metrics", f"-storageDataPath={tmp / 'vm'}", f"-httpListenAddr={vm}",
         # answer with the newest samples: the rules chain through it
         "-search.latencyOffset=1s", "-search.disableCache"], stdout=log, stderr=log))
    scrape = (DEPLOY / "vmagent-static.yml").read_text()
    targets = ", ".join(f"{h}:{p}" for h, p in zip(HOSTS, ports["exporters"]))
    scrape = re.sub(r"targets: \[[^\]]*\]", f"targets: [{targets}]", scrape)
    scrape = re.sub(r"scrape_interval: \S+", "scrape_interval: 1s", scrape)
    (tmp / "vmagent.yml").write_text(scrape)
    hosts = {VM_HOST: vm, ALERTMANAGER_HOST: f"127.0.0.1:{ports['alertmanager']}"}
    procs.append(subprocess.Popen(substituted(exec_start(DEPLOY / "vmagent.service"), {
        "promscrape.config": tmp / "vmagent.yml",
        "remoteWrite.tmpDataPath": tmp / "vmagent-data",
        "httpListenAddr": f"127.0.0.1:{ports['vmagent']}",
    }, hosts), stdout=log, stderr=log))
    (tmp / "rules").mkdir()
    for f in sorted((ROOT / "alerts").glob("*.rules.yml")):
        rules_for_zero(f, tmp / "rules" / f.name)
    procs.append(subprocess.Popen(substituted(exec_start(DEPLOY / "vmalert.service"), {
        "rule": tmp / "rules" / "*.rules.yml",
        "evaluationInterval": "1s",
        "remoteWrite.flushInterval": "1s",
        "httpListenAddr": f"127.0.0.1:{ports['vmalert']}",
    }, hosts), stdout=log, stderr=log))
    return procs


def firing_by_drive(vmalert):
    """{(instance, device): {alertname}} of vmalert's firing alerts."""
    out = {}
    for a in json.loads(get(f"{vmalert}/api/v1/alerts"))["data"]["alerts"]:
        if a.get("state") == "firing":
            key = (a["labels"].get("instance", "-"), a["labels"].get("device", "-"))
            out.setdefault(key, set()).add(a["labels"]["alertname"])
    return out


def expected_met(vmalert):
    firing = firing_by_drive(vmalert)
    return all(DEMO_FAILING_ALERTS <= firing.get((h, DEMO_FAILING), set())
               and "SsdFailSlow" in firing.get((h, DEMO_FAIL_SLOW), set()) for h in HOSTS)


def check_rules(vmalert):
    groups = json.loads(get(f"{vmalert}/api/v1/rules"))["data"]["groups"]
    rules = [r for g in groups for r in g["rules"]]
    broken = [f"{r['name']}: {r['lastError']}" for r in rules if r.get("lastError")]
    check(len(rules) > 40 and not broken,
          f"vmalert evaluates all {len(rules)} rules without an error"
          + (": " + "; ".join(broken[:5]) if broken else ""))


def check_dashboards(vm):
    check_dashboard_panels(check, vm, "VictoriaMetrics: ")


def check_alerts(vm, vmalert):
    firing = firing_by_drive(vmalert)
    for h in HOSTS:
        got = firing.get((h, DEMO_FAILING), set())
        missing = DEMO_FAILING_ALERTS - got
        check(not missing, f"{h} {DEMO_FAILING} fires {sorted(got)}"
              + (f"; missing {sorted(missing)}" if missing else ""))
        got = firing.get((h, DEMO_FAIL_SLOW), set())
        check(got == {"SsdFailSlow"}, f"{h} fail-slow {DEMO_FAIL_SLOW} fires {sorted(got)}, "
              "want ['SsdFailSlow']")
        for d in sorted(DEMO_HEALTHY):
            got = firing.get((h, d), set())
            check(not got, f"{h} healthy {d} fires nothing" + (f": {sorted(got)}" if got else ""))
    stray = {k: v for k, v in firing.items() if k[0] not in HOSTS or k[1] == "-"}
    check(not stray, "no alert fires without a demo drive" + (f": {stray}" if stray else ""))
    result, err = query(vm, 'count by (instance) (ALERTS{alertname="SsdFailSlow",'
                        f'device="{DEMO_FAIL_SLOW}",alertstate="firing"}})')
    check(not err and len(result or []) == len(HOSTS),
          f"vmalert wrote ALERTS back: SsdFailSlow firing in VictoriaMetrics for "
          f"{len(result or [])} of {len(HOSTS)} hosts" + (f" ({err})" if err else ""))
    sent = {(a["labels"].get("instance"), a["labels"].get("alertname"))
            for a in Alertmanager.received}
    want = {(h, "SsdFailSlow") for h in HOSTS} | {(h, "SsdPlpFailed") for h in HOSTS}
    check(want <= sent, f"Alertmanager received {len(Alertmanager.received)} alerts, "
          f"SsdFailSlow and SsdPlpFailed from every host"
          + (f"; missing {sorted(want - sent)}" if not want <= sent else ""))


def check_records(vm):
    recorded = sorted({name for f in (ROOT / "alerts").glob("*.rules.yml")
                       for name, _ in rule_exprs(f) if ":" in (name or "")})
    for name in recorded:
        result, err = query(vm, name)
        check(bool(result), f"VictoriaMetrics: recording rule {name}: "
              + (f"error {err}" if err else f"{len(result)} series"))
    result, _ = query(vm, "count(model_firmware_instance:"
                      "ssd_probe_latency_seconds:p99_rate2m_median)")
    n = int(float(result[0]["value"][1])) if result else 0
    check(n == len(HOSTS), f"a per-host DC2000B median on each of the {len(HOSTS)} hosts: {n}")


def main():
    started = time.monotonic()
    missing = [p for p in ("victoria-metrics", "vmagent", "vmalert", "promtool",
                           "systemd-analyze") if not shutil.which(p)]
    if missing:
        raise SystemExit(f"not installed: {', '.join(missing)} "
                         "(apt-get install victoria-metrics prometheus systemd)")
    tmp = Path(tempfile.mkdtemp(prefix="ssd-vm-"))
    procs, server = [], None
    try:
        check_files(tmp)
        ports = {"exporters": [free_port() for _ in HOSTS], "vm": free_port(),
                 "vmagent": free_port(), "vmalert": free_port(), "alertmanager": free_port()}
        server = ThreadingHTTPServer(("127.0.0.1", ports["alertmanager"]), Alertmanager)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        log = open(tmp / "pipeline.log", "w")
        procs = start(tmp, ports, log)
        begun = time.monotonic()
        vm, vmalert = f"http://127.0.0.1:{ports['vm']}", f"http://127.0.0.1:{ports['vmalert']}"
        for host, port in zip(HOSTS, ports["exporters"]):
            wait_http(f"http://{host}:{port}/metrics", f"ssd_exporter --demo on {host}")
        wait_http(f"{vm}/health", "victoria-metrics")
        wait_http(f"http://127.0.0.1:{ports['vmagent']}/health", "vmagent")
        wait_http(f"{vmalert}/health", "vmalert")
        while time.monotonic() - begun < DEADLINE_SECONDS:
            if time.monotonic() - begun >= WARMUP_SECONDS and expected_met(vmalert):
                break
            time.sleep(2)
        check(expected_met(vmalert), f"expected alerts firing after "
              f"{time.monotonic() - begun:.0f} s (at most {DEADLINE_SECONDS} s)")
        targets = json.loads(get(f"http://127.0.0.1:{ports['vmagent']}/api/v1/targets"))
        active = targets["data"]["activeTargets"]
        check(len(active) == len(HOSTS) and all(t["health"] == "up" for t in active),
              "vmagent scrapes the three exporters: "
              + ", ".join(f"{t['labels'].get('instance')} {t['health']}" for t in active))
        check_rules(vmalert)
        check_records(vm)
        check_dashboards(vm)
        check_alerts(vm, vmalert)
    finally:
        stop_all(procs)
        if server:
            server.shutdown()
        if check.failures and (tmp / "pipeline.log").exists():
            # the programs' own warnings and errors, not their shutdown chatter
            lines = (tmp / "pipeline.log").read_text().splitlines()
            bad = [l for l in lines if re.search(r"\b(warn|error|fatal|panic)", l, re.I)]
            print("---- pipeline.log (warnings and errors, last 25)")
            print("\n".join(bad[-25:] or lines[-25:]))
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"vm pipeline: wall time {time.monotonic() - started:.0f} s")
    print(f"vm_pipeline: {check.passed} passed, {check.failed} failed")
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
