// A kube-prometheus-style PrometheusRule made from the mixin, the way a
// kube-prometheus setup turns a mixin's prometheusAlerts and prometheusRules
// into one object (python3 -m tools.mixin.checks renders it and checks its
// spec with promtool). Render it with
//   jsonnet -J . tests/mixin/prometheusrule.jsonnet
// from the repository root; a real setup vendors the repository (mixin/README.md).
local ssd = (import '../../mixin/mixin.libsonnet') + {
  _config+:: {
    // kube-prometheus names the job after the Service.
    ssdExporterSelector: 'job="ssd-exporter"',
  },
};

{
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: {
    name: 'ssd-exporter-rules',
    namespace: 'monitoring',
    labels: {
      // what the Prometheus' ruleSelector expects (kube-prometheus' own
      // Prometheus selects these two)
      prometheus: 'k8s',
      role: 'alert-rules',
    },
  },
  spec: {
    groups: ssd.prometheusAlerts.groups + ssd.prometheusRules.groups,
  },
}
