"""What TLS (and basic auth) cost a scrape, against plaintext, same run.

Starts two release exporters with --demo on loopback, one plain and one with
a TLS + basic-auth web config (openssl-made P-256 certificate), and scrapes
each with curl, alternating, in two ways:

- keep-alive: one curl fetching /metrics N times over one connection (what
  Prometheus does between scrapes);
- new connection: N curls, a TCP connect and (for TLS) a full handshake each.

Reports the median wall time per scrape from curl's time_total, and the
exporter's own CPU per scrape (utime + stime from /proc/<pid>/stat over the
run, 100 Hz ticks), for each. Nothing is asserted; the numbers go to
BENCHMARKS.md.

Usage: python3 -m tools.bench_tls [scrapes=300]
(needs target/release/ssd_exporter: cargo build --release --bin ssd_exporter)
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import ROOT
from tools.ops.common import free_port, make_certs, wait_http

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def curl_times(args, urls):
    # One -o per URL: curl pairs them in order (one -o covers only the first).
    outs = [a for _ in urls for a in ("-o", "/dev/null")]
    out = subprocess.run(
        ["curl", "-s", *outs, "-w", "%{time_total}\\n", *args, *urls],
        check=True, capture_output=True, text=True).stdout
    return [float(t) for t in out.split()]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    binary = ROOT / "target/release/ssd_exporter"
    example = (ROOT / "examples/web-config.yml").read_text()
    bcrypt_hash = next(line.split(": ", 1)[1] for line in example.splitlines()
                       if line.startswith("  prometheus: "))
    tmp = Path(tempfile.mkdtemp(prefix="bench-tls-"))
    procs = {}
    try:
        make_certs(tmp)
        (tmp / "web.yml").write_text(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
            f"basic_auth_users:\n  prometheus: {bcrypt_hash}\n")
        ports = {"plain": free_port(), "tls": free_port()}
        for kind, port in ports.items():
            args = [binary, "--demo", "--probe.disable", "--log.level=warn",
                    f"--web.listen-address=127.0.0.1:{port}"]
            if kind == "tls":
                args.append(f"--web.config.file={tmp / 'web.yml'}")
            procs[kind] = subprocess.Popen(args)
        wait_http(f"http://127.0.0.1:{ports['plain']}/healthz", "plain exporter")
        tls_args = ["--cacert", str(tmp / "ca.crt"), "-u", "prometheus:change-me"]
        url = {"plain": f"http://127.0.0.1:{ports['plain']}/metrics",
               "tls": f"https://127.0.0.1:{ports['tls']}/metrics"}
        extra = {"plain": [], "tls": tls_args}
        # Warm up: the demo fleet and the password cache.
        for kind in ports:
            curl_times(extra[kind], [url[kind]] * 20)
        results = {}
        for mode in ("keep-alive", "new connection"):
            times = {k: [] for k in ports}
            cpu = {k: 0.0 for k in ports}
            for _ in range(n // 50):
                for kind in ports:
                    before = cpu_seconds(procs[kind].pid)
                    if mode == "keep-alive":
                        times[kind] += curl_times(extra[kind], [url[kind]] * 50)
                    else:
                        for _ in range(50):
                            times[kind] += curl_times(extra[kind], [url[kind]])
                    cpu[kind] += cpu_seconds(procs[kind].pid) - before
            for kind in ports:
                results[(mode, kind)] = (statistics.median(times[kind]) * 1000,
                                         cpu[kind] / len(times[kind]) * 1000, len(times[kind]))
        print("| mode | plain: median ms, CPU ms/scrape | TLS+auth: median ms, CPU ms/scrape | wall ratio | CPU ratio |")
        print("|---|---|---|---|---|")
        for mode in ("keep-alive", "new connection"):
            p, t = results[(mode, "plain")], results[(mode, "tls")]
            print(f"| {mode} ({p[2]} each) | {p[0]:.2f}, {p[1]:.2f} | {t[0]:.2f}, {t[1]:.2f} "
                  f"| {t[0] / p[0]:.2f} | {t[1] / p[1] if p[1] else float('nan'):.2f} |")
    finally:
        for p in procs.values():
            p.terminate()
            p.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
