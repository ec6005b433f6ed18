// Recording rules for fleets of drives: aggregates per model and firmware, so
// a dashboard or a capacity review can ask "which firmware wears fastest" or
// "how many drives of this model have PLP trouble" without joining the
// per-drive series itself.
//
// Names follow level:metric:operations; the level names the labels kept.
// Identity (model, firmware) lives only in ssd_device_info (value 1), joined
// on instance, device, serial.
local lib = import '../lib.libsonnet';

{
  prometheusRules+:: {
    local c = $._config,
    local f = lib.formats(c),
    // A probed drive's read latency quantile q over the last 2 minutes, from
    // its histogram (native or classic, as _config.nativeHistograms says),
    // where the probe completed >= 500 reads in them; joined to its identity.
    local readQuantile(q) =
      local latency = lib.probeLatency(c);
      |||
        histogram_quantile(%(q)s,
          sum without (block, op) (
            rate(%(rate)s[2m])
          )
          %(and)s
          sum without (block, op) (
            %(count)s
          ) >= 500
        )
        * on(instance, device, serial) group_left(model, firmware) ssd_device_info
      ||| % {
        q: q,
        rate: latency.rate('{op="read"}'),
        and: latency.andCount,
        count: latency.count('{op="read"}', '2m'),
      },
    groups+: [
      {
        name: 'ssd_exporter_fleet',
        rules: lib.ssdRules(c, [
          // Drives monitored, per model and firmware.
          {
            record: 'model_firmware:ssd_device_info:count',
            expr: 'count by (model, firmware) (ssd_device_info)',
          },

          // The most worn drive of each model and firmware.
          {
            record: 'model_firmware:ssd_percentage_used_ratio:max',
            expr: |||
              max by (model, firmware) (
                ssd_percentage_used_ratio
                * on(instance, device, serial) group_left(model, firmware) ssd_device_info
              )
            |||,
          },

          // Drives with each active verdict problem, per model and firmware;
          // problems muted for a drive (health.overrides) are not counted.
          {
            record: 'model_firmware_problem:ssd_health_problem:count',
            expr: |||
              count by (model, firmware, problem) (
                ssd_health_problem{severity!="muted"}
                * on(instance, device, serial) group_left(model, firmware) ssd_device_info
              )
            |||,
          },

          // Drives per verdict (`status` "0" ok, "1" warning, "2" critical, "3"
          // unknown), per model and firmware; sum by (status) for the whole fleet.
          {
            record: 'model_firmware_status:ssd_health_status:count',
            expr: |||
              count_values by (model, firmware) ("status",
                ssd_health_status
                * on(instance, device, serial) group_left(model, firmware) ssd_device_info
              )
            |||,
          },

          // The soonest forecast wear-out of each model.
          {
            record: 'model:ssd_wearout_estimated_seconds:min',
            expr: |||
              min by (model) (
                ssd_wearout_estimated_seconds
                * on(instance, device, serial) group_left(model) ssd_device_info
              )
            |||,
          },

        ]),
      },
      // Fail-slow drives: drives that pass every SMART check yet serve reads
      // several times slower than their peers (Alibaba's Perseus, FAST '23), found
      // with the latency probe, which reads at QD1 whatever the load. Each drive's
      // probe p99 and p50 are compared with the median of the drives of its model
      // and firmware (on its host where the host has >= 3 of them, else across
      // everything this Prometheus sees, >= 3 again) and with its own 7-day median.
      //
      // Why the histogram over 2 minutes, and a minimum over 4 minutes, rather
      // than the exporter's sliding-window quantiles (alerts/README.md, "Fail-slow
      // drives"): a p99 moves as soon as 1 % of the reads in its window are slow,
      // so a 20-second spike holds a 10-minute window's p99 up for 10 minutes.
      // rate(...[2m]) forgets it 2 minutes after it ends, so "at or above the
      // factor at every evaluation for 4 minutes" rules out any spike shorter than
      // 2 minutes (less one scrape interval), however high, and catches a drive
      // that has turned slow 4 minutes (plus one scrape and one evaluation
      // interval) after it did.
      //
      // Per-drive levels: model_firmware_instance_device keeps every label of the
      // drive's series (job, instance, device, serial, and any the scrape or the
      // site adds) but block and op, plus model and firmware.
      {
        name: 'ssd_exporter_fail_slow',
        rules: lib.ssdRules(c, [
          // The factors SsdFailSlow and SsdLatencyDrift compare with:
          // _config.failSlowFactor and latencyDriftFactor (the alerts, their
          // text and the dashboard read these series).
          {
            record: 'ssd_exporter:fail_slow_factor',
            expr: 'vector(%(failSlowFactor)s)' % f,
          },
          {
            record: 'ssd_exporter:latency_drift_factor',
            expr: 'vector(%(latencyDriftFactor)s)' % f,
          },

          // Each probed drive's read latency p99 and p50 over the last 2 minutes,
          // from its histogram, where the probe completed >= 500 reads in them
          // (the default 5 reads/s make 600): a p99 of fewer is a few reads, and
          // one rare slow read moves it.
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m',
            expr: readQuantile('0.99'),
          },
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m',
            expr: readQuantile('0.5'),
          },

          // The median of each model and firmware, where >= 3 drives have one:
          // with one slow drive among three the median is a healthy drive's.
          {
            record: 'model_firmware:ssd_probe_latency_seconds:p99_rate2m_median',
            expr: |||
              quantile by (model, firmware) (0.5,
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
              )
              and on(model, firmware)
              count by (model, firmware) (
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
              ) >= 3
            |||,
          },
          {
            record: 'model_firmware:ssd_probe_latency_seconds:p50_rate2m_median',
            expr: |||
              quantile by (model, firmware) (0.5,
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
              )
              and on(model, firmware)
              count by (model, firmware) (
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
              ) >= 3
            |||,
          },
          // The same per host (instance), where the host has >= 3 of the model.
          {
            record: 'model_firmware_instance:ssd_probe_latency_seconds:p99_rate2m_median',
            expr: |||
              quantile by (model, firmware, instance) (0.5,
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
              )
              and on(model, firmware, instance)
              count by (model, firmware, instance) (
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
              ) >= 3
            |||,
          },
          {
            record: 'model_firmware_instance:ssd_probe_latency_seconds:p50_rate2m_median',
            expr: |||
              quantile by (model, firmware, instance) (0.5,
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
              )
              and on(model, firmware, instance)
              count by (model, firmware, instance) (
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
              ) >= 3
            |||,
          },

          // Each drive over its peers' median: its host's where there is one
          // (peers="host"), else the fleet's (peers="fleet").
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_vs_peers',
            expr: |||
              label_replace(
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
                  / on(model, firmware, instance) group_left
                model_firmware_instance:ssd_probe_latency_seconds:p99_rate2m_median,
                "peers", "host", "", ""
              )
              or ignoring(peers)
              label_replace(
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
                  / on(model, firmware) group_left
                model_firmware:ssd_probe_latency_seconds:p99_rate2m_median,
                "peers", "fleet", "", ""
              )
            |||,
          },
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m_vs_peers',
            expr: |||
              label_replace(
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
                  / on(model, firmware, instance) group_left
                model_firmware_instance:ssd_probe_latency_seconds:p50_rate2m_median,
                "peers", "host", "", ""
              )
              or ignoring(peers)
              label_replace(
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
                  / on(model, firmware) group_left
                model_firmware:ssd_probe_latency_seconds:p50_rate2m_median,
                "peers", "fleet", "", ""
              )
            |||,
          },

          // Each drive's own median over the last 7 days, and the drive now over
          // it. (Each evaluation reads the drive's 7 days of the series above: at
          // a 1-minute interval 10 080 samples per drive and quantile.)
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_median7d',
            expr: |||
              quantile_over_time(0.5,
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m[7d]
              )
            |||,
          },
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m_median7d',
            expr: |||
              quantile_over_time(0.5,
                model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m[7d]
              )
            |||,
          },
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_vs_7d',
            expr: |||
              model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m
              / model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_median7d
            |||,
          },
          {
            record: 'model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m_vs_7d',
            expr: |||
              model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m
              / model_firmware_instance_device:ssd_probe_latency_seconds:p50_rate2m_median7d
            |||,
          },

          {
            alert: 'SsdFailSlow',
            expr: |||
              min_over_time(
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_vs_peers[4m]
              )
                >= on() group_left()
              max(ssd_exporter:fail_slow_factor)
            |||,
            'for': c.alertFor.SsdFailSlow,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: "SSD {{ $labels.device }} on {{ $labels.instance }} is fail-slow: read p99 ≥ {{ $value | printf \"%.1f\" }} × its peers'",
              description: lib.fold(|||
                The latency probe's read p99 on {{ $labels.device }} ({{ $labels.model }}
                {{ $labels.firmware }}, serial {{ $labels.serial }}) on {{ $labels.instance }}
                has been at least {{ $value | printf "%%.1f" }} times the median of the drives of
                its model and firmware {{ if eq $labels.peers "host" }}on the same host{{ else }}across the fleet{{ end }}
                at every evaluation for 4 minutes, and that for %(forWords)s (the factor,
                ssd_exporter:fail_slow_factor, is
                {{ with query "max(ssd_exporter:fail_slow_factor)" }}{{ . | first | value }}{{ end }}).
                Its SMART data may look fine: a fail-slow drive slows its host's I/O down
                before it fails, if it ever does.
              ||| % (f { forWords: lib.words(c.alertFor.SsdFailSlow) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdfailslow',
            },
          },

          {
            alert: 'SsdLatencyDrift',
            expr: |||
              min_over_time(
                model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_vs_7d[4m]
              )
                >= on() group_left()
              max(ssd_exporter:latency_drift_factor)
            |||,
            'for': c.alertFor.SsdLatencyDrift,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: read p99 ≥ {{ $value | printf "%.1f" }} × its own 7-day median',
              description: lib.fold(|||
                The latency probe's read p99 on {{ $labels.device }} ({{ $labels.model }}
                {{ $labels.firmware }}, serial {{ $labels.serial }}) on {{ $labels.instance }}
                has been at least {{ $value | printf "%%.1f" }} times its own median of the last
                7 days at every evaluation for 4 minutes, and that for %(forWords)s (the factor,
                ssd_exporter:latency_drift_factor, is
                {{ with query "max(ssd_exporter:latency_drift_factor)" }}{{ . | first | value }}{{ end }}).
              ||| % (f { forWords: lib.words(c.alertFor.SsdLatencyDrift) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdlatencydrift',
            },
          },

        ]),
      },
    ],
  },
}
