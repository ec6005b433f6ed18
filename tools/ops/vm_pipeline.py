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
tools.ops.prometheus_e2e. Every wait is bounded.

Usage: python3 -m tools.ops.vm_pipeline [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter): a pytest module, one test per check.
"""

import json
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tools import ROOT
from tools.ops.common import free_port, get, run_module, stop_all, wait_http
from tools.ops.prometheus_e2e import (DEMO_FAIL_SLOW, DEMO_FAILING, DEMO_FAILING_ALERTS,
                                      DEMO_HEALTHY, PANELS, RECORDED, panel_id, panel_shows_data,
                                      query, rules_for_zero)

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


@pytest.mark.parametrize("name", sorted(f.name for f in (ROOT / "alerts").glob("*.rules.yml")))
def test_vmalert_dry_run_loads(name):
    rc, out = run(["vmalert", "-dryRun", f"-rule={ROOT / 'alerts' / name}"])
    errors = [line for line in out.splitlines() if "error" in line.lower() or "fatal" in line.lower()]
    assert rc == 0 and not errors, errors[-1:] or out[-300:]


@pytest.mark.parametrize("name", ["vmagent-static.yml", "vmagent-kubernetes.yml"])
def test_vmagent_dry_run_accepts(name):
    rc, out = run(["vmagent", "-dryRun", f"-promscrape.config={DEPLOY / name}"])
    assert rc == 0, out[-300:]


# Debian's promtool has no Kubernetes service discovery, so only the static
# config is checked as a Prometheus config.
@pytest.mark.parametrize("args", [["deploy/victoriametrics/vmagent-static.yml"],
                                  ["--agent", "deploy/victoriametrics/prometheus-agent.yml"]],
                         ids=lambda a: " ".join(a))
def test_promtool_check_config(args):
    rc, out = run(["promtool", "check", "config",
                   *[str(ROOT / a) if a.endswith(".yml") else a for a in args]])
    assert rc == 0, out[-300:]


@pytest.mark.parametrize("unit", ["vmagent.service", "vmalert.service"])
def test_systemd_analyze_verify(unit):
    rc, out = run(["systemd-analyze", "verify", str(DEPLOY / unit)])
    assert rc == 0 and not out, out[-300:]


def start(binary, tmp, ports, log):
    """The pipeline: exporters, VictoriaMetrics, vmagent, vmalert."""
    procs = []
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


@pytest.fixture(scope="module")
def pipeline(exporter, tmp_path_factory):
    """The pipeline running, once the expected alerts fire (or the deadline
    passed): its URLs and how long the alerts took; stopped after the tests."""
    missing = [p for p in ("victoria-metrics", "vmagent", "vmalert") if not shutil.which(p)]
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (apt-get install victoria-metrics)")
    tmp = tmp_path_factory.mktemp("vm")
    print(f"  (logs in {tmp})")
    Alertmanager.received = []
    ports = {"exporters": [free_port() for _ in HOSTS], "vm": free_port(),
             "vmagent": free_port(), "vmalert": free_port(), "alertmanager": free_port()}
    server = ThreadingHTTPServer(("127.0.0.1", ports["alertmanager"]), Alertmanager)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    procs = []
    try:
        log = open(tmp / "pipeline.log", "w")
        procs = start(exporter, tmp, ports, log)
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
        yield {"vm": vm, "vmalert": vmalert, "vmagent": f"http://127.0.0.1:{ports['vmagent']}",
               "took": time.monotonic() - begun}
    finally:
        stop_all(procs)
        server.shutdown()


def test_expected_alerts_fire_in_time(pipeline):
    assert expected_met(pipeline["vmalert"]), \
        f"not after {pipeline['took']:.0f} s (at most {DEADLINE_SECONDS} s)"


def test_vmagent_scrapes_the_three_exporters(pipeline):
    active = json.loads(get(f"{pipeline['vmagent']}/api/v1/targets"))["data"]["activeTargets"]
    assert len(active) == len(HOSTS) and all(t["health"] == "up" for t in active), \
        ", ".join(f"{t['labels'].get('instance')} {t['health']}" for t in active)


def test_vmalert_evaluates_every_rule(pipeline):
    groups = json.loads(get(f"{pipeline['vmalert']}/api/v1/rules"))["data"]["groups"]
    rules = [r for g in groups for r in g["rules"]]
    broken = [f"{r['name']}: {r['lastError']}" for r in rules if r.get("lastError")]
    assert len(rules) > 40, f"only {len(rules)} rules"
    assert not broken, "; ".join(broken[:5])


@pytest.mark.parametrize("name", RECORDED)
def test_recording_rule_has_series(pipeline, name):
    result, err = query(pipeline["vm"], name)
    assert result, f"error {err}" if err else "no series"


def test_a_dc2000b_median_per_host(pipeline):
    result, _ = query(pipeline["vm"], "count(model_firmware_instance:"
                      "ssd_probe_latency_seconds:p99_rate2m_median)")
    n = int(float(result[0]["value"][1])) if result else 0
    assert n == len(HOSTS), f"{n} of {len(HOSTS)} hosts"


@pytest.mark.parametrize("target", PANELS, ids=panel_id)
def test_panel_shows_data(pipeline, target):
    panel_shows_data(pipeline["vm"], target)


@pytest.fixture(scope="module")
def firing(pipeline):
    return firing_by_drive(pipeline["vmalert"])


@pytest.mark.parametrize("host", HOSTS)
def test_failing_drive_fires(firing, host):
    missing = DEMO_FAILING_ALERTS - firing.get((host, DEMO_FAILING), set())
    assert not missing, f"missing {sorted(missing)}"


@pytest.mark.parametrize("host", HOSTS)
def test_fail_slow_drive_fires_only_ssd_fail_slow(firing, host):
    assert firing.get((host, DEMO_FAIL_SLOW), set()) == {"SsdFailSlow"}


@pytest.mark.parametrize("drive", sorted(DEMO_HEALTHY))
@pytest.mark.parametrize("host", HOSTS)
def test_healthy_drive_fires_nothing(firing, host, drive):
    assert not firing.get((host, drive)), sorted(firing.get((host, drive), ()))


def test_no_alert_without_a_demo_drive(firing):
    stray = {k: v for k, v in firing.items() if k[0] not in HOSTS or k[1] == "-"}
    assert not stray, stray


def test_vmalert_wrote_alerts_back(pipeline):
    """SsdFailSlow firing in VictoriaMetrics' ALERTS for every host."""
    result, err = query(pipeline["vm"], 'count by (instance) (ALERTS{alertname="SsdFailSlow",'
                        f'device="{DEMO_FAIL_SLOW}",alertstate="firing"}})')
    assert not err and len(result or []) == len(HOSTS), \
        f"{len(result or [])} of {len(HOSTS)} hosts" + (f" ({err})" if err else "")


def test_alertmanager_received_from_every_host(pipeline):
    """SsdFailSlow and SsdPlpFailed from every host."""
    sent = {(a["labels"].get("instance"), a["labels"].get("alertname"))
            for a in Alertmanager.received}
    want = {(h, "SsdFailSlow") for h in HOSTS} | {(h, "SsdPlpFailed") for h in HOSTS}
    assert want <= sent, f"missing {sorted(want - sent)} of {len(Alertmanager.received)} received"


if __name__ == "__main__":
    sys.exit(run_module(__file__))
