"""The work folder of a VM run, shared by ``tools.vm.run`` and
``tools.vm.peer``, and reading what a guest left in it: a file the guest
did not write (or wrote in part) reads as empty, and the check that needs
it fails, naming it."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from tools.vm.prom import Sample, parse_exposition


def work_folder(keep: Path | None, prefix: str) -> tuple[Path, Path]:
    """The run's work folder and the empty ``share`` folder in it (the
    guest's 9p share): ``keep`` emptied and made again when given (--keep),
    else a new temporary folder named with ``prefix``."""
    if keep:
        work = keep
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    else:
        work = Path(tempfile.mkdtemp(prefix=prefix))
    share = work / "share"
    share.mkdir()
    return work, share


def read_text(path: Path) -> str:
    """The file's text, or "" when it is missing."""
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def read_json(path: Path) -> dict:
    """The file's JSON, or {} when it is missing or not JSON."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def read_scrape(path: Path) -> list[Sample]:
    """The exposition the file holds, or [] when it is missing or bad."""
    try:
        return parse_exposition(path.read_text())
    except (OSError, ValueError):
        return []
