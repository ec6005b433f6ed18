"""What the pytest modules of tools/ share: the exporter binary the
operators' kit checks run (``--exporter``, default target/debug/ssd_exporter).

Each check module of tools/ops is a pytest module with its own entry point,
``python3 -m tools.ops.<check> [path/to/ssd_exporter]``, which runs pytest on
that module (``tools.ops.common.run_module``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import ROOT


def pytest_addoption(parser):
    parser.addoption("--exporter", default=str(ROOT / "target/debug/ssd_exporter"),
                     help="the ssd_exporter binary the operators' kit checks run")


@pytest.fixture(scope="session")
def exporter(request) -> Path:
    binary = Path(request.config.getoption("--exporter"))
    if not binary.is_file():
        pytest.fail(f"{binary} is not built (cargo build --bin ssd_exporter)")
    return binary
