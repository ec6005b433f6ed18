"""Hostile clients against the exporter over TLS and basic auth, on
127.0.0.1 only, every loop bounded in count and time (docs/security.md,
RELIABILITY.md "Hostile clients and files"):

1. HTTP/2 hold: 250 TLS connections x 16 streams asking /metrics, each
   client's stream flow-control window zero (SETTINGS_INITIAL_WINDOW_SIZE 0,
   so no body byte can be sent) and every PING answered, held 10 s. The
   exporter's RSS (from /proc) may grow less than 32 MiB; at most
   web.max_requests (40) of the 4,000 streams get a 200, the rest 503; a
   scraper still gets /metrics during the hold; RSS after the clients went is
   printed and must come back within 8 MiB of where it started.
2. bcrypt flood: 200 keep-alive connections sending wrong passwords (cost-10
   hash) as fast as they are answered, against --web.max-connections=100, so
   half of them wait at the cap; then the first scrape with the right,
   not yet verified password on a fresh connection. It must succeed within
   Prometheus' default 10 s scrape timeout (it took 19.2 s before the
   bounded queue); the time is printed against the 2 s target.
3. Handshake flood: with --web.max-connections=32, about 760 new connections
   a second, half silent and half stalling after a TLS ClientHello, while
   four curl processes make 1,000 HTTPS requests, each on a fresh connection.
   The share that succeeds is printed as a FIGURE against the 99.9 % target
   (15 of 830 failed before: closed mid-handshake); it depends on how fast the
   machine answers handshakes, so the checks are only that more than half
   succeed and that the exporter answers after the flood.

Usage: python3 -m tools.ops.web_hostile [path/to/ssd_exporter [hold|bcrypt|flood]]
(default target/debug/ssd_exporter, every part; needs openssl and curl): a
pytest module, one test per check; it prints the figures.
"""

import base64
import collections
import multiprocessing
import random
import resource
import selectors
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tools import ROOT
from tools.ops.common import free_port, make_certs, run_module
PASSWORD = "change-me"  # the hash in examples/web-config.yml


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no VmRSS for {pid}")


def start(args, log):
    """The exporter with `args`; waits (bounded) for its port to accept."""
    proc = subprocess.Popen(args, stdout=log, stderr=log)
    port = int(next(a for a in args if a.startswith("--web.listen-address=")).rsplit(":", 1)[1])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the exporter did not start listening")


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def tls_context(tmp, alpn=None):
    ctx = ssl.create_default_context(cafile=str(tmp / "ca.crt"))
    if alpn:
        ctx.set_alpn_protocols(alpn)
    return ctx


def https_get(ctx, port, path="/metrics", auth=None, timeout=10):
    """(status, seconds) of one GET on a fresh TLS connection."""
    req = urllib.request.Request(f"https://127.0.0.1:{port}{path}")
    if auth:
        req.add_header("Authorization", auth)
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=timeout) as r:
            r.read()
            return r.status, time.monotonic() - t0
    except urllib.error.HTTPError as e:
        return e.code, time.monotonic() - t0
    except OSError:
        return None, time.monotonic() - t0


# ---- a minimal HTTP/2 client: frames, no HPACK decoder (a response whose
# header block starts 0x88 is ":status 200" from the static table; every
# other status needs more than that byte)

def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(index, value):
    """A header field "without indexing", name from the static table."""
    v = value.encode()
    return bytes([index]) + bytes([len(v)]) + v


REQUEST_BLOCK = (b"\x82\x87" + literal(4, "/metrics") + literal(1, "127.0.0.1"))
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, struct.pack(">HI", 4, 0))


