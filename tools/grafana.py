"""The shipped Grafana dashboards as data: their queries, ready to run against
a real Prometheus, and the structural checks an import relies on.

Library:

- ``panels(path)``: every (dashboard uid, panel title, refId, expr), rows and
  collapsed rows walked, hidden targets left out;
- ``substitute(expr, instance_regex, device_regex, ...)``: the Grafana
  variables replaced by concrete values; an unknown one raises;
- ``metric_names(expr)``: the ``ssd_*`` names a query mentions, as written
  (``ssd_probe_latency_seconds_bucket`` stays so; ``family`` maps it back);
- ``validate(path)``: problems that would break an import or a panel.

CLI, from the repository root::

    python3 -m tools.grafana validate dashboards/*.json
    python3 -m tools.grafana queries dashboards/*.json --instance REGEX --device REGEX
    python3 -m tools.grafana promql dashboards/*.json --url http://127.0.0.1:9090 ...
    python3 -m tools.grafana selftest   # = pytest tools/tests/test_grafana.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

from tools import ROOT

DATASOURCE = "${datasource}"
# Series that belong to the exporter, not to a drive: no `device` label.
EXPORTER_METRICS = frozenset({"ssd_exporter_build_info", "ssd_exporter_devices"})
HISTOGRAMS = frozenset({"ssd_probe_latency_seconds"})
REQUIRED_VARIABLES = ("datasource", "instance", "device")

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_NAME = re.compile(r"(?<![A-Za-z0-9_:])ssd_[A-Za-z0-9_:]*")
_VARIABLE = re.compile(r"\$(?:\{(\w+)(?::(\w+))?\}|(\w+))")
_DURATION = re.compile(r"(\d+)(ms|s|m|h|d|w|y)")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
            "w": 604_800_000, "y": 31_536_000_000}


class SubstitutionError(ValueError):
    """A query names a variable the caller gave no value for."""


# ---------------------------------------------------------------- panels


def _load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _walk(panel_list: list) -> list[dict]:
    """Every panel, rows included, with the panels of collapsed rows."""
    out = []
    for p in panel_list or []:
        out.append(p)
        out.extend(_walk(p.get("panels", [])))
    return out


def _is_row(panel: dict) -> bool:
    return panel.get("type") == "row"


def panels(path: str) -> list[tuple[str, str, str, str]]:
    """(dashboard uid, panel title, refId, expr) for every visible target."""
    dash = _load(path)
    uid = dash.get("uid", "")
    out = []
    for p in _walk(dash.get("panels", [])):
        for t in p.get("targets", []) or []:
            if t.get("hide") is True or not t.get("expr"):
                continue
            out.append((uid, p.get("title", ""), t.get("refId", ""), t["expr"]))
    return out


# ---------------------------------------------------------------- substitute


def _milliseconds(duration: str) -> int:
    parts = _DURATION.findall(duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise SubstitutionError(f"not a Prometheus duration: {duration!r}")
    return sum(int(n) * _UNIT_MS[u] for n, u in parts)


def substitute(expr: str, instance_regex: str, device_regex: str,
               rate_interval: str = "1m", interval: str | None = None,
               range_: str = "1h") -> str:
    """`expr` with Grafana's variables replaced by concrete values.

    `$instance`/`${instance}` (any `:format`) and the same for `device` take
    the regexes as they are; `$__rate_interval`, `$__interval`, `$__range`
    take durations (`interval` defaults to `rate_interval`), and their `_ms`
    and `_s` forms the numbers. Any other variable raises SubstitutionError,
    so a query never reaches Prometheus with a `$` Grafana would have filled.
    """
    interval = interval or rate_interval
    values = {
        "instance": instance_regex,
        "device": device_regex,
        "__rate_interval": rate_interval,
        "__rate_interval_ms": str(_milliseconds(rate_interval)),
        "__interval": interval,
        "__interval_ms": str(_milliseconds(interval)),
        "__range": range_,
        "__range_s": str(_milliseconds(range_) // 1000),
        "__range_ms": str(_milliseconds(range_)),
    }

    def one(m: re.Match) -> str:
        name = m.group(1) or m.group(3)
        if name not in values:
            raise SubstitutionError(f"no value for ${name} in: {expr}")
        return values[name]

    out = _VARIABLE.sub(one, expr)
    left = re.search(r"\$(\{|\w)", out)
    if left:
        raise SubstitutionError(f"variable left after substitution at {left.start()}: {out}")
    return out


# ---------------------------------------------------------------- metric names


def _strip_strings(expr: str) -> str:
    """`expr` with string literals blanked (same length), so label values and
    regexes never look like metric names."""
    return _STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', expr)


def metric_names(expr: str) -> set[str]:
    """The `ssd_*` metric names in `expr`, exactly as written: a histogram's
    `_bucket` series stays `..._bucket` (use `family` for the family)."""
    return set(_NAME.findall(_strip_strings(expr)))


def family(name: str) -> str:
    """The metric family a series name belongs to: `_bucket`, `_sum` and
    `_count` of a known histogram stripped; anything else unchanged."""
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix) and name[: -len(suffix)] in HISTOGRAMS:
            return name[: -len(suffix)]
    return name


def _selectors(expr: str) -> list[tuple[str, str]]:
    """(metric name, text between its braces or '') for every ssd_* selector."""
    blank = _strip_strings(expr)
    out = []
    for m in _NAME.finditer(blank):
        rest = blank[m.end():]
        stripped = rest.lstrip()
        if not stripped.startswith("{"):
            out.append((m.group(0), ""))
            continue
        start = m.end() + (len(rest) - len(stripped))
        end = blank.index("}", start)
        out.append((m.group(0), expr[start + 1:end]))
    return out


def unfiltered(expr: str) -> list[str]:
    """Selectors in `expr` that do not filter by `$instance` (all) and
    `$device` (per-drive metrics)."""
    out = []
    for name, matchers in _selectors(expr):
        if ":" in name:
            continue  # a recorded constant (alerts/fleet.rules.yml): no labels
        compact = matchers.replace(" ", "")
        need = ['instance=~"$instance"']
        if name not in EXPORTER_METRICS:
            need.append('device=~"$device"')
        missing = [n for n in need if n not in compact]
        if missing:
            out.append(f"{name} lacks {', '.join(missing)}")
    return out


# ---------------------------------------------------------------- validate


def _variables(dash: dict) -> dict[str, dict]:
    return {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}


def _check_dashboard(dash: dict, problems: list[str]) -> None:
    if not dash.get("uid"):
        problems.append("no uid")
    if not dash.get("title"):
        problems.append("no title")
    inputs = dash.get("__inputs", [])
    if not any(i.get("name") == "DS_PROMETHEUS" and i.get("type") == "datasource"
               and i.get("pluginId") == "prometheus" for i in inputs):
        problems.append("__inputs has no DS_PROMETHEUS prometheus datasource")
    if not any(r.get("type") == "datasource" and r.get("id") == "prometheus"
               for r in dash.get("__requires", [])):
        problems.append("__requires does not name the prometheus datasource")
    variables = _variables(dash)
    for name in REQUIRED_VARIABLES:
        if name not in variables:
            problems.append(f"templating has no {name!r} variable")
    ds = variables.get("datasource", {})
    if ds and (ds.get("type") != "datasource" or ds.get("query") != "prometheus"):
        problems.append("variable 'datasource' is not a prometheus datasource variable")
    for name in ("instance", "device"):
        v = variables.get(name)
        if v and (v.get("datasource") or {}).get("uid") != DATASOURCE:
            problems.append(f"variable {name!r} does not query ${{datasource}}")


def _check_panel(p: dict, problems: list[str], ids: set, titles: set) -> None:
    where = f"panel {p.get('id')!r} ({p.get('title')!r})"
    if not isinstance(p.get("id"), int):
        problems.append(f"{where}: id is not an integer")
    elif p["id"] in ids:
        problems.append(f"{where}: id used twice")
    ids.add(p.get("id"))
    if not p.get("title"):
        problems.append(f"{where}: no title")
    elif not _is_row(p):
        if p["title"] in titles:
            problems.append(f"{where}: title used twice")
        titles.add(p["title"])
    pos = p.get("gridPos") or {}
    if not all(isinstance(pos.get(k), int) for k in ("x", "y", "w", "h")):
        problems.append(f"{where}: gridPos needs integer x, y, w, h")
    elif pos["x"] + pos["w"] > 24:
        problems.append(f"{where}: wider than the 24-column grid")
    if _is_row(p):
        return
    if (p.get("datasource") or {}).get("uid") != DATASOURCE:
        problems.append(f"{where}: datasource is not {DATASOURCE}")
    targets = [t for t in p.get("targets") or [] if t.get("hide") is not True]
    if not any((t.get("expr") or "").strip() for t in targets):
        problems.append(f"{where}: no target with an expr")
    refs = [t.get("refId") for t in p.get("targets") or []]
    if len(refs) != len(set(refs)) or None in refs:
        problems.append(f"{where}: refIds missing or repeated")
    for t in targets:
        ds = t.get("datasource")
        if ds is not None and ds.get("uid") != DATASOURCE:
            problems.append(f"{where} {t.get('refId')}: target datasource is not {DATASOURCE}")
        expr = t.get("expr") or ""
        try:
            substitute(expr, ".*", ".*")
        except SubstitutionError as e:
            problems.append(f"{where} {t.get('refId')}: {e}")
        for u in unfiltered(expr):
            problems.append(f"{where} {t.get('refId')}: {u}")


def _check_overlap(panel_list: list, problems: list[str]) -> None:
    """Panels shown together (top level and expanded rows) must not overlap;
    a collapsed row's panels are laid out when it opens."""
    boxes = []
    for p in panel_list:
        pos = p.get("gridPos") or {}
        if all(isinstance(pos.get(k), int) for k in ("x", "y", "w", "h")):
            boxes.append((p.get("title"), pos))
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1:]:
            if (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
                    and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]):
                problems.append(f"panels {ta!r} and {tb!r} overlap")


