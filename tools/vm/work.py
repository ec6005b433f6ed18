"""The work folder of a VM run, shared by ``tools.vm.run`` and
``tools.vm.peer``."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path


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
