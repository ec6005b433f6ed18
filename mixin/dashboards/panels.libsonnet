// Builders for the Grafana 10/11 JSON the dashboards are made of.
//
// One place decides what every panel shares: the `${datasource}` data source,
// the `$instance`/`$device` filter and the site's `_config.ssdSelector` (added
// to every selector of an exporter metric as the query is built), the join with
// `ssd_device_info`, the link to the drive view and the grid layout.
// fleet.libsonnet and drive.libsonnet only say what each panel shows.
//
// Use: local p = (import 'panels.libsonnet').new($._config);
{
  fleetUid:: 'ssd-exporter-fleet',
  driveUid:: 'ssd-exporter-drive',
  fleetUrl:: '/d/' + self.fleetUid + '/ssd-fleet',
  driveUrl:: '/d/' + self.driveUid + '/ssd-drive',

  // Min interval for panels that take rate() or increase() of a drive's own
  // counters: the exporter refreshes them once per poll (--poll.interval,
  // default 60 s), so a window must span at least two polls to see a change.
  pollRateInterval:: '2m',

  ds:: { type: 'prometheus', uid: '${datasource}' },

  // Absolute thresholds: a base colour, then [colour, from value] pairs.
  thresholds(base, steps=[]):: {
    mode: 'absolute',
    steps: [{ color: base, value: null }] + [{ color: s[0], value: s[1] } for s in steps],
  },

  // Value mappings: [value, text, colour] triples.
  valueMap(entries):: [{
    type: 'value',
    options: {
      [std.toString(entries[i][0])]: { text: entries[i][1], color: entries[i][2], index: i }
      for i in std.range(0, std.length(entries) - 1)
    },
  }],

  // ssd_health_status: 3 is "unknown" (no core health data, nothing critical
  // known), neither good nor a warning.
  healthMap:: self.valueMap([
    [0, 'OK', 'green'],
    [1, 'Warning', 'yellow'],
    [2, 'Critical', 'red'],
    [3, 'Unknown', 'purple'],
  ]),
  // "muted": muted for that drive by the exporter's config (health.overrides);
  // shown, so nothing disappears silently, but not in ssd_health_status.
  severityMap:: self.valueMap([
    ['warning', 'warning', 'yellow'],
    ['critical', 'critical', 'red'],
    ['muted', 'muted', 'blue'],
  ]),

  // Override properties for a limit drawn as a dashed red line.
  dashedRed:: {
    color: { mode: 'fixed', fixedColor: 'red' },
    'custom.lineStyle': { fill: 'dash', dash: [10, 10] },
    'custom.fillOpacity': 0,
  },

  // A field override: matcher id (byName, byFrameRefID, ...) and properties.
  override(matcher, name, props):: {
    matcher: { id: matcher, options: name },
    properties: [{ id: k, value: props[k] } for k in std.objectFields(props)],
  },

  // A data link to the single-drive view for the clicked series (labels) or
  // table row.
  driveLink(labels=true)::
    local src = if labels then '__field.labels' else '__data.fields';
    {
      title: 'Drive view: ${' + src + '.instance} ${' + src + '.device}',
      url: $.driveUrl + '?${datasource:queryparam}&var-instance=${' + src + '.instance}'
           + '&var-device=${' + src + '.device}&${__url_time_range}',
    },

  // A Prometheus target; its refId is given by the panel.
  q(expr, legend='__auto', instant=false, format='time_series'):: {
    datasource: $.ds,
    editorMode: 'code',
    expr: expr,
    legendFormat: legend,
    range: !instant,
    instant: instant,
  } + (if format != 'time_series' then { format: format } else {}),

  // An organize-fields transformation: hide, order and rename columns.
  organize(hide=[], order=[], rename={}):: {
    id: 'organize',
    options: {
      excludeByName: { [n]: true for n in ['Time', 'job', '__name__'] + hide },
      indexByName: { [order[i]]: i for i in std.range(0, std.length(order) - 1) },
      renameByName: rename,
    },
  },

  merge:: { id: 'merge', options: {} },

  local withoutNulls(o) = { [k]: o[k] for k in std.objectFields(o) if o[k] != null },

  local defaults(unit=null,
                 min=null,
                 max=null,
                 steps=null,
                 mappings=null,
                 decimals=null,
                 links=null,
                 custom=null,
                 color=null) =
    {
      color: if color != null then color
      else { mode: if steps == null then 'palette-classic' else 'thresholds' },
      mappings: if mappings == null then [] else mappings,
      thresholds: if steps == null then $.thresholds('green') else steps,
    } + withoutNulls({
      unit: unit,
      min: min,
      max: max,
      decimals: decimals,
      links: links,
      custom: custom,
    }),

  local panel(kind, title, desc, targets, defaults, options, overrides=null, extra={}) =
    {
      type: kind,
      title: title,
      description: desc,
      datasource: $.ds,
      targets: [targets[i] { refId: std.char(65 + i) } for i in std.range(0, std.length(targets) - 1)],
      fieldConfig: { defaults: defaults, overrides: if overrides == null then [] else overrides },
      options: options,
    } + withoutNulls(extra),

  timeseries(title,
             desc,
             targets,
             unit,
             min=null,
             max=null,
             log=false,
             bars=false,
             steps=null,
             lineAt=null,
             overrides=null,
             interval=null,
             link=true,
             legend='table')::
    local custom = withoutNulls({
      drawStyle: if bars then 'bars' else 'line',
      lineWidth: 1,
      fillOpacity: if bars then 30 else 8,
      gradientMode: 'none',
      showPoints: 'never',
      spanNulls: false,
      axisPlacement: 'auto',
      axisSoftMin: if min == null && !log then 0 else null,
      scaleDistribution: if log then { type: 'log', log: 10 } else { type: 'linear' },
      thresholdsStyle: { mode: if lineAt != null then 'line+area' else 'off' },
    });
    panel('timeseries',
          title,
          desc,
          targets,
          defaults(unit,
                   min,
                   max,
                   if lineAt != null then $.thresholds('transparent', [['red', lineAt]]) else steps,
                   links=if link then [$.driveLink()] else null,
                   custom=custom,
                   color={ mode: 'palette-classic' }),
          {
            legend: {
              displayMode: legend,
              placement: 'bottom',
              showLegend: true,
              calcs: if legend == 'table' then ['lastNotNull', 'max'] else [],
            },
            tooltip: { mode: 'multi', sort: 'desc' },
          },
          overrides,
          { interval: interval }),

  stat(title,
       desc,
       targets,
       unit=null,
       steps=null,
       mappings=null,
       textMode='auto',
       overrides=null,
       decimals=null)::
    panel('stat',
          title,
          desc,
          targets,
          defaults(unit,
                   steps=if steps == null then $.thresholds('text') else steps,
                   mappings=mappings,
                   decimals=decimals),
          {
            reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
            orientation: 'auto',
            textMode: textMode,
            colorMode: 'value',
            graphMode: 'none',
            justifyMode: 'auto',
            wideLayout: true,
          },
          overrides),

  bargauge(title, desc, targets, unit, min=null, max=null, steps=null, overrides=null)::
    panel('bargauge',
          title,
          desc,
          targets,
          defaults(unit,
                   min,
                   max,
                   if steps == null then $.thresholds('green') else steps,
                   links=[$.driveLink()]),
          {
            reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
            orientation: 'horizontal',
            displayMode: 'gradient',
            valueMode: 'color',
            namePlacement: 'auto',
            showUnfilled: true,
            sizing: 'auto',
            minVizWidth: 8,
            minVizHeight: 16,
          },
          overrides),

  stateTimeline(title, desc, targets, mappings, steps=null, overrides=null, link=true)::
    panel('state-timeline',
          title,
          desc,
          targets,
          defaults(steps=if steps == null then $.thresholds('green') else steps,
                   mappings=mappings,
                   links=if link then [$.driveLink()] else null,
                   custom={ fillOpacity: 75, lineWidth: 0 }),
          {
            mergeValues: true,
            showValue: 'auto',
            alignValue: 'left',
            rowHeight: 0.9,
            legend: { displayMode: 'list', placement: 'bottom', showLegend: false },
            tooltip: { mode: 'single', sort: 'none' },
          },
          overrides),

  table(title, desc, targets, transformations, overrides=[], sortBy=[], deviceLink=true)::
    panel('table',
          title,
          desc,
          targets,
          defaults(custom={
                     align: 'auto',
                     cellOptions: { type: 'auto' },
                     inspect: false,
                     filterable: true,
                   },
                   color={ mode: 'thresholds' }),
          {
            showHeader: true,
            cellHeight: 'sm',
            footer: { show: false, reducer: ['sum'], fields: '' },
            sortBy: [{ displayName: s[0], desc: s[1] } for s in sortBy],
          },
          overrides
          + (if deviceLink then [$.override('byName', 'device', { links: [$.driveLink(false)] })]
             else []),
          { transformations: transformations }),

  heatmap(title, desc, targets, unit, interval=null)::
    panel('heatmap',
          title,
          desc,
          targets,
          defaults(custom={
            scaleDistribution: { type: 'linear' },
            hideFrom: { legend: false, tooltip: false, viz: false },
          }),
          {
            calculate: false,
            cellGap: 1,
            cellValues: { unit: 'short' },
            color: {
              mode: 'scheme',
              scheme: 'Oranges',
              scale: 'exponential',
              exponent: 0.5,
              steps: 64,
              fill: 'dark-orange',
              reverse: false,
            },
            filterValues: { le: 1e-9 },
            rowsFrame: { layout: 'auto' },
            yAxis: { axisPlacement: 'left', unit: unit, reverse: false },
            tooltip: { mode: 'single', show: true, yHistogram: true },
            legend: { show: true },
            exemplars: { color: 'rgba(255,0,255,0.7)' },
          },
          extra={ interval: interval }),

  // Items of a dashboard, laid out by layout(): a row (a collapsed one holds the
  // panels that follow it), and a panel `w` columns wide and `h` high.
  row(title, collapsed=false):: { row: title, collapsed: collapsed },
  add(panel, w, h=8):: { panel: panel, w: w, h: h },

  // The items laid out left to right on Grafana's 24-column grid, wrapping to a
  // new line, and numbered.
  layout(items)::
    local newline(s) = s { y: s.y + s.lineH, x: 0, lineH: 0 };
    local step(s, item) =
      if std.objectHas(item, 'row') then
        local n = newline(s);
        local row = {
          type: 'row',
          title: item.row,
          id: n.id,
          collapsed: item.collapsed,
          gridPos: { x: 0, y: n.y, w: 24, h: 1 },
          panels: [],
        };
        n { panels: s.panels + [row], id: s.id + 1, y: n.y + 1, collapsed: item.collapsed }
      else
        local n = if s.x + item.w > 24 then newline(s) else s;
        local p = { id: n.id, gridPos: { x: n.x, y: n.y, w: item.w, h: item.h } } + item.panel;
        n {
          panels: if n.collapsed
          then n.panels[:std.length(n.panels) - 1]
               + [n.panels[std.length(n.panels) - 1] { panels+: [p] }]
          else n.panels + [p],
          id: n.id + 1,
          x: n.x + item.w,
          lineH: std.max(n.lineH, item.h),
        };
    std.foldl(step, items, { panels: [], id: 1, x: 0, y: 0, lineH: 0, collapsed: false }).panels,

  local all(panels) = std.flattenArrays([
    [p] + all(if std.objectHas(p, 'panels') then p.panels else [])
    for p in panels
  ]),

  // The whole dashboard.
  dashboard(uid, title, desc, items, templating, links)::
    local panels = $.layout(items);
    local kinds = std.set([p.type for p in all(panels) if p.type != 'row']);
    local names = {
      timeseries: 'Time series',
      stat: 'Stat',
      table: 'Table',
      bargauge: 'Bar gauge',
      'state-timeline': 'State timeline',
      heatmap: 'Heatmap',
    };
    {
      __inputs: [{
        name: 'DS_PROMETHEUS',
        label: 'Prometheus',
        description: 'The Prometheus that scrapes ssd_exporter',
        type: 'datasource',
        pluginId: 'prometheus',
        pluginName: 'Prometheus',
      }],
      __elements: {},
      __requires: [
        { type: 'grafana', id: 'grafana', name: 'Grafana', version: '10.0.0' },
        { type: 'datasource', id: 'prometheus', name: 'Prometheus', version: '1.0.0' },
      ] + [{ type: 'panel', id: k, name: names[k], version: '' } for k in kinds],
      annotations: { list: [{
        builtIn: 1,
        datasource: { type: 'grafana', uid: '-- Grafana --' },
        enable: true,
        hide: true,
        iconColor: 'rgba(0, 211, 255, 1)',
        name: 'Annotations & Alerts',
        type: 'dashboard',
      }] },
      description: desc,
      editable: true,
      fiscalYearStartMonth: 0,
      graphTooltip: 1,
      id: null,
      links: links,
      panels: panels,
      refresh: '1m',
      schemaVersion: 39,
      tags: ['ssd_exporter', 'ssd', 'smart', 'nvme', 'sata'],
      templating: { list: templating },
      time: { from: 'now-24h', to: 'now' },
      timepicker: {},
      timezone: '',
      title: title,
      uid: uid,
      version: 1,
      weekStart: '',
    },

  // What depends on the site: `c` is the mixin's _config.
  new(c):: $ {
    // The site's matchers, first in every selector of an exporter metric (a
    // recorded series, a name with a colon, has none).
    local site(metric) = if c.ssdSelector == '' || std.length(std.findSubstr(':', metric)) > 0
    then [] else [c.ssdSelector],

    // A per-drive selector filtered by the dashboard's instance and device.
    sel(metric, matchers=[])::
      metric + '{' + std.join(', ', site(metric) + ['instance=~"$instance"', 'device=~"$device"']
                                    + matchers) + '}',

    // A selector for the exporter's own series (no `device` label).
    selInstance(metric):: metric + '{' + std.join(', ', site(metric) + ['instance=~"$instance"']) + '}',

    // `expr` with the drive's model and firmware from ssd_device_info.
    withModel(expr)::
      expr + ' * on(instance, device, serial) group_left(model, firmware) '
      + self.sel('ssd_device_info'),

    // `expr` reduced to one series per drive, labelled instance/device/serial
    // only, so instant tables of several queries merge row by row.
    perDrive(expr, agg='max'):: agg + ' by (instance, device, serial) (' + expr + ')',

    // The datasource, instance and device template variables.
    variables(deviceMulti, instanceMulti=true)::
      local queryVar(name, label, query, multi) = {
        name: name,
        label: label,
        type: 'query',
        datasource: $.ds,
        definition: query,
        query: { query: query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
        refresh: 2,
        regex: '',
        sort: 1,
        hide: 0,
        skipUrlSync: false,
        multi: multi,
        includeAll: multi,
        current: {},
        options: [],
      } + (if multi then { allValue: '.*' } else {});
      local bare(metric) = if site(metric) == [] then metric else metric + '{' + c.ssdSelector + '}';
      [
        {
          name: 'datasource',
          label: 'Data source',
          type: 'datasource',
          query: 'prometheus',
          regex: '',
          refresh: 1,
          hide: 0,
          includeAll: false,
          multi: false,
          skipUrlSync: false,
          options: [],
          // Filled with the data source picked for DS_PROMETHEUS on a UI import;
          // left as it is by provisioning, where Grafana falls back to the
          // default Prometheus data source.
          current: { selected: false, text: '${DS_PROMETHEUS}', value: '${DS_PROMETHEUS}' },
        },
        queryVar('instance',
                 'Exporter',
                 'label_values(' + bare('ssd_exporter_build_info') + ', instance)',
                 instanceMulti),
        queryVar('device',
                 'Drive',
                 'label_values(' + self.selInstance('ssd_device_info') + ', device)',
                 deviceMulti),
      ],
  },
}
