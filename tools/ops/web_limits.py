"""The connection limits against misbehaving clients, on 127.0.0.1 only,
every loop bounded in count and time:

1. slow clients: with --web.max-connections=8, 40 connections that each
   send half a request header and stall do not keep a scraper out, and the
   server closes all but 8 of them;
2. descriptor exhaustion: under a hard RLIMIT_NOFILE of 48 (prlimit), 80
   idle connections push accept() into EMFILE; the exporter keeps accepting
   (closing idle connections for room) and a scraper still gets an answer;
3. the exporter still runs and answers /healthz afterwards;
4. the issue's case: the exporter started under RLIMIT_NOFILE 1024 (soft and
   hard, as a systemd service gets by default), replaying every fixture and
   polling each second, with the default cap; 2,000 connections that each
   send a partial request header, then trickle one more byte while 200
   sequential scrapes run. Every scrape must be answered and no poll may fail
   for want of descriptors; the scrapes' p50/p99 are printed (BENCHMARKS.md).

Usage: python3 -m tools.ops.web_limits [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a failure.
"""

import select
import socket
import subprocess
import sys
import time

from tools import ROOT
from tools.ops.common import Checks, exporter_binary, free_port, wait_http

check = Checks()


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
    binary = str(exporter_binary())
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

    # 4. 2,000 slow clients against an exporter limited to 1,024 descriptors
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2200:
        check(False, f"the test client needs 2200 descriptors, its hard limit is {hard}")
    else:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2200), hard))
        port = free_port()
        fixtures = sorted(str(p) for p in ROOT.glob("tests/fixtures/*/*/*") if (p / "meta.toml").exists())
        replay = [f"--replay={f}" for f in fixtures]
        proc = run(["prlimit", "--nofile=1024:1024", "--", binary, "--probe.disable", "--poll.interval=1s",
                    f"--web.listen-address=127.0.0.1:{port}"] + replay, port)
        started = time.monotonic()
        held = hold(port, 2000, b"GET /metrics HTTP/1.1\r\nHost: slow\r\nX-Slow: ")
        opened = len(held)
        times, ok = [], 0
        for i in range(200):
            # Trickle one byte on a few stalled connections between scrapes.
            for s in held[i * 10:(i + 1) * 10]:
                try:
                    s.send(b"a")
                except OSError:
                    pass
            t0 = time.monotonic()
            if scrape(port, "/metrics", attempts=1):
                ok += 1
            times.append(time.monotonic() - t0)
        times.sort()
        p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99) - 1]
        print(f"  {opened} slow connections opened; 200 scrapes: p50 {p50 * 1000:.1f} ms, "
              f"p99 {p99 * 1000:.1f} ms, {time.monotonic() - started:.1f} s in all")
        check(ok == 200, f"RLIMIT_NOFILE 1024, {opened} slow clients: {ok} of 200 sequential scrapes answered")
        for s in held:
            s.close()
        err = stop(proc)
        starved = [l for l in err.splitlines() if "poll failed" in l and ("os error 24" in l or "Too many open files" in l)]
        check(not starved, f"no poll failed for want of descriptors ({len(starved)} did)")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
