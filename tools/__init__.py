"""ssd_exporter's Python tools: one package for every Python script the
repository ships (operations checks, VM tests, dashboards, alert lint,
benchmarks). Python 3.11 and the packages pyproject.toml lists
(tools/requirements.lock pins them; scripts/tools-venv.sh installs them).

The convention:

- Everything is run as a module from the repository root, never as a file
  path: ``python3 -m tools.ops.prometheus_e2e target/debug/ssd_exporter``,
  ``python3 -m tools.grafana validate dashboards/*.json``. From another
  directory, put the repository root on ``PYTHONPATH`` (tests/vm/run.sh
  does, so that relative paths in its arguments keep meaning what they
  meant in the caller's directory).
- The tools' own tests are pytest modules in ``tools/tests/`` (``python3 -m
  pytest`` from the root runs them).
- No import cycles: a lower module never names a higher one
  (tools/tests/test_imports.py fails on a cycle, naming its modules).
- Modules import each other through the package only
  (``from tools.ops.common import free_port``, ``from tools.vm import
  prom``); no module edits the import search path.
- Repository files are found from ``tools.ROOT``, not from the current
  directory.

Layout:

- ``tools.grafana``: the shipped dashboards as data (queries, validation);
  used by ``tools.dashboards`` and ``tools.ops.prometheus_e2e``; CLI
  ``validate``, ``queries``, ``promql``, ``selftest``.
- ``tools.dashboards``: ``python3 -m tools.dashboards.generate [--check]``
  writes dashboards/*.json from the mixin's jsonnet (mixin/dashboards/, the
  dashboards' one source) and the panel table of dashboards/README.md.
- ``tools.ops``: checks of the operators' kit against a built exporter
  (``prometheus_e2e``, ``vm_pipeline``, ``prometheus_tls``, ``web_limits``,
  ``web_hostile``, ``hostile_files``, ``hung_opens``, ``bad_replay``,
  ``healthz_probe``), each a pytest module run as ``python3 -m
  tools.ops.<check> [path/to/ssd_exporter] [pytest options]`` (the binary
  reaches the tests as tools/conftest.py's ``exporter`` fixture);
  ``tools.ops.common`` holds their shared helpers (the entry point, free
  ports, HTTP waits, starting Prometheus and stopping what was started,
  test certificates).
- ``tools.vm``: the host side of the real-kernel QEMU tests
  (``python3 -m tools.vm.run``, a pytest run: a test per boot, a subtest per
  check; ``python3 -m tools.vm.peer``; tests/vm/run.sh is the usual entry),
  with the checks, the look-ups over prometheus_client's parser and the work
  folder (``tools.vm.work``) they share; ``tools.vm.machine`` is the QEMU
  machine and stage protocol every boot uses, ``tools.vm.boot`` what a boot
  beside the main one is and how it runs, ``tools.vm.scenarios`` the list of
  those boots (``tools.vm.sas_hba``: the SAS HBA, ...).
  The guest side (tests/vm/guest) is shell: the initramfs has no Python.
- ``tools.alerts_lint``: the rule checks promtool cannot make
  (alerts/check.sh).
- ``tools.mixin``: the monitoring mixin (mixin/): ``python3 -m
  tools.mixin.render [--check]`` writes alerts/*.rules.yml from it,
  ``python3 -m tools.mixin.checks`` checks it.
- ``tools.syscall_latency``, ``tools.bench_tls``, ``tools.soak``: the
  benchmark referee (scripts/bench-probe.sh), the TLS scrape benchmark and
  the soak run (BENCHMARKS.md, RELIABILITY.md).
"""

from pathlib import Path

# The repository root: every module finds the repository's files from here.
ROOT = Path(__file__).resolve().parent.parent
