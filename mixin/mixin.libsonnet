// The ssd_exporter monitoring mixin: alerts, recording rules and dashboards
// with every selector and threshold in one `_config` (config.libsonnet).
//
//   prometheusAlerts   the alerting rules (alerts/ssd_exporter.rules.yml)
//   prometheusRules    the fleet recording rules and the fail-slow group,
//                      whose two alerts stay with the recording rules they
//                      read (alerts/fleet.rules.yml)
//   grafanaDashboards  dashboards/ssd-fleet.json and ssd-drive.json
//
// Use: (import 'mixin.libsonnet') + { _config+:: { ssdSelector: 'cluster="eu1"' } }
// mixin/README.md has every key and how to render or import it.
(import 'config.libsonnet')
+ (import 'alerts/alerts.libsonnet')
+ (import 'rules/rules.libsonnet')
+ (import 'dashboards/dashboards.libsonnet')
