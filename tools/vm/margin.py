"""How far each wall-clock check of the VM test stayed from its limit, printed every
run (the main boot, the stage waits and the timed watches print it)."""

from __future__ import annotations


def margin(name: str, ratio: float, detail: str) -> None:
    """Logs how far a wall-clock check stayed from its limit (limit / measured
    for a time, measured / required for a count), every run, so a shrinking
    margin shows before the check flakes under TCG; below 3x the limit is to
    be widened."""
    print(f"  MARGIN {name}: {ratio:.1f}x ({detail})", flush=True)
