"""Debian's Prometheus scraping `ssd_exporter --demo` over TLS with basic
auth, on loopback, the way docs/security.md tells operators to set it up
(`scheme: https`, `basic_auth`, `tls_config.ca_file`):

- the job with the right password is up (up == 1) and its series arrive;
- the job with a wrong password is down (up == 0) with a 401;
- a job scraping the TLS port over plain HTTP is down.

Certificates come from openssl; the password hash is the one in
examples/web-config.yml ("change-me"). Every wait is bounded.

Usage: python3 -m tools.ops.prometheus_tls [path/to/ssd_exporter] [pytest options]
(default target/debug/ssd_exporter): a pytest module, one test per check.
"""

import json
import re
import subprocess
import sys
import time
import urllib.parse

import pytest

from tools import ROOT
from tools.ops.common import (free_port, get, make_certs, prometheus_binary, run_module,
                              start_prometheus, stop_all, wait_http)


@pytest.fixture(scope="module")
def prometheus(exporter, tmp_path_factory):
    """Prometheus scraping the demo over TLS in three jobs, once each has been
    scraped: {"up": {job: up's value or None}, "error": {job: last scrape
    error}, "devices": ssd_exporter_devices as scraped by tls_good}."""
    prom_bin = prometheus_binary()
    example = (ROOT / "examples/web-config.yml").read_text()
    bcrypt_hash = re.search(r"^  prometheus: (\S+)$", example, re.M).group(1)
    tmp = tmp_path_factory.mktemp("prom-tls")
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
            [exporter, "--demo", "--probe.disable", f"--web.listen-address=127.0.0.1:{port}",
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

        def query(expr):
            q = urllib.parse.quote(expr)
            return json.loads(get(f"{prom}/api/v1/query?query={q}"))["data"]["result"]

        up = {job: (r[0]["value"][1] if (r := query(f'up{{job="{job}"}}')) else None)
              for job in ("tls_good", "tls_bad", "plain_http")}
        devices = query('ssd_exporter_devices{job="tls_good"}')
        return {"up": up, "error": {j: t.get("lastError", "") for j, t in by_job.items()},
                "devices": float(devices[0]["value"][1]) if devices else None}
    finally:
        stop_all(procs)


def test_https_basic_auth_ca_file_is_up(prometheus):
    """https + basic_auth + tls_config.ca_file: up == 1."""
    assert prometheus["up"]["tls_good"] == "1"


def test_wrong_password_is_down(prometheus):
    assert prometheus["up"]["tls_bad"] == "0"


def test_wrong_password_error_says_401(prometheus):
    assert "401" in prometheus["error"].get("tls_bad", "")


def test_plain_http_against_tls_port_is_down(prometheus):
    assert prometheus["up"]["plain_http"] == "0"


def test_series_scraped_over_tls_reach_prometheus(prometheus):
    assert prometheus["devices"] is not None and prometheus["devices"] >= 1


if __name__ == "__main__":
    sys.exit(run_module(__file__))
