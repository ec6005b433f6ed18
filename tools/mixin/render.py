"""Renders the monitoring mixin (mixin/mixin.libsonnet) into the rule files
Prometheus and vmalert load:

    python3 -m tools.mixin.render            # rewrite alerts/*.rules.yml
    python3 -m tools.mixin.render --check    # exit 1 if a file differs from a fresh render
    python3 -m tools.mixin.render --out DIR --config '{ssdSelector: "cluster=\\"eu1\\""}'
                                             # render with _config overrides into DIR
                                             # (rule files and dashboards)

alerts/ssd_exporter.rules.yml is the mixin's prometheusAlerts and
alerts/fleet.rules.yml its prometheusRules, both with the default _config.
Edit mixin/ and re-render, never the YAML. Needs the `jsonnet` binary
(Debian: apt-get install jsonnet). The YAML is written here, for reading:
block scalars for multi-line strings, folded ones for descriptions, quotes
where a plain scalar would be read otherwise; PyYAML reads every file back
and it must be the mixin's value.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tools import ROOT

MIXIN = "mixin/mixin.libsonnet"

HEADER = """\
# {title}
#
# Generated from mixin/ by python3 -m tools.mixin.render; edit mixin/ and
# re-render (python3 -m tools.mixin.render --check tells whether this file is
# current). Each rule is explained in
#   {source};
# thresholds, windows and selectors are _config keys (mixin/config.libsonnet,
# table in mixin/README.md). Runbooks: docs/runbooks.md. Tests: alerts/tests/,
# run with alerts/check.sh. Loading the rules: alerts/README.md.
"""

# field of the mixin -> (file in alerts/, first header line, jsonnet source)
OUTPUTS = {
    "prometheusAlerts": ("ssd_exporter.rules.yml", "Alerting rules for ssd_exporter.",
                         "mixin/alerts/alerts.libsonnet"),
    "prometheusRules": ("fleet.rules.yml",
                        "Recording rules for fleets of drives, and the fail-slow alerts.",
                        "mixin/rules/rules.libsonnet"),
}

# Keys in the order a rule file is read: everything else follows, sorted.
KEY_ORDER = ["name", "interval", "limit", "rules", "alert", "record", "expr", "for",
             "keep_firing_for", "labels", "annotations", "summary", "description",
             "runbook_url"]
WIDTH = 92


class RenderError(RuntimeError):
    pass


def jsonnet_binary() -> str:
    path = shutil.which("jsonnet")
    if not path:
        raise RenderError("jsonnet not found (Debian: apt-get install jsonnet)")
    return path


def evaluate(config: str = "{}", fields=("prometheusAlerts", "prometheusRules",
                                         "grafanaDashboards")) -> dict:
    """The mixin's `fields`, with `config` (a jsonnet object) merged into
    _config, as Python values."""
    body = ", ".join(f"{f}: m.{f}" for f in fields)
    code = f"local m = (import '{MIXIN}') + {{ _config+:: {config} }}; {{ {body} }}"
    run = subprocess.run([jsonnet_binary(), "-J", str(ROOT), "-e", code], cwd=ROOT,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RenderError(f"jsonnet failed:\n{run.stderr}")
    return json.loads(run.stdout)


# ------------------------------------------------------------------- YAML

_SPECIAL = re.compile(r"(?i)(true|false|yes|no|on|off|y|n|null|~|[-+]?\.?(inf|nan))")
_NUMBER = re.compile(r"[-+]?(0[xob][0-9a-f_]+|[0-9_]*\.?[0-9_]+(e[-+]?[0-9]+)?|[0-9_]+\.)",
                     re.IGNORECASE)


def _plain_ok(s: str) -> bool:
    """True if `s` reads back as the same string written without quotes."""
    if not s or s != s.strip() or s[0] in "-?:,[]{}#&*!|>'\"%@`":
        return False
    if ": " in s or " #" in s or s.endswith(":") or "\t" in s:
        return False
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in s):
        return False
    return not (_SPECIAL.fullmatch(s) or _NUMBER.fullmatch(s))


def _foldable(s: str) -> bool:
    """True if `s` survives a `>-` folded scalar broken at single spaces."""
    return (len(s) > 0 and s == s.strip() and "  " not in s
            and not any(ord(ch) < 32 or ord(ch) == 127 for ch in s))


def _quoted(s: str) -> str:
    # A JSON string is a YAML double-quoted scalar.
    return json.dumps(s, ensure_ascii=False)


def _fold(s: str, width: int) -> list[str]:
    """`s` broken at single spaces into lines of about `width`, never inside
    a template action ({{ ... }}), which reads better whole."""
    chunks, depth = [], 0
    for word in s.split(" "):
        if chunks and depth > 0:
            chunks[-1] += " " + word
        else:
            chunks.append(word)
        depth += word.count("{{") - word.count("}}")
    lines, line = [], ""
    for chunk in chunks:
        if line and len(line) + 1 + len(chunk) > width:
            lines.append(line)
            line = chunk
        else:
            line = f"{line} {chunk}" if line else chunk
    lines.append(line)
    return lines


def _scalar(key: str, value, indent: int) -> list[str]:
    """The text after `key:` (first element) and any following lines."""
    pad = " " * (indent + 2)
    if isinstance(value, bool):
        return [" true" if value else " false"]
    if isinstance(value, (int, float)):
        return [" " + json.dumps(value)]
    if value is None:
        return [" null"]
    if "\n" in value:
        body = value[:-1] if value.endswith("\n") else value
        chomp = "" if value.endswith("\n") and not value.endswith("\n\n") else (
            "-" if not value.endswith("\n") else "+")
        if chomp == "+":
            body = value.rstrip("\n")
        lines = body.split("\n")
        ind = "2" if lines and lines[0].startswith(" ") else ""
        out = [f" |{ind}{chomp}"]
        out += [pad + line if line else "" for line in lines]
        if chomp == "+":
            out += [""] * (len(value) - len(value.rstrip("\n")) - 1)
        return out
    if key == "description" and _foldable(value) and len(value) > WIDTH - indent:
        return [" >-"] + [pad + line for line in _fold(value, WIDTH - indent - 2)]
    # Summaries are quoted like the descriptions' templates, for reading.
    plain = _plain_ok(value) and key != "summary"
    return [" " + (value if plain else _quoted(value))]


def _key_sort(k: str):
    return (KEY_ORDER.index(k), "") if k in KEY_ORDER else (len(KEY_ORDER), k)


def _mapping(obj: dict, indent: int, first_prefix: str | None = None) -> list[str]:
    out = []
    for i, key in enumerate(sorted(obj, key=_key_sort)):
        if not _plain_ok(key):
            raise RenderError(f"key {key!r} needs quoting")
        prefix = first_prefix if (i == 0 and first_prefix is not None) else " " * indent
        value = obj[key]
        if isinstance(value, dict):
            if not value:
                out.append(f"{prefix}{key}: {{}}")
                continue
            out.append(f"{prefix}{key}:")
            out += _mapping(value, indent + 2)
        elif isinstance(value, list):
            if not value:
                out.append(f"{prefix}{key}: []")
                continue
            out.append(f"{prefix}{key}:")
            out += _sequence(value, indent + 2)
        else:
            lines = _scalar(key, value, indent)
            out.append(f"{prefix}{key}:{lines[0]}")
            out += lines[1:]
    return out


def _sequence(items: list, indent: int) -> list[str]:
    out = []
    for item in items:
        if isinstance(item, dict) and item:
            out += _mapping(item, indent + 2, first_prefix=" " * indent + "- ")
        elif isinstance(item, (dict, list)):
            raise RenderError("nested empty collections or lists of lists are not rendered")
        else:
            lines = _scalar("", item, indent)
            out.append(" " * indent + "-" + lines[0])
            out += lines[1:]
    return out


def to_yaml(doc: dict) -> str:
    return "\n".join(_mapping(doc, 0)) + "\n"


def rule_file(field: str, doc: dict) -> str:
    """A rule file: header comment, then the groups, a blank line between rules."""
    name, title, source = OUTPUTS[field]
    text = HEADER.format(title=title, source=source) + to_yaml(doc)
    # A blank line before each rule but the first of its group, for reading.
    text = re.sub(r"\n(      - (?:alert|record): )", r"\n\n\1", text).replace(
        "rules:\n\n", "rules:\n")
    # The YAML is written here for reading (block scalars, folded descriptions);
    # PyYAML reads it back as Prometheus will, and it must be the mixin's value.
    if yaml.safe_load(text) != doc:
        raise RenderError(f"{name}: the written YAML does not read back as the mixin's rules")
    return text


def render_all(config: str = "{}") -> dict[str, str]:
    """{path relative to the root: text} of the rule files."""
    values = evaluate(config, tuple(OUTPUTS))
    return {f"alerts/{OUTPUTS[f][0]}": rule_file(f, values[f]) for f in OUTPUTS}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.mixin.render",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if a committed rule file differs from a fresh render")
    ap.add_argument("--config", default="{}",
                    help="a jsonnet object merged into _config (with --out)")
    ap.add_argument("--out", help="write the rule files and dashboards into this folder")
    args = ap.parse_args(argv)
    if args.config != "{}" and not args.out:
        ap.error("--config needs --out: alerts/ holds the default render")
    try:
        files = render_all(args.config)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            for rel, text in files.items():
                (out / Path(rel).name).write_text(text)
            dashboards = evaluate(args.config, ("grafanaDashboards",))["grafanaDashboards"]
            for name, dash in dashboards.items():
                (out / name).write_text(json.dumps(dash, indent=2, ensure_ascii=False) + "\n")
            print(f"wrote {len(files) + len(dashboards)} files to {out}")
            return 0
    except RenderError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 2
    stale = []
    for rel, text in files.items():
        path = ROOT / rel
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(rel)
        else:
            path.write_text(text)
            print(f"wrote {rel}")
    if stale:
        print("FAIL: not what mixin/ renders (run python3 -m tools.mixin.render): "
              + ", ".join(stale), file=sys.stderr)
        return 1
    if args.check:
        print("PASS: alerts/*.rules.yml are what mixin/ renders")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
