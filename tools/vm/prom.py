"""A small parser for the Prometheus text exposition format (samples only)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,)?')
_UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass(frozen=True)
class Sample:
    name: str
    labels: tuple[tuple[str, str], ...]  # sorted
    value: float

    def label(self, key: str) -> str | None:
        return dict(self.labels).get(key)

    def key(self) -> tuple:
        return (self.name, self.labels)

    def __str__(self) -> str:
        inner = ",".join(f'{k}="{v}"' for k, v in self.labels)
        return f"{self.name}{{{inner}}} {self.value:g}"


class ParseError(ValueError):
    pass


def _value(text: str) -> float:
    text = text.strip()
    special = {"+Inf": math.inf, "-Inf": -math.inf, "NaN": math.nan}
    if text in special:
        return special[text]
    return float(text)


def parse_line(line: str) -> Sample:
    m = _NAME.match(line)
    if not m:
        raise ParseError(f"no metric name: {line!r}")
    name, rest = m.group(0), line[m.end():]
    labels: dict[str, str] = {}
    if rest.startswith("{"):
        pos = 1
        while True:
            if rest[pos:].lstrip().startswith("}"):
                pos = rest.index("}", pos) + 1
                break
            lm = _LABEL.match(rest, pos)
            if not lm:
                raise ParseError(f"bad labels: {line!r}")
            raw = lm.group(2)
            labels[lm.group(1)] = re.sub(r'\\[\\"n]', lambda e: _UNESCAPE[e.group(0)], raw)
            pos = lm.end()
            if not lm.group(3):
                if not rest[pos:].lstrip().startswith("}"):
                    raise ParseError(f"unterminated labels: {line!r}")
        rest = rest[pos:]
    fields = rest.split()
    if not fields or len(fields) > 2:
        raise ParseError(f"bad value: {line!r}")
    try:
        value = _value(fields[0])
    except ValueError as e:
        raise ParseError(f"bad value: {line!r}") from e
    return Sample(name, tuple(sorted(labels.items())), value)


def parse_exposition(text: str) -> list[Sample]:
    """Every sample line of an exposition; comments and blank lines are skipped."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        out.append(parse_line(line))
    return out


def select(samples: list[Sample], name: str, **labels: str) -> list[Sample]:
    """Samples of one metric whose labels include all of `labels`."""
    return [s for s in samples
            if s.name == name and all(s.label(k) == v for k, v in labels.items())]


def one(samples: list[Sample], name: str, **labels: str) -> Sample | None:
    """The single matching sample, or None when there is none (or several)."""
    found = select(samples, name, **labels)
    return found[0] if len(found) == 1 else None


if __name__ == "__main__":
    t = ('# HELP x y\nssd_a{device="nvme0",model="Q \\"E\\" \\\\"} 1.5\n'
         'ssd_b 3\nssd_c{} +Inf\nssd_d{a="1",} 2 1700000000\n')
    for s in parse_exposition(t):
        print(s, s.labels)