def validate_dashboard(dash: dict) -> list[str]:
    """Problems of a parsed dashboard; empty when none."""
    problems: list[str] = []
    _check_dashboard(dash, problems)
    ids: set = set()
    titles: set = set()
    for p in _walk(dash.get("panels", [])):
        _check_panel(p, problems, ids, titles)
    _check_overlap(dash.get("panels", []), problems)
    return problems


def validate(path: str) -> list[str]:
    """Problems that would break an import or a panel; empty when none."""
    try:
        dash = _load(path)
    except (OSError, json.JSONDecodeError) as e:
        return [f"{path}: {e}"]
    return [f"{path}: {p}" for p in validate_dashboard(dash)]


# ---------------------------------------------------------------- live check


def promql(url: str, expr: str, timeout: float = 10.0) -> tuple[str, str, int]:
    """(status, error text, series count) of `expr` as an instant query."""
    data = urllib.parse.urlencode({"query": expr}).encode()
    req = urllib.request.Request(url.rstrip("/") + "/api/v1/query", data=data)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:
        body = json.load(e)
    if body.get("status") != "success":
        return "error", f"{body.get('errorType')}: {body.get('error')}", 0
    return "success", "", len(body["data"]["result"] or [])


# ---------------------------------------------------------------- CLI


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("validate", help="structural checks").add_argument("files", nargs="+")
    for name, text in (("queries", "print every substituted query as JSON lines"),
                       ("promql", "run every substituted query against a Prometheus")):
        q = sub.add_parser(name, help=text)
        q.add_argument("files", nargs="+")
        q.add_argument("--instance", default=".*", help="value of $instance (a regex)")
        q.add_argument("--device", default=".*", help="value of $device (a regex)")
        q.add_argument("--rate-interval", default="1m")
        q.add_argument("--range", default="1h", dest="range_")
        if name == "promql":
            q.add_argument("--url", required=True, help="Prometheus base URL")
    sub.add_parser("selftest", help="its tests (pytest tools/tests/test_grafana.py)")
    args = ap.parse_args(argv)

    if args.cmd == "selftest":
        import pytest
        return pytest.main([str(ROOT / "tools/tests/test_grafana.py")])
    if args.cmd == "validate":
        problems = [p for f in args.files for p in validate(f)]
        print("\n".join(problems) if problems else f"{len(args.files)} dashboards: ok")
        return 1 if problems else 0
    bad = 0
    for f in args.files:
        for uid, title, ref, expr in panels(f):
            expr = substitute(expr, args.instance, args.device,
                              rate_interval=args.rate_interval, range_=args.range_)
            row = {"uid": uid, "title": title, "ref": ref, "expr": expr}
            if args.cmd == "promql":
                status, error, n = promql(args.url, expr)
                row.update(status=status, series=n)
                if error:
                    row["error"] = error
                    bad += 1
            print(json.dumps(row))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
