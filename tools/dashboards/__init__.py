"""The Grafana dashboards as code: ``panels`` (the building blocks),
``fleet`` and ``drive`` (the two dashboards); ``python3 -m
tools.dashboards.generate [--check]`` writes dashboards/*.json."""
