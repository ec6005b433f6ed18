"""Builders for the Grafana 10/11 JSON the dashboards are made of.

One place decides what every panel shares: the `${datasource}` data source,
the `$instance`/`$device` filter, the join with `ssd_device_info`, the link to
the drive view and the grid layout. fleet.py and drive.py only say what each
panel shows.
"""

from __future__ import annotations

import string

DS = {"type": "prometheus", "uid": "${datasource}"}
FLEET_UID = "ssd-exporter-fleet"
DRIVE_UID = "ssd-exporter-drive"
FLEET_URL = f"/d/{FLEET_UID}/ssd-fleet"
DRIVE_URL = f"/d/{DRIVE_UID}/ssd-drive"

# Min interval for panels that take rate() or increase() of a drive's own
# counters: the exporter refreshes them once per poll (--poll.interval,
# default 60 s), so a window must span at least two polls to see a change.
POLL_RATE_INTERVAL = "2m"


def sel(metric: str, *matchers: str) -> str:
    """A per-drive selector filtered by the dashboard's instance and device."""
    inner = ", ".join(('instance=~"$instance"', 'device=~"$device"') + matchers)
    return f"{metric}{{{inner}}}"


def sel_instance(metric: str) -> str:
    """A selector for the exporter's own series (no `device` label)."""
    return f'{metric}{{instance=~"$instance"}}'


def with_model(expr: str) -> str:
    """`expr` with the drive's model and firmware from ssd_device_info."""
    return (f"{expr} * on(instance, device, serial) group_left(model, firmware) "
            f"{sel('ssd_device_info')}")


def per_drive(expr: str, agg: str = "max") -> str:
    """`expr` reduced to one series per drive, labelled instance/device/serial
    only, so instant tables of several queries merge row by row."""
    return f"{agg} by (instance, device, serial) ({expr})"


def q(expr: str, legend: str = "__auto", instant: bool = False,
      fmt: str = "time_series") -> dict:
    """A Prometheus target; its refId is given by the panel."""
    t = {"datasource": DS, "editorMode": "code", "expr": expr,
         "legendFormat": legend, "range": not instant, "instant": instant}
    if fmt != "time_series":
        t["format"] = fmt
    return t


def thresholds(*steps) -> dict:
    """Absolute thresholds: a base colour, then (colour, from value) pairs."""
    base, *rest = steps
    return {"mode": "absolute",
            "steps": [{"color": base, "value": None}]
            + [{"color": c, "value": v} for c, v in rest]}


def value_map(*entries) -> list:
    """Value mappings: (value, text, colour) triples."""
    return [{"type": "value",
             "options": {str(v): {"text": text, "color": color, "index": i}
                         for i, (v, text, color) in enumerate(entries)}}]


# ssd_health_status: 3 is "unknown" (no core health data, nothing critical
# known), neither good nor a warning.
HEALTH_MAP = value_map((0, "OK", "green"), (1, "Warning", "yellow"),
                       (2, "Critical", "red"), (3, "Unknown", "purple"))
# "muted": muted for that drive by the exporter's config (health.overrides);
# shown, so nothing disappears silently, but not in ssd_health_status.
SEVERITY_MAP = value_map(("warning", "warning", "yellow"), ("critical", "critical", "red"),
                         ("muted", "muted", "blue"))


# Override properties for a limit drawn as a dashed red line.
DASHED_RED = {"color": {"mode": "fixed", "fixedColor": "red"},
              "custom__lineStyle": {"fill": "dash", "dash": [10, 10]},
              "custom__fillOpacity": 0}


def drive_link(labels: bool = True) -> dict:
    """A data link to the single-drive view for the clicked series or row."""
    src = "__field.labels" if labels else "__data.fields"
    return {
        "title": f"Drive view: ${{{src}.instance}} ${{{src}.device}}",
        "url": (f"{DRIVE_URL}?${{datasource:queryparam}}"
                f"&var-instance=${{{src}.instance}}&var-device=${{{src}.device}}"
                "&${__url_time_range}"),
    }


def _defaults(unit=None, min_=None, max_=None, steps=None, mappings=None,
              decimals=None, links=None, custom=None, color=None) -> dict:
    d = {"color": color or {"mode": "palette-classic" if not steps else "thresholds"},
         "mappings": mappings or [],
         "thresholds": steps or thresholds("green")}
    for key, value in (("unit", unit), ("min", min_), ("max", max_),
                       ("decimals", decimals), ("links", links), ("custom", custom)):
        if value is not None:
            d[key] = value
    return d


def _panel(kind: str, title: str, desc: str, targets: list, defaults: dict,
           options: dict, overrides=None, **extra) -> dict:
    refs = iter(string.ascii_uppercase)
    p = {"type": kind, "title": title, "description": desc, "datasource": DS,
         "targets": [dict(t, refId=next(refs)) for t in targets],
         "fieldConfig": {"defaults": defaults, "overrides": overrides or []},
         "options": options}
    p.update({k: v for k, v in extra.items() if v is not None})
    return p


