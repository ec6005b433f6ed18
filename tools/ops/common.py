"""What the ops checks (and tools.bench_tls) share: their entry point (pytest
on the check's module, tools/conftest.py's --exporter), a free loopback
port, a bounded wait for an HTTP endpoint, starting Debian's Prometheus and
stopping what was started, and a throwaway CA and server certificate made
with openssl."""

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tools import ROOT


def run_module(module_file: str, *pytest_args: str) -> int:
    """The entry point of a check module: pytest on that module, with the
    binary under test from the command line (its first argument, else
    target/debug/ssd_exporter), then `pytest_args`, or else the command
    line's further arguments, for pytest."""
    import pytest
    # -v: a line per check; -s: the figures and margins the checks print.
    return pytest.main([module_file, f"--exporter={exporter_binary()}", "-v", "-s",
                        *(pytest_args or sys.argv[2:])])


def exporter_binary():
    """The binary a check runs: its first argument, else
    target/debug/ssd_exporter."""
    return Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "target/debug/ssd_exporter")


def prometheus_binary():
    prom_bin = shutil.which("prometheus")
    if not prom_bin:
        raise SystemExit("prometheus is not installed (apt-get install prometheus)")
    return prom_bin


def start_prometheus(prom_bin, tmp, port, extra=()):
    """Prometheus with tmp/prometheus.yml on 127.0.0.1:port, its data and
    its log (prometheus.log) in tmp, and the `extra` flags; returns the
    process and its URL."""
    proc = subprocess.Popen(
        [prom_bin, f"--config.file={tmp / 'prometheus.yml'}",
         f"--storage.tsdb.path={tmp / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}", *extra],
        stdout=open(tmp / "prometheus.log", "w"), stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}"


def stop_all(procs, timeout=10):
    """SIGTERM to every process, then SIGKILL to any not gone in timeout s."""
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_http(url, what, seconds=30):
    deadline = time.monotonic() + seconds
    while True:
        try:
            return get(url, timeout=2)
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"{what} did not answer at {url}")
            time.sleep(0.2)


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_certs(tmp):
    """ca.crt/ca.key and server.crt/server.key (for 127.0.0.1 and localhost)
    in the directory tmp."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-days", "2", "-subj", "/CN=ssd_exporter test CA",
            "-keyout", str(tmp / "ca.key"), "-out", str(tmp / "ca.crt"))
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-subj", "/CN=127.0.0.1", "-keyout", str(tmp / "server.key"),
            "-out", str(tmp / "server.csr"))
    (tmp / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", str(tmp / "server.csr"), "-CA", str(tmp / "ca.crt"),
            "-CAkey", str(tmp / "ca.key"), "-CAcreateserial", "-days", "2",
            "-extfile", str(tmp / "server.ext"), "-out", str(tmp / "server.crt"))
