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
  that mode).

It prints the series per drive each Prometheus stores and the samples per
scrape, the figures BENCHMARKS.md ("Cost per drive") quotes.

Usage: python3 -m tools.ops.prometheus_native [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Needs prometheus and jsonnet.
"""

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import ROOT
from tools.mixin import render
from tools.ops.common import (
    Checks, exporter_binary, free_port, get, prometheus_binary, start_prometheus, stop_all,
    wait_http)
from tools.ops.prometheus_e2e import check_dashboard_panels, query, rule_exprs

# How long the demo runs before the checks: enough reads (50 a second per
# drive) for a p99 of thousands and for the fleet rules' 500 reads in 2m,
# and shorter than the exporter's window and the 5m range, so that both
# quantiles are of the same reads (all of them, less Prometheus' first
# second).
WARMUP_SECONDS = 75
WINDOW = "5m"
# Schema 3: a bucket's upper bound is 2^(1/8) times its lower one.
SCHEMA_ERROR = 2 ** (1 / 8) - 1
CLASSIC_BUCKETS = 26
HISTOGRAM = "ssd_probe_latency_seconds"

check = Checks()


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
    for f in ("ssd_exporter.rules.yml", "fleet.rules.yml"):
        shutil.copy(Path(rule_dir) / f, tmp / f)
    (tmp / "prometheus.yml").write_text(f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [ssd_exporter.rules.yml, fleet.rules.yml]
scrape_configs:
  - job_name: ssd_exporter
    static_configs:
      - targets: ['127.0.0.1:{port}']
""")


def check_storage(prom, mode, want):
    """What Prometheus stored of the histogram in `mode`."""
    native, err = query(prom, HISTOGRAM)
    classic, err2 = query(prom, f"count by (device, op) ({HISTOGRAM}_bucket)")
    others, err3 = query(prom, f'{{__name__=~"{HISTOGRAM}_(count|sum)"}}')
    if err or err2 or err3:
        check(False, f"{mode}: queries fail: {err or err2 or err3}")
        return
    if mode == "native":
        histograms = [r for r in native if "histogram" in r and "value" not in r]
        check(series_keys(histograms) == want and len(histograms) == len(native) == len(want),
              f"native: one histogram series per probed drive and op ({len(histograms)} of "
              f"{len(want)}: {sorted(series_keys(native))})")
        check(not classic and not others,
              f"native: no classic _bucket, _count or _sum series "
              f"({len(classic)} bucket sets, {len(others)} others)")
    else:
        counts = {(r["metric"]["device"], r["metric"]["op"]): int(r["value"][1]) for r in classic}
        check(set(counts) == want and set(counts.values()) == {CLASSIC_BUCKETS},
              f"classic: {CLASSIC_BUCKETS} _bucket series per probed drive and op: {counts}")
        check(not native, f"classic: no native histogram series ({len(native)})")
        check(series_keys(others) == want and len(others) == 2 * len(want),
              f"classic: _count and _sum per probed drive and op ({len(others)})")


def check_p99(prom, want):
    """The native p99 over 5m against the exporter's window p99, per drive."""
    at = time.time()
    est, err = query(prom, f'histogram_quantile(0.99, rate({HISTOGRAM}{{op="read"}}[5m]))', at)
    exact, err2 = query(prom, f'ssd_probe_latency_quantile_seconds{{q="0.99", op="read"}}', at)
    if err or err2:
        check(False, f"native p99: queries fail: {err or err2}")
        return
    exact = {r["metric"]["device"]: float(r["value"][1]) for r in exact}
    est = {r["metric"]["device"]: float(r["value"][1]) for r in est}
    devices = {d for d, op in want if op == "read"}
    check(set(est) == devices == set(exact),
          f"native p99: a quantile for every probed drive ({sorted(est)})")
    for d in sorted(devices & set(est) & set(exact)):
        error = est[d] / exact[d] - 1
        check(abs(error) <= SCHEMA_ERROR,
              f"native p99 of {d}: histogram_quantile {est[d] * 1e6:.1f} µs, window "
              f"{exact[d] * 1e6:.1f} µs, {error:+.2%} (bound ±{SCHEMA_ERROR:.2%})")


