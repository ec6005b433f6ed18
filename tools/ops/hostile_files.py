"""Hostile files and a hollow option, against the real binary, every wait
bounded (RELIABILITY.md "Hostile clients and files"):

1. every file option — --config.file, --web.config.file, the web config's
   cert_file, key_file and client_ca_file, --path.drivedb — named as a FIFO
   (no writer: an open without O_NONBLOCK blocks for good), as /dev/zero
   (never ends) and as a regular file one byte over its cap (1 MiB; 1 MiB;
   16 MiB for drivedb.h): `--check-config` and a plain start both exit 2
   within 10 s with one line naming the file and what is wrong;
2. the live reloader: a served certificate renamed over by a FIFO, then by
   a symlink to /dev/zero, is refused (logged once each, naming the file),
   HTTPS keeps answering with the old certificate, and a new certificate
   after that is served — the watcher thread was never blocked;
3. client_allowed_sans with client_auth_type RequireAnyClientCert (which
   verifies nothing, so any self-signed certificate can claim the SAN) exits
   2 with one line saying why.

Usage: python3 -m tools.ops.hostile_files [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only,
plus openssl. Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a
failure.
"""

import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.ops.common import Checks, exporter_binary, free_port, make_certs, openssl

check = Checks()
MIB = 1 << 20


def run(binary, args, timeout=10):
    """(exit status, stderr) of the exporter with `args`, or (None, …) if it
    did not end within `timeout` (killed)."""
    try:
        p = subprocess.run([binary, "--demo", "--probe.disable", *args], capture_output=True,
                           text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return p.returncode, p.stderr.strip()
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, err.strip()


def hostile(tmp, name, over):
    """A FIFO, a /dev/zero symlink and a file of `over` bytes, named after
    `name`."""
    fifo, zero, big = tmp / f"{name}.fifo", tmp / f"{name}.zero", tmp / f"{name}.big"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    with open(big, "wb") as f:
        f.truncate(over)
    return [(fifo, "is a FIFO, not a regular file"),
            (zero, "is a character device, not a regular file"),
            (big, "is larger than")]


def web_with(tmp, field, path):
    """A web config whose `field` names `path` (the others good)."""
    files = {"cert_file": tmp / "server.crt", "key_file": tmp / "server.key",
             "client_ca_file": tmp / "ca.crt"}
    files[field] = path
    text = "tls_server_config:\n" + "".join(f"  {k}: {v}\n" for k, v in files.items())
    text += "  client_auth_type: RequireAndVerifyClientCert\n"
    out = tmp / f"web-{field}-{path.name}.yml"
    out.write_text(text)
    return out


def start_checks(binary, tmp):
    cases = []
    for path, what in hostile(tmp, "config", MIB + 1):
        cases.append(("--config.file", [f"--config.file={path}"], path, what))
    for path, what in hostile(tmp, "web", MIB + 1):
        cases.append(("--web.config.file", [f"--web.config.file={path}"], path, what))
    for field in ("cert_file", "key_file", "client_ca_file"):
        for path, what in hostile(tmp, field, MIB + 1):
            cases.append((field, [f"--web.config.file={web_with(tmp, field, path)}"], path, what))
    for path, what in hostile(tmp, "drivedb", 16 * MIB + 1):
        cases.append(("--path.drivedb", [f"--path.drivedb={path}"], path, what))
    for option, args, path, what in cases:
        port = free_port()
        for mode in (["--check-config"], [f"--web.listen-address=127.0.0.1:{port}"]):
            status, err = run(binary, args + mode)
            one_line = len(err.splitlines()) == 1
            ok = status == 2 and one_line and str(path) in err and what in err
            check(ok, f"{option} = {path.name} ({' '.join(mode)[:14]}): exit {status}, {err[:150]!r}")


def https_cert(ctx, port):
    """The DER certificate served on `port`, or None."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                return s.getpeercert(binary_form=True)
    except OSError:
        return None


def wait_for(f, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = f()
        if got:
            return got
        time.sleep(0.2)
    return f()


def rotation(binary, tmp):
    live = tmp / "live"
    live.mkdir()
    for f in ("server.crt", "server.key"):
        shutil.copy(tmp / f, live / f)
    (live / "web.yml").write_text("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n")
    port = free_port()
    log_path = tmp / "rotation.log"
    proc = subprocess.Popen([binary, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
                             f"--web.config.file={live / 'web.yml'}"], stdout=open(log_path, "w"),
                            stderr=subprocess.STDOUT)
    ctx = ssl.create_default_context(cafile=str(tmp / "ca.crt"))
    try:
        first = wait_for(lambda: https_cert(ctx, port), 30)
        cert = live / "server.crt"
        os.mkfifo(live / "fifo.tmp")
        os.rename(live / "fifo.tmp", cert)
        fifo_logged = wait_for(lambda: "is a FIFO" in log_path.read_text())
        check(fifo_logged, "reload: a certificate renamed over by a FIFO is refused and logged")
        check(https_cert(ctx, port) == first, "reload: HTTPS keeps serving the previous certificate")
        cert.unlink()
        cert.symlink_to("/dev/zero")
        zero_logged = wait_for(lambda: "is a character device" in log_path.read_text())
        check(zero_logged, "reload: a certificate symlinked to /dev/zero is refused and logged")
        # A new certificate and key for the same names, written beside and
        # renamed in (key first: the pair only works once both are there).
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-subj", "/CN=127.0.0.1", "-keyout", str(live / "new.key"), "-out", str(live / "new.csr"))
        openssl("x509", "-req", "-in", str(live / "new.csr"), "-CA", str(tmp / "ca.crt"),
                "-CAkey", str(tmp / "ca.key"), "-CAcreateserial", "-days", "2",
                "-extfile", str(tmp / "server.ext"), "-out", str(live / "new.crt"))
        os.rename(live / "new.key", live / "server.key")
        cert.unlink()
        os.rename(live / "new.crt", cert)
        rotated = wait_for(lambda: (c := https_cert(ctx, port)) is not None and c != first)
        check(bool(rotated), "reload: the watcher was not blocked: a new certificate is served after both")
        time.sleep(2)
        text = log_path.read_text()
        check(text.count("is a FIFO") == 1 and text.count("is a character device") == 1,
              "reload: each refusal logged once")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def allowed_sans(binary, tmp):
    web = tmp / "sans.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {tmp / 'server.crt'}\n  key_file: {tmp / 'server.key'}\n"
                   "  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: [prometheus.example]\n")
    status, err = run(binary, [f"--web.config.file={web}", "--check-config"])
    ok = (status == 2 and len(err.splitlines()) == 1 and "client_allowed_sans" in err
          and "RequireAnyClientCert" in err and "use client_auth_type RequireAndVerifyClientCert" in err)
    check(ok, f"client_allowed_sans with RequireAnyClientCert: exit {status}, {err!r}")


def main():
    binary = str(exporter_binary())
    if not Path(binary).is_file():
        check(False, f"{binary} is not built")
        return check.summary()
    if not shutil.which("openssl"):
        check(False, "openssl is needed (apt-get install openssl)")
        return check.summary()
    tmp = Path(tempfile.mkdtemp(prefix="ssd-files-"))
    try:
        make_certs(tmp)
        start_checks(binary, tmp)
        rotation(binary, tmp)
        allowed_sans(binary, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
