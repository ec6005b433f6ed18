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
passes the DaemonSet's). Python 3.11 standard library only. Prints PASS/FAIL
lines and "N passed, N failed"; exits 1 on a failure.
"""

import base64
import json
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tools import ROOT
from tools.ops.common import Checks, exporter_binary, free_port, make_certs, stop_all

check = Checks()
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


def main():
    binary = exporter_binary()
    probes = json.loads(sys.argv[2])
    example = (ROOT / "examples/web-config.yml").read_text()
    if not re.search(r"^basic_auth_excluded_paths:.*/healthz", example, re.M):
        check(False, "examples/web-config.yml excludes /healthz from basic auth")
    tmp = Path(tempfile.mkdtemp(prefix="ssd-healthz-"))
    procs = []
    try:
        (tmp / "sysfs").mkdir()
        make_certs(tmp)
        # The example names its certificate and key relative to its folder.
        shutil.copy(tmp / "server.crt", tmp / "ssd_exporter.crt")
        shutil.copy(tmp / "server.key", tmp / "ssd_exporter.key")
        (tmp / "web-config.yml").write_text(example)
        without = "".join(line for line in example.splitlines(keepends=True)
                          if not line.startswith("basic_auth_excluded_paths:"))
        (tmp / "without.yml").write_text(without)

        proc, url = serve(binary, tmp / "web-config.yml", tmp, "example")
        procs.append(proc)
        for p in probes:
            code = status(url + p["path"], p["timeout"])
            check(200 <= code < 400,
                  f"{p['name']} (HTTPS GET {p['path']}, no credentials) with the example "
                  f"web config: {code}")
        code = status(url + "/metrics", 10)
        check(code == 401, f"/metrics without credentials is refused: {code}")
        code = status(url + "/metrics", 10, auth=f"prometheus:{PASSWORD}")
        check(code == 200, f"/metrics with the example's credentials: {code}")
        stop_all(procs)
        procs = []

        proc, url = serve(binary, tmp / "without.yml", tmp, "without")
        procs.append(proc)
        for p in probes:
            code = status(url + p["path"], p["timeout"])
            check(code == 401,
                  f"without basic_auth_excluded_paths {p['name']} fails (the pod would be "
                  f"restarted): {code}")
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
