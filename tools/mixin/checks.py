"""Checks of the monitoring mixin (mixin/), one pytest test each:

    python3 -m tools.mixin.checks [pytest options]

  a. alerts/*.rules.yml are what mixin/ renders with the default _config.
  b. Rendered with a site's _config (ssdExporterSelector 'job="node-ssd"',
     ssdSelector 'cluster="eu1"', failSlowFactor 4), the rule files load in
     promtool and pass tests/mixin/site_test.yml (eu1's worn drive alerts,
     us1's does not; the exporter's job is node-ssd); every selector of an ssd_* metric in every rule and in every
     dashboard query carries cluster="eu1"; no job="ssd_exporter" is left and
     up{job="node-ssd"} is used; the fail-slow factor is 4; the queries the
     annotations' templates make carry the cluster too; and with those
     changes undone, every expression and annotation is the default one (the
     rewrite touched nothing else).
  c. tests/mixin/prometheusrule.jsonnet renders a PrometheusRule
     (monitoring.coreos.com/v1) whose spec.groups are the mixin's alert and
     rule groups, and that spec passes promtool check rules.
  d. The _config thresholds that the exporter's verdict also has are its
     defaults: in the code (src/health/rules.rs, the constants of Rules::DEFAULT), in the
     docs/configuration.md's table and in examples/config.yml.
  e. The jsonnet is as jsonnetfmt writes it.
  f. Rendered with nativeHistograms: true, the rules load in promtool, no
     rule or dashboard query reads the probe latency's classic _bucket or
     _count series, and with the native forms put back everything is the
     default (the switch touched nothing else).

Needs jsonnet and promtool (PROMTOOL=... to choose one).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import ROOT
from tools.mixin import render

CUSTOM = ("{ ssdExporterSelector: 'job=\"node-ssd\"', ssdSelector: 'cluster=\"eu1\"', "
          "failSlowFactor: 4 }")
CLUSTER = 'cluster="eu1"'
SITE_TEST = ROOT / "tests/mixin/site_test.yml"
# Prometheus storing the probe latency as a native histogram.
NATIVE = "{ nativeHistograms: true }"

# _config key -> (exporter health key, how the two must compare)
SAME_AS_EXPORTER = {
    "plpHealthLowRatio": ("plp_health_critical", "=="),
    "spareLowFactor": ("spare_warning_factor", "=="),
    "wearHighRatio": ("wear_warning", "=="),
    # SsdWearCritical pages before the verdict's wear_out, never after it.
    "wearCriticalRatio": ("wear_critical", "<="),
}


def promtool() -> str:
    return os.environ.get("PROMTOOL", "promtool")


def promtool_check(path: Path) -> list[str]:
    try:
        run = subprocess.run([promtool(), "check", "rules", str(path)],
                             capture_output=True, text=True)
    except FileNotFoundError:
        return [f"{promtool()} not found (Debian: apt-get install prometheus)"]
    if run.returncode != 0:
        return [f"promtool check rules {path.name}: " + (run.stdout + run.stderr).strip()]
    return []


# --------------------------------------------------------- PromQL selectors

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_COMMENT = re.compile(r"#[^\n]*")
_NAME = re.compile(r"(?<![A-Za-z0-9_:])[A-Za-z_:][A-Za-z0-9_:]*")


def selectors(expr: str) -> list[tuple[str, str]]:
    """(name, matchers between its braces or '') of every vector selector of
    an exporter metric (ssd_*, no colon) in a PromQL expression. Written
    apart from mixin/lib.libsonnet's rewrite on purpose: it checks it."""
    blank = _STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', expr)
    blank = _COMMENT.sub(lambda m: " " * len(m.group(0)), blank)
    out = []
    for m in _NAME.finditer(blank):
        name = m.group(0)
        if not name.startswith("ssd_") or ":" in name:
            continue
        rest = blank[m.end():]
        if rest.lstrip().startswith("{"):
            start = m.end() + len(rest) - len(rest.lstrip())
            end = blank.find("}", start)
            if end < 0:
                raise ValueError(f"unbalanced braces after {name} in: {expr}")
            out.append((name, expr[start + 1:end]))
        else:
            out.append((name, ""))
    return out


def _has(matchers: str, want: str) -> bool:
    return want in [m.strip() for m in matchers.split(",")]


def rules_of(doc: dict) -> list[dict]:
    return [r for g in doc["groups"] for r in g["rules"]]


