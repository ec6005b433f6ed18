"""tools.grafana against hand-written cases: variable substitution, metric
names, the instance/device filter and the dashboard validation."""

from __future__ import annotations

import pytest

from tools.grafana import (DATASOURCE, SubstitutionError, family, metric_names, substitute,
                           unfiltered, validate_dashboard)


def test_substitute_forms():
    assert substitute('rate(ssd_media_errors_total{instance=~"$instance",'
                      'device=~"${device}"}[$__rate_interval])', "h.*", "nvme0|sda") == \
        'rate(ssd_media_errors_total{instance=~"h.*",device=~"nvme0|sda"}[1m])'


def test_substitute_ranges():
    assert substitute("increase(x[$__range]) / $__range_s + $__interval_ms"
                      " + ${instance:regex}", "a", "b", rate_interval="2m",
                      range_="1h30m") == "increase(x[1h30m]) / 5400 + 120000 + a"


def test_substitute_keeps_a_regex_anchor():
    assert substitute('ssd_device_up{device=~"nvme.*$"}', "a", "b") == \
        'ssd_device_up{device=~"nvme.*$"}'


@pytest.mark.parametrize("bad", ['ssd_device_up{device=~"$devices"}', "rate(x[${window}])",
                                 "x[$__rate_interval]"])
def test_substitute_refuses(bad):
    with pytest.raises(SubstitutionError):
        substitute(bad, "a", "b", rate_interval="90")


def test_metric_names_histogram():
    assert metric_names('histogram_quantile(0.99, sum by (le) (rate('
                        'ssd_probe_latency_seconds_bucket{op="read"}[5m])))') == \
        {"ssd_probe_latency_seconds_bucket"}


def test_metric_names_join():
    assert metric_names('ssd_health_problem{device=~"ssd_x"} * on(instance, device, serial)'
                        ' group_left(model, firmware) ssd_device_info') == \
        {"ssd_health_problem", "ssd_device_info"}


def test_metric_names_arithmetic():
    assert metric_names("time()-ssd_last_poll_timestamp_seconds{a='ssd_no'}") == \
        {"ssd_last_poll_timestamp_seconds"}


def test_family():
    assert [family("ssd_probe_latency_seconds_bucket"), family("ssd_probe_ios_total"),
            family("ssd_x_count")] == \
        ["ssd_probe_latency_seconds", "ssd_probe_ios_total", "ssd_x_count"]


def test_unfiltered():
    assert unfiltered('ssd_device_up{instance=~"$instance"} + '
                      'ssd_exporter_devices{instance=~"$instance"} + ssd_polls_total') == \
        ['ssd_device_up lacks device=~"$device"',
         'ssd_polls_total lacks instance=~"$instance", device=~"$device"']


# ---- validate: a minimal good dashboard passes, each defect is reported

DS = {"type": "prometheus", "uid": DATASOURCE}
GOOD_EXPR = 'ssd_device_up{instance=~"$instance", device=~"$device"}'


def panel(pid, title, y, expr=GOOD_EXPR, datasource=DS):
    return {"id": pid, "type": "stat", "title": title, "datasource": datasource,
            "gridPos": {"x": 0, "y": y, "w": 12, "h": 4},
            "targets": [{"refId": "A", "expr": expr}]}


def dashboard(panel_list):
    return {"uid": "u", "title": "t",
            "__inputs": [{"name": "DS_PROMETHEUS", "type": "datasource",
                          "pluginId": "prometheus"}],
            "__requires": [{"type": "datasource", "id": "prometheus"}],
            "templating": {"list": [
                {"name": "datasource", "type": "datasource", "query": "prometheus"},
                {"name": "instance", "datasource": DS},
                {"name": "device", "datasource": DS}]},
            "panels": panel_list}


def test_validate_passes_a_good_dashboard():
    assert validate_dashboard(dashboard([panel(1, "a", 0), {
        "id": 2, "type": "row", "title": "r", "collapsed": True,
        "gridPos": {"x": 0, "y": 4, "w": 24, "h": 1}, "panels": [panel(3, "b", 5)]}])) == []


@pytest.mark.parametrize("want, panel_list", [
    ("id used twice", [panel(1, "a", 0), panel(1, "b", 4)]),
    ("title used twice", [panel(1, "a", 0), panel(2, "a", 4)]),
    ("overlap", [panel(1, "a", 0), panel(2, "b", 2)]),
    ("datasource is not", [panel(1, "a", 0, datasource={"uid": "prom"})]),
    ("no target with an expr", [panel(1, "a", 0, expr="")]),
    ('lacks device=~"$device"', [panel(1, "a", 0, expr='ssd_device_up{instance=~"$instance"}')]),
    ("no value for $job", [panel(1, "a", 0, expr=GOOD_EXPR + ' + up{job="$job"}')]),
], ids=lambda v: v if isinstance(v, str) else None)
def test_validate_reports(want, panel_list):
    got = validate_dashboard(dashboard(panel_list))
    assert any(want in g for g in got), got
