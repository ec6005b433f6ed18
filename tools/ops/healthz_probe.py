"""The DaemonSet's probes against an exporter running the example web config
(examples/web-config.yml: TLS and basic auth), set up as deploy/README.md's
"TLS and basic auth on Kubernetes" steps say (the probes switched to
``scheme: HTTPS``). The kubelet sends no credentials and does not verify the
certificate; it counts a status from 200 to 399 as success. So:

- each probe (path and timeout from the DaemonSet, given as JSON) succeeds;
- ``/metrics`` without credentials is still refused (401), with them served;
- the same web config without ``basic_auth_excluded_paths`` makes each probe
  fail with 401 — the restart loop the exclusion prevents.

Usage: python3 -m tools.ops.healthz_probe path/to/ssd_exporter 'PROBES'
where PROBES is a JSON list of {"name", "path", "timeout"} (tests/ops/k8s.sh
passes the DaemonSet's). A pytest module, one test per check; exits 1 on a
failure.
"""

import base64
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tools import ROOT
from tools.ops.common import free_port, make_certs, stop_all
# The example's hash is of this password (its comment says so).
PASSWORD = "change-me"


def status(url, timeout, auth=None):
    """The HTTP status of a GET, as the kubelet makes it: no certificate
    verification, no redirects followed beyond what urllib does."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    req = urllib.request.Request(url)
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def serve(binary, web_config, tmp, name):
    """The exporter with the DaemonSet's config file, no drives and
    `web_config`, on a free loopback port; returns (process, base URL)."""
    port = free_port()
    log = open(tmp / f"{name}.log", "w")
    proc = subprocess.Popen(
        [binary, f"--config.file={ROOT / 'deploy/kubernetes/config.yml'}",
         f"--path.sysfs={tmp / 'sysfs'}", "--probe.disable",
         f"--web.listen-address=127.0.0.1:{port}", f"--web.config.file={web_config}"],
        stdout=log, stderr=log)
    url = f"https://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            status(url + "/healthz", 2)
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_all([proc])
                raise SystemExit(f"exporter did not start: {(tmp / f'{name}.log').read_text()}")
            time.sleep(0.2)


EXAMPLE = (ROOT / "examples/web-config.yml").read_text()
# The DaemonSet's probes, as the entry point was given them.
PROBES = json.loads(os.environ.get("SSD_HEALTHZ_PROBES", "[]"))


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    """The example web config and its certificate, and one without the exclusion."""
    folder = tmp_path_factory.mktemp("healthz")
    (folder / "sysfs").mkdir()
    make_certs(folder)
    # The example names its certificate and key relative to its folder.
    shutil.copy(folder / "server.crt", folder / "ssd_exporter.crt")
    shutil.copy(folder / "server.key", folder / "ssd_exporter.key")
    (folder / "web-config.yml").write_text(EXAMPLE)
    without = "".join(line for line in EXAMPLE.splitlines(keepends=True)
                      if not line.startswith("basic_auth_excluded_paths:"))
    (folder / "without.yml").write_text(without)
    return folder


@pytest.fixture(scope="module")
def example(exporter, tmp):
    """The base URL of the exporter run with the example web config."""
    proc, url = serve(exporter, tmp / "web-config.yml", tmp, "example")
    yield url
    stop_all([proc])


@pytest.fixture(scope="module")
def without(exporter, tmp, example):
    """The same without basic_auth_excluded_paths (after the example's server)."""
    proc, url = serve(exporter, tmp / "without.yml", tmp, "without")
    yield url
    stop_all([proc])


def test_example_excludes_healthz_from_basic_auth():
    assert re.search(r"^basic_auth_excluded_paths:.*/healthz", EXAMPLE, re.M)


def test_probes_given():
    assert PROBES, "no probes (the entry point's second argument, a JSON list)"


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p["name"])
def test_probe_succeeds_with_the_example(example, probe):
    """HTTPS GET of the probe's path, no credentials, with the example web config."""
    code = status(example + probe["path"], probe["timeout"])
    assert 200 <= code < 400, code


def test_metrics_without_credentials_refused(example):
    assert status(example + "/metrics", 10) == 401


def test_metrics_with_the_examples_credentials(example):
    assert status(example + "/metrics", 10, auth=f"prometheus:{PASSWORD}") == 200


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p["name"])
def test_probe_fails_without_the_exclusion(without, probe):
    """Without basic_auth_excluded_paths the probe gets 401: the pod would be restarted."""
    assert status(without + probe["path"], probe["timeout"]) == 401


def main():
    """python3 -m tools.ops.healthz_probe BINARY PROBES [pytest options]"""
    os.environ["SSD_HEALTHZ_PROBES"] = sys.argv[2] if len(sys.argv) > 2 else "[]"
    return pytest.main([__file__, f"--exporter={sys.argv[1]}", "-v", *sys.argv[3:]])


if __name__ == "__main__":
    sys.exit(main())