def check_rules_and_panels(prom, mode, rule_dir, dashboards):
    recorded = sorted({name for f in ("ssd_exporter.rules.yml", "fleet.rules.yml")
                       for name, _ in rule_exprs(Path(rule_dir) / f) if ":" in (name or "")})
    check(len(recorded) > 10, f"{mode}: {len(recorded)} recording rules")
    for name in recorded:
        result, err = query(prom, name)
        check(bool(result), f"{mode}: recording rule {name}: "
              + (f"error {err}" if err else f"{len(result)} series"))
    check_dashboard_panels(check, prom, prefix=f"{mode}: ", folder=dashboards)


def report_cost(prom, mode, drives):
    """Series per drive and samples per scrape, as this Prometheus stores them."""
    series, _ = query(prom, 'count({__name__=~"ssd_.+", device!=""})')
    samples, _ = query(prom, "scrape_samples_scraped")
    n = float(series[0]["value"][1]) if series else 0
    s = samples[0]["value"][1] if samples else "?"
    print(f"COST {mode}: {n / drives:.1f} series per drive ({n:.0f} over {drives} drives), "
          f"{s} samples per scrape")


def main():
    binary = exporter_binary()
    prom_bin = prometheus_binary()
    tmp = Path(tempfile.mkdtemp(prefix="ssd-native-"))
    procs = []
    try:
        native_rules = tmp / "rendered"
        render.main(["--out", str(native_rules), "--config", "{nativeHistograms: true}"])
        exporter_port = free_port()
        log = open(tmp / "exporter.log", "w")
        procs.append(subprocess.Popen(
            [binary, "--demo", f"--probe.window={WINDOW}",
             f"--web.listen-address=127.0.0.1:{exporter_port}"], stdout=log, stderr=log))
        started = time.monotonic()
        proms = {}
        for mode, rules, extra in (
            ("native", native_rules, ["--enable-feature=native-histograms"]),
            ("classic", ROOT / "alerts", []),
        ):
            prometheus_config(tmp / mode, exporter_port, rules)
            proc, url = start_prometheus(prom_bin, tmp / mode, free_port(), extra)
            procs.append(proc)
            proms[mode] = url
        wait_http(f"http://127.0.0.1:{exporter_port}/metrics", "ssd_exporter --demo")
        for url in proms.values():
            wait_http(f"{url}/-/ready", "prometheus")
        time.sleep(max(0.0, WARMUP_SECONDS - (time.monotonic() - started)))
        want = probed(get(f"http://127.0.0.1:{exporter_port}/metrics"))
        drives = len({d for d, _ in want})
        check(drives >= 4, f"the demo probes {drives} drives: {sorted(want)}")
        for mode, prom in proms.items():
            targets = json.loads(get(f"{prom}/api/v1/targets"))["data"]["activeTargets"]
            check(len(targets) == 1 and targets[0]["health"] == "up",
                  f"{mode}: prometheus scrapes the exporter: "
                  + ", ".join(f"{t['health']} {t['lastError']}" for t in targets))
            check_storage(prom, mode, want)
            dashboards = native_rules if mode == "native" else ROOT / "dashboards"
            rules = native_rules if mode == "native" else ROOT / "alerts"
            check_rules_and_panels(prom, mode, rules, dashboards)
            report_cost(prom, mode, drives)
        check_p99(proms["native"], want)
    finally:
        stop_all(procs)
        if check.failures:
            for f in ("exporter.log", "native/prometheus.log", "classic/prometheus.log"):
                if (tmp / f).exists():
                    print(f"---- {f} (tail)")
                    print("\n".join((tmp / f).read_text().splitlines()[-15:]))
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"prometheus native histograms: {check.passed} passed, {check.failed} failed")
    sys.exit(1 if check.failures else 0)


if __name__ == "__main__":
    main()