def dashboard_queries(dash: dict) -> list[str]:
    out = []

    def panels(ps):
        for p in ps:
            out.extend(t["expr"] for t in p.get("targets", []) if isinstance(t.get("expr"), str))
            panels(p.get("panels", []))

    panels(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v.get("query")
        out.append(q["query"] if isinstance(q, dict) else q)
        if "definition" in v:
            out.append(v["definition"])
    return [q for q in out if q]


# ------------------------------------------------------------------ checks

def check_committed() -> list[str]:
    problems = []
    for rel, text in render.render_all().items():
        path = ROOT / rel
        if not path.exists() or path.read_text() != text:
            problems.append(f"{rel} is not what mixin/ renders: run python3 -m tools.mixin.render")
    return problems


def check_custom(tmp: Path) -> list[str]:
    problems = []
    files = render.render_all(CUSTOM)
    for rel, text in files.items():
        path = tmp / Path(rel).name
        path.write_text(text)
        problems += promtool_check(path)
    if not problems:
        # the rendered rules at work: eu1's drive alerts, us1's does not
        test = tmp / SITE_TEST.name
        shutil.copy(SITE_TEST, test)
        run = subprocess.run([promtool(), "test", "rules", str(test)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"promtool test rules {SITE_TEST.relative_to(ROOT)}:\n"
                            + (run.stdout + run.stderr).strip())
    custom = render.evaluate(CUSTOM)
    default = render.evaluate()
    n_sel = 0
    for field in ("prometheusAlerts", "prometheusRules"):
        for rule, plain in zip(rules_of(custom[field]), rules_of(default[field])):
            name = rule.get("alert") or rule.get("record")
            for metric, matchers in selectors(rule["expr"]):
                n_sel += 1
                if not _has(matchers, CLUSTER):
                    problems.append(f"rule {name}: {metric}{{{matchers}}} lacks {CLUSTER}")
            undone = (rule["expr"].replace("{" + CLUSTER + "}", "")
                      .replace(CLUSTER + ", ", "").replace('job="node-ssd"', 'job="ssd_exporter"'))
            if name == "ssd_exporter:fail_slow_factor":
                undone = undone.replace("vector(4)", "vector(5)")
            if undone != plain["expr"]:
                problems.append(f"rule {name}: the custom expression differs from the default "
                                f"in more than the selectors and the factor:\n{rule['expr']}")
            for key, text in (rule.get("annotations") or {}).items():
                for query in re.findall(r"printf `([^`]*)`", text):
                    for metric, matchers in selectors(query.replace("%q", '"x"')):
                        n_sel += 1
                        if not _has(matchers, CLUSTER):
                            problems.append(f"rule {name}, {key}: the query {query} lacks {CLUSTER}")
                undone = (text.replace(CLUSTER + ", ", "")
                          .replace('job "node-ssd"', 'job "ssd_exporter"'))
                if undone != (plain.get("annotations") or {}).get(key):
                    problems.append(f"rule {name}: annotation {key} differs from the default "
                                    f"in more than the selectors:\n{text}")
    n_dash = 0
    for file, dash in custom["grafanaDashboards"].items():
        for q in dashboard_queries(dash):
            for metric, matchers in selectors(q):
                n_dash += 1
                if not _has(matchers, CLUSTER):
                    problems.append(f"{file}: {metric}{{{matchers}}} lacks {CLUSTER} in: {q}")
    if n_sel < 50 or n_dash < 100:
        problems.append(f"only {n_sel} rule and {n_dash} dashboard selectors found: the scan is broken")
    text = "".join(files.values())
    if 'job="ssd_exporter"' in text:
        problems.append('job="ssd_exporter" is still in the rules rendered with job="node-ssd"')
    if 'up{job="node-ssd"}' not in text:
        problems.append('up{job="node-ssd"} is in no rule')
    factor = [r for r in rules_of(custom["prometheusRules"])
              if r.get("record") == "ssd_exporter:fail_slow_factor"]
    if [r["expr"] for r in factor] != ["vector(4)"]:
        problems.append(f"ssd_exporter:fail_slow_factor is {[r['expr'] for r in factor]}, "
                        "not vector(4)")
    fail_slow = [r for r in rules_of(custom["prometheusRules"]) if r.get("alert") == "SsdFailSlow"]
    if not fail_slow or "ssd_exporter:fail_slow_factor" not in fail_slow[0]["expr"]:
        problems.append("SsdFailSlow does not compare with ssd_exporter:fail_slow_factor")
    return problems


_CLASSIC = re.compile(r"ssd_probe_latency_seconds_(bucket|count)\b")
_NATIVE_COUNT = re.compile(
    r"histogram_count\(increase\(ssd_probe_latency_seconds(\{[^}]*\}\[[^]]*\])\)\)")


def undo_native(expr: str) -> str:
    """`expr` with the native histogram's forms put back to the classic ones
    (written apart from lib.probeLatency on purpose: it checks it)."""
    expr = _NATIVE_COUNT.sub(r"increase(ssd_probe_latency_seconds_count\1)", expr)
    expr = expr.replace("ssd_probe_latency_seconds{", "ssd_probe_latency_seconds_bucket{")
    return re.sub(r"(?m)^(\s*)and$", r"\1and ignoring(le)", expr)


def check_native(tmp: Path) -> list[str]:
    """Rendered with nativeHistograms, the rule files load in promtool; no
    rule or dashboard reads the probe latency's classic _bucket or _count
    series; and with the native forms put back, every rule and dashboard is
    the default one. The rules and panels at work against Prometheus with
    native histograms: tools/ops/prometheus_native.py."""
    problems = []
    for rel, text in render.render_all(NATIVE).items():
        path = tmp / Path(rel).name
        path.write_text(text)
        problems += promtool_check(path)
    native, default = render.evaluate(NATIVE), render.evaluate()
    reads = 0
    for field in ("prometheusAlerts", "prometheusRules"):
        for rule, plain in zip(rules_of(native[field]), rules_of(default[field])):
            name = rule.get("alert") or rule.get("record")
            if _CLASSIC.search(rule["expr"]):
                problems.append(f"rule {name} reads classic buckets:\n{rule['expr']}")
            reads += "ssd_probe_latency_seconds{" in rule["expr"]
            if (undo_native(rule["expr"]) != plain["expr"]
                    or rule.get("annotations") != plain.get("annotations")):
                problems.append(f"rule {name} differs from the default in more than the histogram")
    for file, dash in native["grafanaDashboards"].items():
        for q in dashboard_queries(dash):
            if _CLASSIC.search(q):
                problems.append(f"{file} reads classic buckets: {q}")
            reads += "ssd_probe_latency_seconds{" in q
        if json.loads(undo_native(json.dumps(dash))) != default["grafanaDashboards"][file]:
            problems.append(f"{file} differs from the default in more than the histogram")
    if reads < 9:
        problems.append(f"only {reads} rules and queries read the native histogram: "
                        "the scan is broken")
    return problems


def check_prometheusrule(tmp: Path) -> list[str]:
    run = subprocess.run([render.jsonnet_binary(), "-J", str(ROOT),
                          "tests/mixin/prometheusrule.jsonnet"],
                         cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        return [f"jsonnet tests/mixin/prometheusrule.jsonnet: {run.stderr.strip()}"]
    obj = json.loads(run.stdout)
    problems = []
    if obj.get("apiVersion") != "monitoring.coreos.com/v1":
        problems.append(f"apiVersion is {obj.get('apiVersion')!r}")
    if obj.get("kind") != "PrometheusRule":
        problems.append(f"kind is {obj.get('kind')!r}")
    if not (obj.get("metadata") or {}).get("name"):
        problems.append("no metadata.name")
    mixin = render.evaluate("{ ssdExporterSelector: 'job=\"ssd-exporter\"' }",
                            ("prometheusAlerts", "prometheusRules"))
    want = mixin["prometheusAlerts"]["groups"] + mixin["prometheusRules"]["groups"]
    groups = (obj.get("spec") or {}).get("groups")
    if groups != want:
        problems.append("spec.groups are not the mixin's prometheusAlerts + prometheusRules groups")
    names = [g.get("name") for g in groups or []]
    if len(names) != len(set(names)):
        problems.append(f"group names repeat: {names}")
    spec = tmp / "prometheusrule-spec.yml"
    spec.write_text(render.to_yaml(obj.get("spec") or {}))
    problems += promtool_check(spec)
    if 'up{job="ssd-exporter"}' not in spec.read_text():
        problems.append('the spec does not use the overridden job (up{job="ssd-exporter"})')
    return problems


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def exporter_defaults() -> dict[str, dict[str, float]]:
    """{source: {health key: default}} from the code, docs/configuration.md's table and
    examples/config.yml."""
    out: dict[str, dict[str, float]] = {}
    # One constant per default (`pub const WEAR_WARNING: f64 = 0.8;`), named
    # as the key in capitals.
    code = (ROOT / "src/health/rules.rs").read_text()
    out["src/health/rules.rs"] = {
        k.lower(): v for k, v in ((k, _number(v)) for k, v in
                                  re.findall(r"pub const ([A-Z_]+): f64 = ([0-9.]+);", code))
        if v is not None}
    readme = (ROOT / "docs/configuration.md").read_text()
    out["docs/configuration.md"] = {k: v for k, v in ((k, _number(v)) for k, v in re.findall(
        r"^\| – \| `health\.(\w+)` \| `([^`]+)` \|", readme, re.M)) if v is not None}
    example = (ROOT / "examples/config.yml").read_text()
    section = re.search(r"^health:\n((?:[ #].*\n|\n)*)", example, re.M)
    out["examples/config.yml"] = {k: v for k, v in ((k, _number(v)) for k, v in re.findall(
        r"^  (\w+): ([^\s#]+)", section.group(1) if section else "", re.M)) if v is not None}
    return out


def check_thresholds() -> list[str]:
    config = json.loads(subprocess.run(
        [render.jsonnet_binary(), "-J", str(ROOT), "-e",
         f"(import '{render.MIXIN}')._config"], cwd=ROOT, capture_output=True,
        text=True, check=True).stdout)
    sources = exporter_defaults()
    problems = []
    for source, values in sources.items():
        if not values:
            problems.append(f"no health defaults found in {source}: the check cannot read it")
    for key, (health, op) in SAME_AS_EXPORTER.items():
        if key not in config:
            problems.append(f"_config has no {key}")
            continue
        seen = 0
        for source, values in sources.items():
            if health not in values:
                continue
            seen += 1
            ours, theirs = config[key], values[health]
            ok = abs(ours - theirs) < 1e-9 if op == "==" else ours <= theirs + 1e-9
            if not ok:
                problems.append(f"_config.{key} = {ours}, but health.{health} = {theirs} in "
                                f"{source} (must be {op})")
        if seen < 2:
            problems.append(f"health.{health} found in {seen} source(s) only")
    return problems


def check_format() -> list[str]:
    """The jsonnet is as jsonnetfmt writes it (Debian's jsonnet package has it)."""
    files = sorted(str(p.relative_to(ROOT)) for p in
                   list((ROOT / "mixin").rglob("*.libsonnet")) + list((ROOT / "tests/mixin").glob("*.jsonnet")))
    binary = shutil.which("jsonnetfmt")
    if not binary:
        return ["jsonnetfmt not found (Debian: apt-get install jsonnet)"]
    run = subprocess.run([binary, "--test", *files], cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        bad = [f for f in files if subprocess.run([binary, "--test", f], cwd=ROOT).returncode != 0]
        return [f"{f} is not formatted: jsonnetfmt -i {f}" for f in bad] or [run.stderr.strip()]
    return []


def _none(problems: list[str]) -> None:
    assert not problems, "\n".join(problems[:20]) + (
        f"\n... and {len(problems) - 20} more" if len(problems) > 20 else "")


def test_rules_are_what_mixin_renders():
    """render --check: alerts/*.rules.yml are what mixin/ renders."""
    _none(check_committed())


def test_site_config(tmp_path):
    """A custom _config (job="node-ssd", cluster="eu1", failSlowFactor 4): loads,
    passes tests/mixin/site_test.yml, every ssd_* selector of rules and dashboards
    has the cluster, nothing else changed."""
    _none(check_custom(tmp_path))


def test_native_histograms(tmp_path):
    """nativeHistograms: true: the rules load, the rules and dashboards read the
    native histogram only, nothing else changed."""
    _none(check_native(tmp_path))


def test_prometheusrule(tmp_path):
    """tests/mixin/prometheusrule.jsonnet: a PrometheusRule whose spec passes promtool."""
    _none(check_prometheusrule(tmp_path))


def test_thresholds_are_the_exporters():
    """_config thresholds are the exporter's health: defaults."""
    _none(check_thresholds())


def test_jsonnet_is_formatted():
    """mixin/ and tests/mixin/ jsonnet is jsonnetfmt-formatted."""
    _none(check_format())


def main() -> int:
    return pytest.main([__file__, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