class Holder:
    """One h2 connection: its streams asked for /metrics, windows zero."""

    def __init__(self, ctx, port, streams):
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock = ctx.wrap_socket(raw, server_hostname="localhost")
        assert self.sock.selected_alpn_protocol() == "h2", self.sock.selected_alpn_protocol()
        out = PREFACE
        for i in range(streams):
            out += frame(1, 0x5, 1 + 2 * i, REQUEST_BLOCK)  # END_STREAM | END_HEADERS
        self.sock.sendall(out)
        self.sock.setblocking(False)
        self.buf = b""
        self.ok = self.other = 0
        self.closed = False

    def pump(self):
        """Reads what arrived, answers SETTINGS and PING, counts responses."""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    self.closed = True
                    return
                self.buf += data
        except (ssl.SSLWantReadError, BlockingIOError):
            pass
        except OSError:
            self.closed = True
            return
        reply = b""
        while len(self.buf) >= 9:
            length = int.from_bytes(self.buf[:3], "big")
            if len(self.buf) < 9 + length:
                break
            kind, flags = self.buf[3], self.buf[4]
            payload = self.buf[9:9 + length]
            self.buf = self.buf[9 + length:]
            if kind == 4 and not flags & 1:
                reply += frame(4, 1, 0)
            elif kind == 6 and not flags & 1:
                reply += frame(6, 1, 0, payload)
            elif kind == 1:
                if payload[:1] == b"\x88":
                    self.ok += 1
                else:
                    self.other += 1
        if reply:
            try:
                self.sock.setblocking(True)
                self.sock.sendall(reply)
                self.sock.setblocking(False)
            except OSError:
                self.closed = True


def h2_hold(binary, tmp):
    port = free_port()
    log = open(tmp / "hold.log", "w")
    proc, port = start([binary, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
                        f"--web.config.file={tmp / 'web.yml'}"], log)
    ctx = tls_context(tmp)
    try:
        for _ in range(5):
            https_get(ctx, port)
        time.sleep(1)
        base = rss_mib(proc.pid)
        h2 = tls_context(tmp, ["h2"])
        holders = [Holder(h2, port, 16) for _ in range(250)]
        sel = selectors.DefaultSelector()
        for h in holders:
            sel.register(h.sock, selectors.EVENT_READ, h)
        peak, scraped, started = base, None, time.monotonic()
        while time.monotonic() - started < 10:
            for key, _ in sel.select(timeout=0.2):
                key.data.pump()
            peak = max(peak, rss_mib(proc.pid))
            if scraped is None and time.monotonic() - started > 3:
                scraped = https_get(ctx, port)
        ok = sum(h.ok for h in holders)
        other = sum(h.other for h in holders)
        closed = sum(h.closed for h in holders)
        live_ok = sum(h.ok for h in holders if not h.closed)
        for h in holders:
            sel.unregister(h.sock)
            h.sock.close()
        time.sleep(3)
        after = rss_mib(proc.pid)
    finally:
        stop(proc)
    print(f"  RSS {base:.1f} MiB before, peak {peak:.1f} MiB (+{peak - base:.1f}) holding 250 x 16 "
          f"zero-window streams, {after:.1f} MiB 3 s after they went; {ok} answered 200 ({live_ok} on "
          f"connections still open), {other} otherwise, {closed} connections closed by the server for "
          f"room at the request cap; scraper during the hold: {scraped}")
    return {"base": base, "peak": peak, "after": after, "live_ok": live_ok, "scraped": scraped}


@pytest.fixture(scope="module")
def hold(exporter, tmp):
    return h2_hold(str(exporter), tmp)


def test_hold_rss_grows_less_than_32_mib(hold):
    assert hold["peak"] - hold["base"] < 32, f"RSS grew {hold['peak'] - hold['base']:.1f} MiB"


def test_hold_at_most_40_streams_hold_a_200(hold):
    """The rest 503 or closed (cap 40)."""
    assert 0 < hold["live_ok"] <= 40, f"{hold['live_ok']} streams hold a 200 at the end"


def test_hold_a_scraper_gets_metrics(hold):
    assert hold["scraped"] is not None and hold["scraped"][0] == 200, hold["scraped"]


def test_hold_rss_back_after_the_clients_went(hold):
    assert hold["after"] - hold["base"] < 8, f"RSS {hold['after']:.1f} MiB (< base + 8)"


def flood_of_wrong_passwords(port, connections, stop_flag, answers):
    """`connections` threads, each a keep-alive connection sending a random
    wrong password as soon as the last one was answered (reconnecting,
    after 50 ms, when closed)."""

    def attacker():
        sock = None
        while not stop_flag.is_set():
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
                token = base64.b64encode(f"prometheus:{random.random()}".encode()).decode()
                sock.sendall(f"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic {token}\r\n\r\n".encode())
                head = sock.recv(65536)
                if not head:
                    raise OSError("closed")
                answers[head[9:12].decode(errors="replace")] += 1
            except OSError:
                answers["closed"] += 1
                if sock:
                    sock.close()
                sock = None
                time.sleep(0.05)
        if sock:
            sock.close()

    threads = [threading.Thread(target=attacker, daemon=True) for _ in range(connections)]
    for t in threads:
        t.start()
    return threads


