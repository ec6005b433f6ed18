"""Debian's Prometheus scraping `ssd_exporter --demo` over TLS with basic
auth, on loopback, the way docs/security.md tells operators to set it up
(`scheme: https`, `basic_auth`, `tls_config.ca_file`):

- the job with the right password is up (up == 1) and its series arrive;
- the job with a wrong password is down (up == 0) with a 401;
- a job scraping the TLS port over plain HTTP is down.

Certificates come from openssl; the password hash is the one in
examples/web-config.yml ("change-me"). Every wait is bounded.

Usage: python3 -m tools.ops.prometheus_tls [path/to/ssd_exporter]
(default target/debug/ssd_exporter). Python 3.11 standard library only.
Prints PASS/FAIL lines and "N passed, N failed"; exits 1 on a failure.
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from tools import ROOT
from tools.ops.common import (
    Checks, exporter_binary, free_port, get, make_certs, prometheus_binary, start_prometheus,
    stop_all, wait_http)

check = Checks()


def main():
    binary = exporter_binary()
    prom_bin = prometheus_binary()
    example = (ROOT / "examples/web-config.yml").read_text()
    bcrypt_hash = re.search(r"^  prometheus: (\S+)$", example, re.M).group(1)
    tmp = Path(tempfile.mkdtemp(prefix="ssd-prom-tls-"))
    procs = []
    try:
        make_certs(tmp)
        (tmp / "web.yml").write_text(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
            f"basic_auth_users:\n  prometheus: {bcrypt_hash}\n")
        (tmp / "good.pw").write_text("change-me")
        (tmp / "bad.pw").write_text("wrong")
        port, prom_port = free_port(), free_port()
        log = open(tmp / "exporter.log", "w")
        procs.append(subprocess.Popen(
            [binary, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
             f"--web.config.file={tmp / 'web.yml'}"], stdout=log, stderr=log))
        target = f"127.0.0.1:{port}"
        jobs = ""
        for job, pw in (("tls_good", "good.pw"), ("tls_bad", "bad.pw")):
            jobs += f"""
  - job_name: {job}
    scheme: https
    basic_auth:
      username: prometheus
      password_file: {tmp / pw}
    tls_config:
      ca_file: {tmp / 'ca.crt'}
    static_configs:
      - targets: ['{target}']
"""
        jobs += f"""
  - job_name: plain_http
    static_configs:
      - targets: ['{target}']
"""
        (tmp / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\nscrape_configs:" + jobs)
        prom_proc, prom = start_prometheus(prom_bin, tmp, prom_port)
        procs.append(prom_proc)
        wait_http(f"{prom}/-/ready", "prometheus")

        # Wait (bounded) until every job has been scraped at least once.
        deadline = time.monotonic() + 60
        targets = []
        while time.monotonic() < deadline:
            targets = json.loads(get(f"{prom}/api/v1/targets"))["data"]["activeTargets"]
            if len(targets) == 3 and all(t["health"] != "unknown" for t in targets):
                break
            time.sleep(0.5)
        by_job = {t["labels"]["job"]: t for t in targets}
        for job in ("tls_good", "tls_bad", "plain_http"):
            t = by_job.get(job, {})
            print(f"  {job}: {t.get('health')} {t.get('lastError', '')}")

        def up(job):
            q = urllib.parse.quote(f'up{{job="{job}"}}')
            r = json.loads(get(f"{prom}/api/v1/query?query={q}"))["data"]["result"]
            return r[0]["value"][1] if r else None

        check(up("tls_good") == "1", "https + basic_auth + tls_config.ca_file: up == 1")
        check(up("tls_bad") == "0", "wrong password: up == 0")
        check("401" in by_job.get("tls_bad", {}).get("lastError", ""),
              "wrong password: the scrape error says 401")
        check(up("plain_http") == "0", "plain HTTP against the TLS port: up == 0")
        q = urllib.parse.quote('ssd_exporter_devices{job="tls_good"}')
        r = json.loads(get(f"{prom}/api/v1/query?query={q}"))["data"]["result"]
        check(bool(r) and float(r[0]["value"][1]) >= 1,
              "series scraped over TLS reach Prometheus")
    finally:
        stop_all(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
