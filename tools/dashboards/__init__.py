"""The Grafana dashboards' files: ``python3 -m tools.dashboards.generate
[--check]`` writes dashboards/*.json, rendered from the monitoring mixin's
jsonnet (mixin/dashboards/), and the panel table of dashboards/README.md."""
