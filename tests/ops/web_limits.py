#!/usr/bin/env python3
"""The connection limits against misbehaving clients, on 127.0.0.1 only,
every loop bounded in count and time:

1. slow clients: with --web.max-connections=8, 40 connections that each
   send half a request header and stall do not keep a scraper out, and the
   server closes all but 8 of them;
2. descriptor exhaustion: under a hard RLIMIT_NOFILE of 48 (prlimit), 80
   idle connections push accept() into EMFILE; the exporter keeps accepting
   (closing idle connections for room) and a scraper still gets an answer;
3. the exporter still runs and answers /healthz afterwards.

Usage: tests/ops/web_limits.py [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a failure.
"""

import select
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from prometheus_e2e import ROOT, free_port, wait_http  # noqa: E402

results = {"passed": 0, "failed": 0}


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    results["passed" if ok else "failed"] += 1


def scrape(port, path="/healthz", attempts=50):
    """GET on a fresh connection; retried a bounded number of times."""
    last = None
    for _ in range(attempts):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
                if data.startswith(b"HTTP/1.1 200"):
                    return True
                last = data[:40]
        except OSError as e:
            last = e
        time.sleep(0.1)
    print(f"  last answer: {last!r}")
    return False


def hold(port, n, partial):
    """Opens n connections (bounded), each sending `partial` and stalling."""
    held = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            if partial:
                s.sendall(partial)
            held.append(s)
        except OSError:
            pass
    return held


def count_closed(socks, want, seconds=10):
    """How many of `socks` the server has closed (EOF or reset), waiting up
    to `seconds` for `want` of them."""
    closed = set()
    deadline = time.monotonic() + seconds
    while len(closed) < want and time.monotonic() < deadline:
        open_ = [s for s in socks if s not in closed]
        readable, _, _ = select.select(open_, [], [], 0.2)
        for s in readable:
            try:
                if s.recv(4096) == b"":
                    closed.add(s)
            except OSError:
                closed.add(s)
    return len(closed)


def run(args, port):
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", "ssd_exporter", seconds=30)
    except SystemExit:
        proc.kill()
        raise
    return proc


def stop(proc):
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def main():
    binary = str(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "target/debug/ssd_exporter"))
    base = [binary, "--demo", "--probe.disable"]

    # 1. slow clients against a cap of 8
    port = free_port()
    proc = run(base + [f"--web.listen-address=127.0.0.1:{port}", "--web.max-connections=8"], port)
    held = hold(port, 40, b"GET /metrics HTTP/1.1\r\nHost: slow\r\n")
    check(scrape(port, "/metrics"), "40 stalled half-requests, cap 8: a scraper still gets /metrics")
    closed = count_closed(held, want=len(held) - 8)
    check(closed >= len(held) - 8,
          f"the cap holds: {closed} of {len(held)} stalled connections closed by the server")
    for s in held:
        s.close()
    check(scrape(port), "answers /healthz after the slow clients")
    stop(proc)

    # 2. EMFILE: the hard limit is the soft one, so the exporter cannot raise it
    port = free_port()
    proc = run(["prlimit", "--nofile=48:48", "--"] + base
               + [f"--web.listen-address=127.0.0.1:{port}", "--web.max-connections=1000"], port)
    held = hold(port, 80, b"")
    check(scrape(port), "80 idle connections past RLIMIT_NOFILE=48: a scraper still gets in")
    check(proc.poll() is None, "the exporter survived EMFILE")
    for s in held:
        s.close()
    check(scrape(port, "/metrics"), "serves /metrics after the descriptors came back")
    err = stop(proc)
    check("out of file descriptors" in err, "EMFILE was logged (warn)")

    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
