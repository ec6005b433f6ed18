"""What the ops checks (and tools.bench_tls) share: a free loopback port, a
bounded wait for an HTTP endpoint, and a throwaway CA and server certificate
made with openssl."""

import socket
import subprocess
import time
import urllib.request


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
