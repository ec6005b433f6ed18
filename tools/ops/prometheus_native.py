"""The probe latency as a native histogram, against the real Prometheus:
`ssd_exporter --demo` scraped by two Debian Prometheus 2.42 side by side,
one started with `--enable-feature=native-histograms` (it asks for the
protobuf format) and loading the mixin's rules rendered with
`nativeHistograms: true`, the other without the flag (it asks for text)
loading alerts/*.rules.yml. Through Prometheus' HTTP API it checks that:

- with the flag, Prometheus stores one histogram series per probed drive
  and operation, and none of the classic `_bucket`, `_count` or `_sum`
  series; without it, the classic buckets as ever (26 per series with the
  default `metrics.probe_buckets`) and no native histogram;
- with the flag, `histogram_quantile(0.99, rate(ssd_probe_latency_seconds[5m]))`
  agrees with the exporter's own window p99
  (`ssd_probe_latency_quantile_seconds{q="0.99"}`, exact to 0.8 % over the
  same reads: the run is shorter than the window and than the 5m range)
  within schema 3's error, 2^(1/8) - 1 = 9.05 %;
- in each mode every recording rule produces series and every dashboard
  panel's query returns data (the dashboards rendered from the mixin in
  that mode: dashboards/*.json without the flag).

It prints the series per drive each Prometheus stores and the samples per
scrape, the figures BENCHMARKS.md ("Cost per drive") quotes.

Usage: python3 -m tools.ops.prometheus_native [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter): a pytest module, one test per check.
Needs prometheus and jsonnet.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import ROOT, grafana
from tools.mixin import render
from tools.ops.common import (free_port, get, prometheus_binary, run_module, start_prometheus,
                              stop_all, wait_http)
from tools.ops.prometheus_e2e import PANELS, RECORDED, panel_id, panel_shows_data, query

# How long the demo runs before the checks: enough reads (50 a second per
# drive) for a p99 of thousands and for the fleet rules' 500 reads in 2m,
# and shorter than the exporter's window and the 5m range, so that both
# quantiles are of the same reads (all of them, less Prometheus' first
# second).
WARMUP_SECONDS = 75
WINDOW = "5m"
# Schema 3: a bucket's upper bound is 2^(1/8) times its lower one.
SCHEMA_ERROR = 2 ** (1 / 8) - 1
# The default metrics.probe_buckets: 25 bounds and +Inf.
CLASSIC_BUCKETS = 26
HISTOGRAM = "ssd_probe_latency_seconds"
MODES = ("native", "classic")
RULE_FILES = ("ssd_exporter.rules.yml", "fleet.rules.yml")


def probed(text):
    """(device, op) of every probe latency histogram in a text exposition."""
    out = set()
    for line in text.splitlines():
        if line.startswith(HISTOGRAM + "_count{"):
            labels = dict(kv.split("=", 1) for kv in line[line.index("{") + 1:line.index("}")]
                          .split(","))
            out.add((labels["device"].strip('"'), labels["op"].strip('"')))
    return out


def series_keys(result):
    return {(r["metric"].get("device"), r["metric"].get("op")) for r in result}


def prometheus_config(tmp, port, rule_dir):
    tmp.mkdir(parents=True, exist_ok=True)
    for f in RULE_FILES:
        shutil.copy(Path(rule_dir) / f, tmp / f)
    (tmp / "prometheus.yml").write_text(f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [{", ".join(RULE_FILES)}]
scrape_configs:
  - job_name: ssd_exporter
    static_configs:
      - targets: ['127.0.0.1:{port}']
""")