def override(matcher: str, name: str, **props) -> dict:
    """A field override: matcher id (byName, byFrameRefID, ...) and properties."""
    return {"matcher": {"id": matcher, "options": name},
            "properties": [{"id": k.replace("__", "."), "value": v} for k, v in props.items()]}


def timeseries(title, desc, targets, unit, *, min_=None, max_=None, log=False,
               bars=False, steps=None, line_at=None, overrides=None,
               interval=None, link=True, legend="table") -> dict:
    custom = {"drawStyle": "bars" if bars else "line", "lineWidth": 1,
              "fillOpacity": 30 if bars else 8, "gradientMode": "none",
              "showPoints": "never", "spanNulls": False, "axisPlacement": "auto",
              "axisSoftMin": 0 if min_ is None and not log else None,
              "scaleDistribution": {"type": "log", "log": 10} if log else {"type": "linear"},
              "thresholdsStyle": {"mode": "line+area" if line_at is not None else "off"}}
    custom = {k: v for k, v in custom.items() if v is not None}
    if line_at is not None:
        steps = thresholds("transparent", ("red", line_at))
    defaults = _defaults(unit, min_, max_, steps, links=[drive_link()] if link else None,
                         custom=custom, color={"mode": "palette-classic"})
    options = {"legend": {"displayMode": legend, "placement": "bottom", "showLegend": True,
                          "calcs": ["lastNotNull", "max"] if legend == "table" else []},
               "tooltip": {"mode": "multi", "sort": "desc"}}
    return _panel("timeseries", title, desc, targets, defaults, options, overrides,
                  interval=interval)


def stat(title, desc, targets, unit=None, *, steps=None, mappings=None,
         text_mode="auto", overrides=None, decimals=None) -> dict:
    defaults = _defaults(unit, steps=steps or thresholds("text"), mappings=mappings,
                         decimals=decimals)
    options = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
               "orientation": "auto", "textMode": text_mode, "colorMode": "value",
               "graphMode": "none", "justifyMode": "auto", "wideLayout": True}
    return _panel("stat", title, desc, targets, defaults, options, overrides)


def bargauge(title, desc, targets, unit, *, min_=None, max_=None, steps=None,
             overrides=None) -> dict:
    defaults = _defaults(unit, min_, max_, steps or thresholds("green"),
                         links=[drive_link()])
    options = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
               "orientation": "horizontal", "displayMode": "gradient",
               "valueMode": "color", "namePlacement": "auto", "showUnfilled": True,
               "sizing": "auto", "minVizWidth": 8, "minVizHeight": 16}
    return _panel("bargauge", title, desc, targets, defaults, options, overrides)


def state_timeline(title, desc, targets, mappings, *, steps=None, overrides=None,
                   link=True) -> dict:
    defaults = _defaults(steps=steps or thresholds("green"), mappings=mappings,
                         links=[drive_link()] if link else None,
                         custom={"fillOpacity": 75, "lineWidth": 0})
    options = {"mergeValues": True, "showValue": "auto", "alignValue": "left",
               "rowHeight": 0.9,
               "legend": {"displayMode": "list", "placement": "bottom", "showLegend": False},
               "tooltip": {"mode": "single", "sort": "none"}}
    return _panel("state-timeline", title, desc, targets, defaults, options, overrides)


def table(title, desc, targets, *, transformations, overrides=None, sort_by=None,
          device_link=True) -> dict:
    defaults = _defaults(custom={"align": "auto", "cellOptions": {"type": "auto"},
                                 "inspect": False, "filterable": True},
                         color={"mode": "thresholds"})
    overrides = list(overrides or [])
    if device_link:
        overrides.append(override("byName", "device", links=[drive_link(labels=False)]))
    options = {"showHeader": True, "cellHeight": "sm",
               "footer": {"show": False, "reducer": ["sum"], "fields": ""},
               "sortBy": [{"displayName": n, "desc": d} for n, d in (sort_by or [])]}
    return _panel("table", title, desc, targets, defaults, options, overrides,
                  transformations=transformations)


def organize(hide=(), order=(), rename=None) -> dict:
    """An organize-fields transformation: hide, order and rename columns."""
    return {"id": "organize", "options": {
        "excludeByName": {n: True for n in ("Time", "job", "__name__") + tuple(hide)},
        "indexByName": {n: i for i, n in enumerate(order)},
        "renameByName": rename or {}}}


MERGE = {"id": "merge", "options": {}}


