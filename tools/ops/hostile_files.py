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

Usage: python3 -m tools.ops.hostile_files [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter; needs openssl): a pytest module, one
test per check.
"""

import os
import shutil
import socket
import ssl
import subprocess
import sys
import time

import pytest

from tools.ops.common import free_port, make_certs, openssl, run_module

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


# Each file option and the size one byte over its cap.
OPTIONS = {"--config.file": MIB + 1, "--web.config.file": MIB + 1, "cert_file": MIB + 1,
           "key_file": MIB + 1, "client_ca_file": MIB + 1, "--path.drivedb": 16 * MIB + 1}
# What the exporter must say of each kind of hostile file.
KINDS = {"fifo": "is a FIFO, not a regular file",
         "zero": "is a character device, not a regular file",
         "big": "is larger than"}
MODES = {"check-config": "--check-config", "start": "--web.listen-address=127.0.0.1:{port}"}


def hostile(tmp, name, kind, over):
    """A FIFO, a /dev/zero symlink or a file of `over` bytes, named after `name`."""
    path = tmp / f"{name}.{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        with open(path, "wb") as f:
            f.truncate(over)
    return path


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    """A folder with the test certificates."""
    if not shutil.which("openssl"):
        pytest.fail("openssl is needed (apt-get install openssl)")
    folder = tmp_path_factory.mktemp("files")
    make_certs(folder)
    return folder


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


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("option", OPTIONS)
def test_hostile_file_refused(exporter, tmp, option, kind, mode):
    """`--check-config` and a plain start exit 2 within 10 s with one line naming
    the file and what is wrong."""
    name = option.lstrip("-").replace(".", "_")
    path = tmp / f"{name}.{kind}"
    if not path.exists() and not path.is_symlink():
        hostile(tmp, name, kind, OPTIONS[option])
    if option.startswith("--"):
        args = [f"{option}={path}"]
    else:
        args = [f"--web.config.file={web_with(tmp, option, path)}"]
    status, err = run(str(exporter), args + [MODES[mode].format(port=free_port())])
    assert status == 2 and len(err.splitlines()) == 1 and str(path) in err \
        and KINDS[kind] in err, f"exit {status}, {err[:150]!r}"


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


@pytest.fixture(scope="module")
def rotation(exporter, tmp):
    """A served certificate renamed over by a FIFO, then symlinked to /dev/zero,
    then replaced by a new one: what the live reloader did at each step."""
    live = tmp / "live"
    live.mkdir()
    for f in ("server.crt", "server.key"):
        shutil.copy(tmp / f, live / f)
    (live / "web.yml").write_text("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n")
    port = free_port()
    log_path = tmp / "rotation.log"
    proc = subprocess.Popen([exporter, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
                             f"--web.config.file={live / 'web.yml'}"], stdout=open(log_path, "w"),
                            stderr=subprocess.STDOUT)
    ctx = ssl.create_default_context(cafile=str(tmp / "ca.crt"))
    seen = {}
    try:
        first = wait_for(lambda: https_cert(ctx, port), 30)
        cert = live / "server.crt"
        os.mkfifo(live / "fifo.tmp")
        os.rename(live / "fifo.tmp", cert)
        seen["fifo_logged"] = wait_for(lambda: "is a FIFO" in log_path.read_text())
        seen["kept"] = https_cert(ctx, port) == first
        cert.unlink()
        cert.symlink_to("/dev/zero")
        seen["zero_logged"] = wait_for(lambda: "is a character device" in log_path.read_text())
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
        seen["rotated"] = bool(wait_for(lambda: (c := https_cert(ctx, port)) is not None and c != first))
        time.sleep(2)
        seen["log"] = log_path.read_text()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return seen


def test_reload_refuses_a_certificate_renamed_over_by_a_fifo(rotation):
    assert rotation["fifo_logged"], "not refused and logged"


def test_reload_keeps_serving_the_previous_certificate(rotation):
    assert rotation["kept"]


def test_reload_refuses_a_certificate_symlinked_to_dev_zero(rotation):
    assert rotation["zero_logged"], "not refused and logged"


def test_reload_watcher_not_blocked_new_certificate_served(rotation):
    assert rotation["rotated"], "the new certificate is not served after both"


def test_reload_logs_each_refusal_once(rotation):
    text = rotation["log"]
    assert text.count("is a FIFO") == 1 and text.count("is a character device") == 1


def test_client_allowed_sans_with_require_any_client_cert_exits_2(exporter, tmp):
    web = tmp / "sans.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {tmp / 'server.crt'}\n  key_file: {tmp / 'server.key'}\n"
                   "  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: [prometheus.example]\n")
    status, err = run(str(exporter), [f"--web.config.file={web}", "--check-config"])
    assert (status == 2 and len(err.splitlines()) == 1 and "client_allowed_sans" in err
            and "RequireAnyClientCert" in err
            and "use client_auth_type RequireAndVerifyClientCert" in err), f"exit {status}, {err!r}"


if __name__ == "__main__":
    sys.exit(run_module(__file__))