def bcrypt_flood(binary, tmp, cap, verify_first, scrapes=2):
    """200 wrong-password connections against --web.max-connections=`cap`;
    returns (the first right scrape's (status, seconds), the later ones',
    the attackers' answers), `scrapes` in all, each on a new connection.
    With `verify_first` the right password is verified once before the
    flood."""
    example = (ROOT / "examples/web-config.yml").read_text()
    hashed = next(l.split(": ", 1)[1] for l in example.splitlines() if l.startswith("  prometheus: "))
    (tmp / "auth.yml").write_text(f"basic_auth_users:\n  prometheus: {hashed}\n")
    port = free_port()
    log = open(tmp / "bcrypt.log", "w")
    proc, port = start([binary, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
                        f"--web.max-connections={cap}", f"--web.config.file={tmp / 'auth.yml'}"], log)
    right = "Basic " + base64.b64encode(f"prometheus:{PASSWORD}".encode()).decode()
    stop_flag = threading.Event()
    answers = collections.Counter()
    try:
        if verify_first:
            http_get(port, right, timeout=30)
        threads = flood_of_wrong_passwords(port, 200, stop_flag, answers)
        time.sleep(5)
        first = http_get(port, right, timeout=30)
        later = [http_get(port, right, timeout=30) for _ in range(scrapes - 1)]
        stop_flag.set()
        for t in threads:
            t.join(timeout=20)
    finally:
        stop_flag.set()
        stop(proc)
    return first, later, dict(answers)


def bcrypt_floods(binary, tmp):
    first, (cached,), answers = bcrypt_flood(binary, tmp, 256, verify_first=False)
    print(f"  200 wrong-password connections: answered {answers}; the first right scrape {first}, "
          f"the next (verified) {cached}")
    seen = {"first": first, "cached": cached}
    # Each scrape on a new connection, which is closed for room before it
    # sends its request unless the failed waiters go first (1 in 12 did).
    first, later, answers = bcrypt_flood(binary, tmp, 100, verify_first=True, scrapes=30)
    got = [first] + later
    ok = sum(1 for status, _ in got if status == 200)
    others = [g for g in got if g[0] != 200]
    print(f"  the same against --web.max-connections=100 (half the flood waits at the cap): answered "
          f"{answers}; a scraper verified before the flood, 30 scrapes on new connections: {ok} answered "
          f"200, slowest {max(t for _, t in got):.3f} s, otherwise {others}")
    seen.update(capped_ok=ok, capped=len(got))
    return seen


@pytest.fixture(scope="module")
def bcrypt(exporter, tmp):
    return bcrypt_floods(str(exporter), tmp)


def test_bcrypt_first_unverified_scrape_within_10_s(bcrypt):
    """Prometheus' default scrape timeout; the target is 2 s."""
    status, seconds = bcrypt["first"]
    assert status == 200 and seconds < 10, bcrypt["first"]


def test_bcrypt_verified_scraper_stays_fast(bcrypt):
    assert bcrypt["cached"][0] == 200, bcrypt["cached"]


def test_bcrypt_past_the_cap_a_verified_scraper_gets_in(bcrypt):
    """Waiters that failed before are closed first."""
    assert bcrypt["capped_ok"] == bcrypt["capped"], f"{bcrypt['capped_ok']} of {bcrypt['capped']}"


def http_get(port, auth, timeout):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": auth})
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status, round(time.monotonic() - t0, 3)
    except urllib.error.HTTPError as e:
        return e.code, round(time.monotonic() - t0, 3)
    except OSError as e:
        return str(e), round(time.monotonic() - t0, 3)


def client_hello():
    """A real TLS ClientHello, as bytes to send and then stall."""
    ctx = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def flood(port, hello, per_second, stop_flag, opened):
    """A process opening `per_second` connections a second (non-blocking
    connects, so a full listen backlog does not slow it), every other one
    sending `hello` once connected, all then silent; the oldest closed past
    600 held."""
    held, greet = collections.deque(), []
    t0, n = time.monotonic(), 0
    while not stop_flag.is_set():
        due = int((time.monotonic() - t0) * per_second)
        while n < due:
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            if n % 2:
                greet.append(s)
            held.append(s)
            n += 1
            while len(held) > 600:
                held.popleft().close()
        with opened.get_lock():
            opened.value = n
        still = []
        for s in greet:
            try:
                s.send(hello)
            except BlockingIOError:
                still.append(s)
            except OSError:
                pass
        greet = still[-100:]
        time.sleep(0.001)
    for s in held:
        s.close()


