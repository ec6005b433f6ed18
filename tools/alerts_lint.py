"""Project checks on the rule files that promtool cannot make (run by
alerts/check.sh). From the repository root:

    python3 -m tools.alerts_lint metrics      RULES...              metrics used are in docs/metrics.md
    python3 -m tools.alerts_lint runbooks     ALERT_RULES           runbook_url anchors exist in docs/runbooks.md
    python3 -m tools.alerts_lint alert-tests  ALERT_RULES TESTS...  each alert fires in a test and is spared in one
    python3 -m tools.alerts_lint record-tests RECORD_RULES TESTS... each recording rule is queried by a test
    python3 -m tools.alerts_lint problems     RULES...              problem="..." names are in docs/metrics.md

Standard library only, so it runs wherever promtool does. The rule and test
files are read line by line in the layout they are written in (one key per
line, block lists), which is all these checks need.
"""

import re
import sys
from pathlib import Path

from tools import ROOT

RUNBOOK = ROOT / "docs" / "runbooks.md"
METRICS_DOC = ROOT / "docs" / "metrics.md"
RUNBOOK_BASE = "https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#"

# Words that look like metric names but are the exporter's and the groups' names.
NOT_METRICS = {"ssd_exporter", "ssd_exporter_fleet", "ssd_exporter_fail_slow"}


def code_lines(path):
    """Lines of a YAML file without comment lines."""
    return [l for l in Path(path).read_text().splitlines() if not l.lstrip().startswith("#")]


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
    """(name, lines) per rule of `kind` ("alert" or "record")."""
    out = []
    for line in code_lines(path):
        if m := re.match(r"\s*-\s+(alert|record):\s*(\S+)", line):
            out.append((m.group(1), m.group(2), []))
        elif out:
            out[-1][2].append(line)
    return [(name, body) for k, name, body in out if k == kind]


def check_metrics(paths):
    documented = set(re.findall(r"\bssd_[a-z0-9_]+", METRICS_DOC.read_text()))
    errors = []
    for path in paths:
        used = set(re.findall(r"\bssd_[a-z0-9_]+", "\n".join(code_lines(path))))
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
        for m in re.finditer(r'\bproblem=~?"([^"]*)"', "\n".join(code_lines(path))):
            for name in m.group(1).split("|"):
                if name not in documented:
                    errors.append(f"{path}: problem {name!r} is not a problem in docs/metrics.md")
    return errors


def check_runbooks(path):
    anchors, errors = runbook_anchors(), []
    for name, body in rules(path, "alert"):
        urls = [m.group(1) for l in body if (m := re.match(r"\s*runbook_url:\s*(\S+)", l))]
        if len(urls) != 1:
            errors.append(f"{name}: {len(urls)} runbook_url annotations, want 1")
            continue
        url = urls[0].strip("'\"")
        want = RUNBOOK_BASE + github_anchor(name)
        if url != want:
            errors.append(f"{name}: runbook_url is {url}, want {want}")
        if github_anchor(name) not in anchors:
            errors.append(f"{name}: docs/runbooks.md has no heading '## {name}'")
    return errors


def alert_test_cases(paths):
    """(alertname, fires) per alert_rule_test item in the test files."""
    cases = []
    for path in paths:
        lines = code_lines(path)
        block_indent = item_indent = None
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            if re.match(r"\s*-?\s*alert_rule_test:\s*$", line):
                block_indent, item_indent = indent, None
                continue
            if block_indent is None:
                continue
            item = line.lstrip().startswith("- ")
            if item_indent is None:
                if not (item and indent >= block_indent):
                    block_indent = None
                    continue
                item_indent = indent
            if indent < item_indent or (indent == item_indent and not item):
                block_indent = None
                continue
            if indent == item_indent:
                cases.append([None, False])
            if m := re.search(r"\balertname:\s*(\S+)", line):
                cases[-1][0] = m.group(1).strip("'\"")
            elif m := re.search(r"\bexp_alerts:\s*(.*)$", line):
                inline = m.group(1).strip()
                if inline:
                    cases[-1][1] = inline not in ("[]", "null", "~")
                else:
                    following = next((l for l in lines[i + 1 :] if l.strip()), "")
                    cases[-1][1] = following.lstrip().startswith("- ")
    return [(name, fires) for name, fires in cases if name]


def check_alert_tests(rules_path, test_paths):
    cases, errors = alert_test_cases(test_paths), []
    for name, _ in rules(rules_path, "alert"):
        if not any(n == name and fires for n, fires in cases):
            errors.append(f"{name}: no test case where it fires")
        if not any(n == name and not fires for n, fires in cases):
            errors.append(f"{name}: no test case where it stays silent")
    return errors


def check_record_tests(rules_path, test_paths):
    text = "\n".join(l for p in test_paths for l in code_lines(p) if "expr:" in l)
    return [
        f"{name}: no promql_expr_test queries it"
        for name, _ in rules(rules_path, "record")
        if not re.search(re.escape(name) + r"(?![\w:])", text)
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