@pytest.fixture(scope="module")
def stack(exporter, tmp_path_factory):
    """The demo scraped by a Prometheus with native histograms (the mixin
    rendered with nativeHistograms: true) and one without, after the
    warm-up; stopped after the module's tests."""
    prom_bin = prometheus_binary()
    tmp = tmp_path_factory.mktemp("native")
    print(f"  (logs in {tmp})")
    rendered = tmp / "rendered"
    assert render.main(["--out", str(rendered), "--config", "{nativeHistograms: true}"]) == 0
    procs = []
    try:
        port = free_port()
        log = open(tmp / "exporter.log", "w")
        procs.append(subprocess.Popen(
            [exporter, "--demo", f"--probe.window={WINDOW}",
             f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=log))
        started = time.monotonic()
        proms = {}
        for mode, rules, extra in (("native", rendered, ["--enable-feature=native-histograms"]),
                                   ("classic", ROOT / "alerts", [])):
            prometheus_config(tmp / mode, port, rules)
            proc, proms[mode] = start_prometheus(prom_bin, tmp / mode, free_port(), extra)
            procs.append(proc)
        wait_http(f"http://127.0.0.1:{port}/metrics", "ssd_exporter --demo")
        for url in proms.values():
            wait_http(f"{url}/-/ready", "prometheus")
        time.sleep(max(0.0, WARMUP_SECONDS - (time.monotonic() - started)))
        yield {"prom": proms, "want": probed(get(f"http://127.0.0.1:{port}/metrics")),
               "dashboards": {"native": rendered, "classic": ROOT / "dashboards"}}
    finally:
        stop_all(procs)


def test_demo_probes_drives(stack):
    drives = {d for d, _ in stack["want"]}
    assert len(drives) >= 4, sorted(stack["want"])


@pytest.mark.parametrize("mode", MODES)
def test_prometheus_scrapes_the_exporter(stack, mode):
    targets = json.loads(get(f"{stack['prom'][mode]}/api/v1/targets"))["data"]["activeTargets"]
    assert len(targets) == 1 and targets[0]["health"] == "up", \
        ", ".join(f"{t['health']} {t['lastError']}" for t in targets)


def stored(prom):
    """What a Prometheus stored of the histogram: the series named
    HISTOGRAM, the classic bucket count per (device, op), and the _count
    and _sum series."""
    out = []
    for expr in (HISTOGRAM, f"count by (device, op) ({HISTOGRAM}_bucket)",
                 f'{{__name__=~"{HISTOGRAM}_(count|sum)"}}'):
        result, err = query(prom, expr)
        assert not err, f"{expr}: {err}"
        out.append(result)
    return out


def test_native_one_histogram_per_probed_op(stack):
    native, _, _ = stored(stack["prom"]["native"])
    histograms = [r for r in native if "histogram" in r and "value" not in r]
    want = stack["want"]
    assert series_keys(histograms) == want and len(histograms) == len(native) == len(want), \
        f"{len(histograms)} histograms of {len(native)} series, want {sorted(want)}"


def test_native_no_classic_series(stack):
    _, classic, others = stored(stack["prom"]["native"])
    assert not classic and not others, \
        f"{len(classic)} bucket sets, {len(others)} _count/_sum series"


def test_classic_buckets_per_probed_op(stack):
    native, classic, others = stored(stack["prom"]["classic"])
    want = stack["want"]
    counts = {(r["metric"]["device"], r["metric"]["op"]): int(r["value"][1]) for r in classic}
    assert set(counts) == want and set(counts.values()) == {CLASSIC_BUCKETS}, counts
    assert not any("histogram" in r for r in native), "a native histogram without the flag"
    assert series_keys(others) == want and len(others) == 2 * len(want), \
        f"{len(others)} _count/_sum series for {len(want)} histograms"


def test_native_p99_within_schema_error(stack):
    """The native p99 over 5m against the exporter's window p99, per drive."""
    prom, at = stack["prom"]["native"], time.time()
    est, err = query(prom, f'histogram_quantile(0.99, rate({HISTOGRAM}{{op="read"}}[5m]))', at)
    exact, err2 = query(prom, 'ssd_probe_latency_quantile_seconds{q="0.99", op="read"}', at)
    assert not err and not err2, err or err2
    exact = {r["metric"]["device"]: float(r["value"][1]) for r in exact}
    est = {r["metric"]["device"]: float(r["value"][1]) for r in est}
    devices = {d for d, op in stack["want"] if op == "read"}
    assert set(est) == devices == set(exact), f"quantiles for {sorted(est)}, want {devices}"
    off = []
    for d in sorted(devices):
        error = est[d] / exact[d] - 1
        print(f"\n  native p99 of {d}: histogram_quantile {est[d] * 1e6:.1f} µs, window "
              f"{exact[d] * 1e6:.1f} µs, {error:+.2%} (bound ±{SCHEMA_ERROR:.2%})", end="")
        if abs(error) > SCHEMA_ERROR:
            off.append(f"{d} {error:+.2%}")
    assert not off, f"beyond schema 3's ±{SCHEMA_ERROR:.2%}: {off}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", RECORDED)
def test_recording_rule_has_series(stack, mode, name):
    result, err = query(stack["prom"][mode], name)
    assert result, f"error {err}" if err else "no series"


def mode_target(stack, mode, target):
    """`target` (a panel's query in dashboards/*.json) as the dashboards
    rendered for `mode` have it."""
    uid, title, ref, _ = target
    for path in sorted(stack["dashboards"][mode].glob("*.json")):
        for t in grafana.panels(path):
            if t[:3] == (uid, title, ref):
                return t
    pytest.fail(f"no panel {uid}/{title}/{ref} in the {mode} dashboards")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("target", PANELS, ids=panel_id)
def test_panel_shows_data(stack, mode, target):
    panel_shows_data(stack["prom"][mode], mode_target(stack, mode, target))


@pytest.mark.parametrize("mode", MODES)
def test_cost_reported(stack, mode):
    """Series per drive and samples per scrape, as this Prometheus stores them
    (BENCHMARKS.md, "Cost per drive")."""
    prom = stack["prom"][mode]
    series, _ = query(prom, 'count({__name__=~"ssd_.+", device!=""})')
    samples, _ = query(prom, "scrape_samples_scraped")
    assert series and samples, "no series or no scrape_samples_scraped"
    n, drives = float(series[0]["value"][1]), len({d for d, _ in stack["want"]})
    print(f"\n  COST {mode}: {n / drives:.1f} series per drive ({n:.0f} over {drives} drives), "
          f"{samples[0]['value'][1]} samples per scrape")


if __name__ == "__main__":
    sys.exit(run_module(__file__))
