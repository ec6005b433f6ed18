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

Usage: python3 -m tools.ops.web_limits [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter): a pytest module, one test per check.
"""

import resource
import select
import socket
import subprocess
import sys
import time

import pytest

from tools import ROOT
from tools.ops.common import free_port, run_module, wait_http


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


@pytest.fixture(scope="module")
def slow_clients(exporter):
    """1. 40 stalled half-requests against a cap of 8."""
    port = free_port()
    proc = run([str(exporter), "--demo", "--probe.disable",
                f"--web.listen-address=127.0.0.1:{port}", "--web.max-connections=8"], port)
    try:
        held = hold(port, 40, b"GET /metrics HTTP/1.1\r\nHost: slow\r\n")
        seen = {"scraped": scrape(port, "/metrics"), "held": len(held),
                "closed": count_closed(held, want=len(held) - 8)}
        for s in held:
            s.close()
        seen["healthz_after"] = scrape(port)
    finally:
        stop(proc)
    return seen


def test_slow_clients_do_not_keep_a_scraper_out(slow_clients):
    """40 stalled half-requests, cap 8: a scraper still gets /metrics."""
    assert slow_clients["scraped"]


def test_slow_clients_cap_holds(slow_clients):
    closed, held = slow_clients["closed"], slow_clients["held"]
    assert closed >= held - 8, f"{closed} of {held} stalled connections closed by the server"


def test_slow_clients_healthz_after(slow_clients):
    assert slow_clients["healthz_after"]


@pytest.fixture(scope="module")
def emfile(exporter):
    """2. EMFILE: the hard limit is the soft one, so the exporter cannot raise it."""
    port = free_port()
    proc = run(["prlimit", "--nofile=48:48", "--", str(exporter), "--demo", "--probe.disable",
                f"--web.listen-address=127.0.0.1:{port}", "--web.max-connections=1000"], port)
    try:
        held = hold(port, 80, b"")
        seen = {"scraped": scrape(port), "alive": proc.poll() is None}
        for s in held:
            s.close()
        seen["metrics_after"] = scrape(port, "/metrics")
    finally:
        seen["stderr"] = stop(proc)
    return seen


def test_emfile_a_scraper_still_gets_in(emfile):
    """80 idle connections past RLIMIT_NOFILE=48: a scraper still gets in."""
    assert emfile["scraped"]


def test_emfile_survived(emfile):
    assert emfile["alive"]


def test_emfile_serves_metrics_after_the_descriptors_came_back(emfile):
    assert emfile["metrics_after"]


def test_emfile_logged(emfile):
    assert "out of file descriptors" in emfile["stderr"]


@pytest.fixture(scope="module")
def many_slow_clients(exporter):
    """4. 2,000 slow clients against an exporter limited to 1,024 descriptors."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2200:
        pytest.fail(f"the test client needs 2200 descriptors, its hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2200), hard))
    port = free_port()
    fixtures = sorted(str(p) for p in ROOT.glob("tests/fixtures/*/*/*") if (p / "meta.toml").exists())
    replay = [f"--replay={f}" for f in fixtures]
    proc = run(["prlimit", "--nofile=1024:1024", "--", str(exporter), "--probe.disable",
                "--poll.interval=1s", f"--web.listen-address=127.0.0.1:{port}"] + replay, port)
    try:
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
        for s in held:
            s.close()
    finally:
        err = stop(proc)
    return {"opened": opened, "ok": ok, "stderr": err}


def test_many_slow_clients_every_scrape_answered(many_slow_clients):
    """RLIMIT_NOFILE 1024, 2,000 slow clients: all 200 sequential scrapes answered."""
    assert many_slow_clients["ok"] == 200, \
        f"{many_slow_clients['opened']} slow clients: {many_slow_clients['ok']} of 200 answered"


def test_many_slow_clients_no_poll_starved_of_descriptors(many_slow_clients):
    starved = [line for line in many_slow_clients["stderr"].splitlines() if "poll failed" in line
               and ("os error 24" in line or "Too many open files" in line)]
    assert not starved, f"{len(starved)} polls failed for want of descriptors"


if __name__ == "__main__":
    sys.exit(run_module(__file__))