def handshake_flood(binary, tmp):
    port = free_port()
    log = open(tmp / "flood.log", "w")
    proc, port = start([binary, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
                        "--web.max-connections=32", f"--web.config.file={tmp / 'web.yml'}"], log)
    hello = client_hello()
    stop_flag = multiprocessing.Event()
    urls = [f"https://127.0.0.1:{port}/healthz"] * 1000
    counts = [multiprocessing.Value("i", 0)]
    flooders = [multiprocessing.Process(target=flood, args=(port, hello, 760, stop_flag, c), daemon=True)
                for c in counts]
    try:
        for f in flooders:
            f.start()
        time.sleep(1)
        t0 = time.monotonic()
        start_count = sum(c.value for c in counts)
        # Four curl processes, each making its 250 requests one after the
        # other on fresh connections (Connection: close, HTTP/1.1).
        args = ["curl", "-s", "--http1.1", "--cacert", str(tmp / "ca.crt"), "--max-time", "10",
                "-H", "Connection: close", "-w", "%{http_code} %{errormsg}\\n"]
        for u in urls[:250]:
            args += [u, "-o", "/dev/null"]
        curls = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True) for _ in range(4)]
        out = "".join(c.communicate(timeout=600)[0] for c in curls)
        took = time.monotonic() - t0
        rate = (sum(c.value for c in counts) - start_count) / took
    finally:
        stop_flag.set()
        for f in flooders:
            f.join(timeout=10)
        after = None
        try:
            after = subprocess.run(
                ["curl", "-s", "--cacert", str(tmp / "ca.crt"), "--max-time", "10", "-o", "/dev/null",
                 "-w", "%{http_code}", f"https://127.0.0.1:{port}/healthz"],
                capture_output=True, text=True, timeout=20).stdout.strip()
            after = int(after) if after.isdigit() else after
        except subprocess.TimeoutExpired:
            after = "timed out"
        stop(proc)
    lines = out.splitlines()
    codes = [l.split()[0] for l in lines if l.strip()]
    errors = collections.Counter(l for l in lines if not l.startswith("200"))
    if errors:
        print(f"  failures: {dict(errors)}")
    ok = codes.count("200")
    print(f"  flood of {rate:.0f} new connections/s (half stalling after a ClientHello), cap 32: "
          f"{ok} of {len(codes)} curl HTTPS requests answered in {took:.1f} s")
    # What share gets through depends on how fast this machine answers
    # handshakes: a figure (RELIABILITY.md, against the 99.9 %
    # target), never a timed assertion. What must hold on any machine: the
    # flood really flooded, most requests were answered, and the exporter
    # still answers once the flood is over.
    print(f"  FIGURE handshake flood: {100 * ok / max(len(codes), 1):.1f} % of {len(codes)} requests "
          f"succeeded at {rate:.0f} connections/s (target 99.9 %)")
    return {"requests": len(codes), "ok": ok, "after": after}


@pytest.fixture(scope="module")
def handshakes(exporter, tmp):
    return handshake_flood(str(exporter), tmp)


def test_flood_curl_made_every_request(handshakes):
    assert handshakes["requests"] == 1000


def test_flood_more_than_half_succeed(handshakes):
    assert handshakes["ok"] >= 500, f"{handshakes['ok']} of 1000"


def test_flood_exporter_answers_after(handshakes):
    assert handshakes["after"] == 200, handshakes["after"]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    """Test certificates and a TLS web config; descriptors for the clients."""
    if not shutil.which("curl") or not shutil.which("openssl"):
        pytest.fail("curl and openssl are needed (apt-get install curl openssl)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE,
                       (min(hard, 8192) if hard != resource.RLIM_INFINITY else 8192, hard))
    folder = tmp_path_factory.mktemp("hostile")
    make_certs(folder)
    (folder / "web.yml").write_text("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n")
    return folder


def main():
    """python3 -m tools.ops.web_hostile [BINARY [hold|bcrypt|flood] [pytest options]]"""
    args = sys.argv[2:]
    if args and args[0] in ("hold", "bcrypt", "flood"):
        args = ["-k", f"test_{args[0]}_", *args[1:]]
    return run_module(__file__, *args)


if __name__ == "__main__":
    sys.exit(main())
