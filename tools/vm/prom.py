"""The exporter's text exposition as samples, read with prometheus_client's
parser, and the look-ups the checks make on them.

A sample is prometheus_client's ``Sample``: ``name`` as written (a
histogram's ``_bucket``, ``_sum`` and ``_count`` series keep their suffix),
``labels`` a dict, ``value`` a float.
"""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

__all__ = ["Sample", "one", "parse_exposition", "select", "series_key", "show"]


def parse_exposition(text: str) -> list[Sample]:
    """Every sample of a text exposition (format 0.0.4), in order; raises
    ValueError on a line the parser cannot read."""
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def select(samples: list[Sample], name: str, **labels: str) -> list[Sample]:
    """Samples of one metric whose labels include all of `labels`."""
    return [s for s in samples
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]


def one(samples: list[Sample], name: str, **labels: str) -> Sample | None:
    """The single matching sample, or None when there is none (or several)."""
    found = select(samples, name, **labels)
    return found[0] if len(found) == 1 else None


def series_key(s: Sample) -> tuple:
    """The series a sample belongs to, hashable: (name, sorted label pairs)."""
    return s.name, tuple(sorted(s.labels.items()))


def show(s: Sample | None) -> str:
    """A sample as the exposition writes it: ``name{a="b"} 1`` (``none``
    for no sample)."""
    if s is None:
        return "none"
    inner = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
    return f"{s.name}{{{inner}}} {s.value:g}"