def heatmap(title, desc, targets, unit, *, interval=None) -> dict:
    defaults = _defaults(custom={"scaleDistribution": {"type": "linear"},
                                 "hideFrom": {"legend": False, "tooltip": False, "viz": False}})
    options = {"calculate": False, "cellGap": 1, "cellValues": {"unit": "short"},
               "color": {"mode": "scheme", "scheme": "Oranges", "scale": "exponential",
                         "exponent": 0.5, "steps": 64, "fill": "dark-orange",
                         "reverse": False},
               "filterValues": {"le": 1e-9}, "rowsFrame": {"layout": "auto"},
               "yAxis": {"axisPlacement": "left", "unit": unit, "reverse": False},
               "tooltip": {"mode": "single", "show": True, "yHistogram": True},
               "legend": {"show": True}, "exemplars": {"color": "rgba(255,0,255,0.7)"}}
    return _panel("heatmap", title, desc, targets, defaults, options, interval=interval)


class Board:
    """Lays panels out left to right on Grafana's 24-column grid, wrapping to
    a new line, and numbers them."""

    def __init__(self) -> None:
        self.panels: list[dict] = []
        self._next_id = 1
        self._x = self._y = self._line_h = 0
        self._collapsed: dict | None = None

    def _newline(self) -> None:
        self._y += self._line_h
        self._x = self._line_h = 0

    def row(self, title: str, collapsed: bool = False) -> None:
        """Starts a row; a collapsed row holds the panels that follow it."""
        self._newline()
        row = {"type": "row", "title": title, "id": self._next_id, "collapsed": collapsed,
               "gridPos": {"x": 0, "y": self._y, "w": 24, "h": 1}, "panels": []}
        self._next_id += 1
        self.panels.append(row)
        self._collapsed = row if collapsed else None
        self._y += 1

    def add(self, panel: dict, w: int, h: int = 8) -> None:
        if self._x + w > 24:
            self._newline()
        panel = {"id": self._next_id, "gridPos": {"x": self._x, "y": self._y, "w": w, "h": h},
                 **panel}
        self._next_id += 1
        self._x += w
        self._line_h = max(self._line_h, h)
        (self._collapsed["panels"] if self._collapsed else self.panels).append(panel)


def variables(device_multi: bool, instance_multi: bool = True) -> list[dict]:
    """The datasource, instance and device template variables."""
    def query_var(name, label, query, multi):
        v = {"name": name, "label": label, "type": "query", "datasource": DS,
             "definition": query,
             "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
             "refresh": 2, "regex": "", "sort": 1, "hide": 0, "skipUrlSync": False,
             "multi": multi, "includeAll": multi, "current": {}, "options": []}
        if multi:
            v["allValue"] = ".*"
        return v

    return [
        {"name": "datasource", "label": "Data source", "type": "datasource",
         "query": "prometheus", "regex": "", "refresh": 1, "hide": 0,
         "includeAll": False, "multi": False, "skipUrlSync": False, "options": [],
         # Filled with the data source picked for DS_PROMETHEUS on a UI import;
         # left as it is by provisioning, where Grafana falls back to the
         # default Prometheus data source.
         "current": {"selected": False, "text": "${DS_PROMETHEUS}", "value": "${DS_PROMETHEUS}"}},
        query_var("instance", "Exporter", "label_values(ssd_exporter_build_info, instance)",
                  instance_multi),
        query_var("device", "Drive",
                  'label_values(ssd_device_info{instance=~"$instance"}, device)', device_multi),
    ]


def dashboard(uid: str, title: str, desc: str, board: Board, templating: list,
              links: list) -> dict:
    kinds = sorted({p["type"] for p in _all(board.panels) if p["type"] != "row"})
    names = {"timeseries": "Time series", "stat": "Stat", "table": "Table",
             "bargauge": "Bar gauge", "state-timeline": "State timeline",
             "heatmap": "Heatmap"}
    return {
        "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus",
                      "description": "The Prometheus that scrapes ssd_exporter",
                      "type": "datasource", "pluginId": "prometheus",
                      "pluginName": "Prometheus"}],
        "__elements": {},
        "__requires": [{"type": "grafana", "id": "grafana", "name": "Grafana",
                        "version": "10.0.0"},
                       {"type": "datasource", "id": "prometheus", "name": "Prometheus",
                        "version": "1.0.0"}]
        + [{"type": "panel", "id": k, "name": names[k], "version": ""} for k in kinds],
        "annotations": {"list": [{
            "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
            "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
            "name": "Annotations & Alerts", "type": "dashboard"}]},
        "description": desc,
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "id": None,
        "links": links,
        "panels": board.panels,
        "refresh": "1m",
        "schemaVersion": 39,
        "tags": ["ssd_exporter", "ssd", "smart", "nvme", "sata"],
        "templating": {"list": templating},
        "time": {"from": "now-24h", "to": "now"},
        "timepicker": {},
        "timezone": "",
        "title": title,
        "uid": uid,
        "version": 1,
        "weekStart": "",
    }


def _all(panel_list: list) -> list[dict]:
    out = []
    for p in panel_list:
        out.append(p)
        out.extend(_all(p.get("panels", [])))
    return out
