// The Grafana dashboards, built here from _config: every query of an exporter
// metric carries _config.ssdSelector as it is built (panels.libsonnet's sel),
// panel targets and the query variables alike. Rendered with the default
// _config they are dashboards/*.json, the files plain Grafana imports
// (python3 -m tools.dashboards.generate writes them and checks they are current).
local drive = import 'drive.libsonnet';
local fleet = import 'fleet.libsonnet';

{
  grafanaDashboards+:: {
    'ssd-fleet.json': fleet($._config),
    'ssd-drive.json': drive($._config),
  },
}
