"""Project checks on the rule files that promtool cannot make (run by
alerts/check.sh). From the repository root:

    python3 -m tools.alerts_lint metrics      RULES...              metrics used are in docs/metrics.md
    python3 -m tools.alerts_lint runbooks     ALERT_RULES           runbook_url anchors exist in docs/runbooks.md
    python3 -m tools.alerts_lint alert-tests  ALERT_RULES TESTS...  each alert fires in a test and is spared in one
    python3 -m tools.alerts_lint record-tests RECORD_RULES TESTS... each recording rule is queried by a test
    python3 -m tools.alerts_lint problems     RULES...              problem="..." names are in docs/metrics.md

The rule and test files are read with PyYAML, as promtool reads them.
"""

import re
import sys
from pathlib import Path

import yaml

from tools import ROOT

RUNBOOK = ROOT / "docs" / "runbooks.md"
METRICS_DOC = ROOT / "docs" / "metrics.md"
RUNBOOK_BASE = "https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#"

# Words that look like metric names but are the exporter's and the groups' names.
NOT_METRICS = {"ssd_exporter", "ssd_exporter_fleet", "ssd_exporter_fail_slow"}


def load(path) -> dict:
    return yaml.safe_load(Path(path).read_text()) or {}


def strings(node) -> list[str]:
    """Every string in a loaded YAML document, keys and values."""
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in strings(k) + strings(v)]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return [node] if isinstance(node, str) else []


def text(path) -> str:
    """The strings of a rule file (no comments), one a line."""
    return "\n".join(strings(load(path)))


def github_anchor(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def runbook_anchors():
    anchors, fenced = set(), False
    for line in RUNBOOK.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6}\s+(.*)", line)):
            anchors.add(github_anchor(m.group(1)))
    return anchors


def rules(path, kind):
    """(name, rule) per rule of `kind` ("alert" or "record")."""
    return [(r[kind], r) for g in load(path).get("groups") or [] for r in g.get("rules") or []
            if kind in r]


def check_metrics(paths):
    documented = set(re.findall(r"\bssd_[a-z0-9_]+", METRICS_DOC.read_text()))
    errors = []
    for path in paths:
        used = set(re.findall(r"\bssd_[a-z0-9_]+", text(path)))
        for name in sorted(used - documented - NOT_METRICS):
            # a histogram's series are documented under its family's name
            if re.sub(r"_(bucket|sum|count)$", "", name) in documented:
                continue
            errors.append(f"{path}: {name} is not in docs/metrics.md")
    return errors


def check_problems(paths):
    """Every verdict problem a rule names (`problem="x"`, `problem=~"x|y"`,
    e.g. to leave out a muted one) is a documented problem: a typo would
    match nothing, and the alert would ignore the operator's mute."""
    documented = set(re.findall(r"`([a-z0-9_]+)`", METRICS_DOC.read_text()))
    errors = []
    for path in paths:
        for m in re.finditer(r'\bproblem=~?"([^"]*)"', text(path)):
            for name in m.group(1).split("|"):
                if name not in documented:
                    errors.append(f"{path}: problem {name!r} is not a problem in docs/metrics.md")
    return errors


def check_runbooks(path):
    anchors, errors = runbook_anchors(), []
    for name, rule in rules(path, "alert"):
        url = (rule.get("annotations") or {}).get("runbook_url")
        if not url:
            errors.append(f"{name}: no runbook_url annotation")
            continue
        want = RUNBOOK_BASE + github_anchor(name)
        if url != want:
            errors.append(f"{name}: runbook_url is {url}, want {want}")
        if github_anchor(name) not in anchors:
            errors.append(f"{name}: docs/runbooks.md has no heading '## {name}'")
    return errors


def tests(paths) -> list[dict]:
    """The test groups (`tests:` items) of promtool test files."""
    return [group for path in paths for group in load(path).get("tests") or []]


def alert_test_cases(paths):
    """(alertname, fires) per alert_rule_test item in the test files."""
    return [(case["alertname"], bool(case.get("exp_alerts")))
            for group in tests(paths) for case in group.get("alert_rule_test") or []]


def check_alert_tests(rules_path, test_paths):
    cases, errors = alert_test_cases(test_paths), []
    for name, _ in rules(rules_path, "alert"):
        if not any(n == name and fires for n, fires in cases):
            errors.append(f"{name}: no test case where it fires")
        if not any(n == name and not fires for n, fires in cases):
            errors.append(f"{name}: no test case where it stays silent")
    return errors


def check_record_tests(rules_path, test_paths):
    exprs = "\n".join(case["expr"] for group in tests(test_paths)
                      for case in group.get("promql_expr_test") or [])
    return [
        f"{name}: no promql_expr_test queries it"
        for name, _ in rules(rules_path, "record")
        if not re.search(re.escape(name) + r"(?![\w:])", exprs)
    ]


def main(argv):
    checks = {
        "metrics": lambda a: check_metrics(a),
        "runbooks": lambda a: check_runbooks(a[0]),
        "alert-tests": lambda a: check_alert_tests(a[0], a[1:]),
        "record-tests": lambda a: check_record_tests(a[0], a[1:]),
        "problems": lambda a: check_problems(a),
    }
    if len(argv) < 3 or argv[1] not in checks:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    errors = checks[argv[1]](argv[2:])
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
