// Alerting rules for ssd_exporter.
//
// Every per-drive alert keeps `instance`, `device` and `serial` (and `job`) and
// gains `model` and `firmware` from ssd_device_info, so a receiver can route or
// group per drive or per model. Runbooks: docs/runbooks.md, one section per
// alert. Tests: alerts/tests/, run with alerts/check.sh.
//
// Every threshold, window, `for` duration and selector is a key of
// `_config` (mixin/config.libsonnet, table in mixin/README.md); `c` is that
// config, and `f` the same with numbers written as PromQL writes them plus
// the phrases the descriptions quote. The exporter's own verdict
// (ssd_health_status / ssd_health_problem) uses the same defaults from the
// `health:` section of its config file (python3 -m tools.mixin.checks
// compares them). Every expression goes through lib.ssdRules, which adds
// ssdSelector to each ssd_* selector.
//
// A problem the operator muted for one drive (health.overrides[].mute) is
// served as ssd_health_problem{severity="muted"}: every alert that stands for
// an exporter problem leaves a drive out while that problem is muted for it
// (`unless ... severity="muted"`), so muting a known-bad drive in the exporter
// quiets its alerts without a silence (docs/runbooks.md, "Muting a known-bad
// drive"). alerts/tests/muted_test.yml checks it.
local lib = import '../lib.libsonnet';

{
  prometheusAlerts+:: {
    local c = $._config,
    local f = lib.formats(c),
    groups+: [
      {
        name: 'ssd_exporter',
        rules: lib.ssdRules(c, [
          // ---------------------------------------------------------------- drive
          // reported failure: the drive itself says it is in trouble.

          {
            alert: 'SsdCriticalWarning',
            // Any bit of the NVMe SMART/Health critical warning byte, one alert per
            // bit (`condition`). The PLP bit also fires SsdPlpFailed, which has its
            // own runbook. The temperature bit means the composite temperature
            // crossed the drive's over-temperature threshold (WCTEMP by default):
            // a warning, as in the exporter's verdict; every other bit is critical.
            // Each bit is left out while the problem it raises is muted for the
            // drive (label_replace gives each muted problem its bit's condition).
            expr: |||
              (
                (ssd_critical_warning == 1)
                unless on(instance, device, serial, condition) (
                    label_replace(ssd_health_problem{problem="spare_below_threshold", severity="muted"}, "condition", "available_spare", "", "")
                  or label_replace(ssd_health_problem{problem="temperature_above_warning", severity="muted"}, "condition", "temperature", "", "")
                  or label_replace(ssd_health_problem{problem="reliability_degraded", severity="muted"}, "condition", "reliability", "", "")
                  or label_replace(ssd_health_problem{problem="read_only", severity="muted"}, "condition", "read_only", "", "")
                  or label_replace(ssd_health_problem{problem="plp_failed", severity="muted"}, "condition", "volatile_memory_backup", "", "")
                  or label_replace(ssd_health_problem{problem="read_only", severity="muted"}, "condition", "pmr_read_only", "", "")
                )
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdCriticalWarning,
            labels: {
              severity: '{{ if eq $labels.condition "temperature" }}warning{{ else }}critical{{ end }}',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} reports NVMe critical warning {{ $labels.condition }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} has set the critical warning
                bit "{{ $labels.condition }}" in its SMART/Health log.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdcriticalwarning',
            },
          },

          {
            alert: 'SsdSmartFailed',
            // SMART overall health failed. For NVMe this is "a critical warning bit
            // is set", already alerted per bit above, so NVMe drives are left out
            // while one of their decoded bits explains the failure; SATA drives
            // (SMART RETURN STATUS) and SAS/SCSI drives (a failure prediction
            // in log 2Fh: ASC 5Dh, not its TEST-bit ASCQ FFh)
            // have no such bits and always alert here.
            expr: |||
              (
                (
                  ssd_smart_passed == 0
                  unless on(instance, device, serial) (ssd_critical_warning == 1)
                )
                unless on(instance, device, serial) ssd_health_problem{problem="smart_failed", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdSmartFailed,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} failed its SMART health check',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} reports SMART overall health
                FAILED: the drive predicts its own failure.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdsmartfailed',
            },
          },

          {
            alert: 'SsdAttributeFailing',
            // A SATA attribute at or below its threshold now (smartctl's
            // FAILING_NOW), whatever SMART RETURN STATUS says: the exporter's
            // attribute_failing_prefail (critical: the drive predicts its own
            // failure) or attribute_failing_old_age (warning: past the
            // vendor's limit for wear or aging). Drives answer "passed" with a
            // pre-failure attribute at its threshold, so this is not
            // SsdSmartFailed. The severity selector leaves a muted one out;
            // `ssd_exporter check` names the attribute.
            expr: |||
              ssd_health_problem{problem=~"attribute_failing_prefail|attribute_failing_old_age", severity=~"critical|warning"}
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdAttributeFailing,
            labels: {
              severity: '{{ if eq $labels.problem "attribute_failing_prefail" }}critical{{ else }}warning{{ end }}',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: a SMART attribute is at or below its threshold',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} has
                {{ if eq $labels.problem "attribute_failing_prefail" }}a pre-failure attribute at or below its
                threshold: the drive predicts its own failure{{ else }}an old-age attribute at or below its
                threshold: past the vendor's limit for wear or aging{{ end }}. `ssd_exporter check`
                names the attribute.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdattributefailing',
            },
          },

          // ------------------------------------------------------ power-loss protection

          {
            alert: 'SsdPlpFailed',
            expr: |||
              (
                (ssd_critical_warning{condition="volatile_memory_backup"} == 1)
                unless on(instance, device, serial) ssd_health_problem{problem="plp_failed", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdPlpFailed,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: power-loss protection failed',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reports its volatile memory backup (the PLP capacitor bank)
                failed. Writes the drive acknowledged from its cache can be lost on a power cut.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdplpfailed',
            },
          },

          {
            alert: 'SsdPlpTestFailed',
            // Intel SATA attribute 175 (Power_Loss_Cap_Test) normalized 1; 11
            // ("tested at an excessive temperature") and 100 (passed) give 0.
            expr: |||
              (
                (ssd_plp_test_failed == 1)
                unless on(instance, device, serial) ssd_health_problem{problem="plp_failed", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdPlpTestFailed,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: power-loss capacitor test failed',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reports that its own power-loss capacitor test failed.
                Writes the drive acknowledged from its cache can be lost on a power cut.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdplptestfailed',
            },
          },

          {
            alert: 'SsdPlpHealthLow',
            // plpHealthLowRatio: the exporter's health.plp_health_critical (0.5).
            expr: |||
              (
                (ssd_plp_health_ratio < %(plpHealthLowRatio)s)
                unless on(instance, device, serial) ssd_health_problem{problem="plp_health_low", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdPlpHealthLow,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: PLP capacitor health {{ $value | humanizePercentage }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reports power-loss protection health
                {{ $value | humanizePercentage }}, below %(plpHealthLowPct)s. The capacitors may no longer hold
                up the drive long enough to flush its cache on a power cut.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdplphealthlow',
            },
          },

          // ---------------------------------------------------------------- spare
          // The two spare alerts cover disjoint ranges, so a drive pages once.

          {
            alert: 'SsdSpareLow',
            // At or below spareLowFactor (2) x the drive's own threshold: the
            // exporter's health.spare_warning_factor.
            expr: |||
              (
                (
                  ssd_available_spare_ratio
                    <= on(instance, device, serial) group_left
                  %(spareLowFactor)s * ssd_available_spare_threshold_ratio
                  and on(instance, device, serial)
                  ssd_available_spare_ratio
                    >= on(instance, device, serial) group_left
                  ssd_available_spare_threshold_ratio
                )
                unless on(instance, device, serial) ssd_health_problem{problem="spare_low", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdSpareLow,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: available spare down to {{ $value | humanizePercentage }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} has {{ $value | humanizePercentage }} spare blocks left,
                within %(spareLowTimes)s its threshold of
                {{ with printf `ssd_available_spare_threshold_ratio{instance=%%q,device=%%q,serial=%%q}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value | humanizePercentage }}{{ end }}.
                Plan a replacement.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdsparelow',
            },
          },

          {
            alert: 'SsdSpareBelowThreshold',
            expr: |||
              (
                (
                  ssd_available_spare_ratio
                    < on(instance, device, serial) group_left
                  ssd_available_spare_threshold_ratio
                )
                unless on(instance, device, serial) ssd_health_problem{problem="spare_below_threshold", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdSpareBelowThreshold,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: available spare {{ $value | humanizePercentage }} is below its threshold',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} has {{ $value | humanizePercentage }} spare blocks left,
                below the drive's threshold of
                {{ with printf `ssd_available_spare_threshold_ratio{instance=%q,device=%q,serial=%q}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value | humanizePercentage }}{{ end }}.
                The drive may soon go read-only.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdsparebelowthreshold',
            },
          },

          // ----------------------------------------------------------------- wear
          // Disjoint ranges again: 80-90 % warns, 90 % and more is critical.

          {
            alert: 'SsdWearHigh',
            expr: |||
              (
                (ssd_percentage_used_ratio >= %(wearHighRatio)s < %(wearCriticalRatio)s)
                unless on(instance, device, serial) ssd_health_problem{problem=~"wear_high|wear_out", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdWearHigh,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} has used {{ $value | humanizePercentage }} of its rated endurance',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reports {{ $value | humanizePercentage }} of its rated
                endurance used (warning at %(wearHighPct)s, critical at %(wearCriticalPct)s).
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdwearhigh',
            },
          },

          {
            alert: 'SsdWearCritical',
            expr: |||
              (
                (ssd_percentage_used_ratio >= %(wearCriticalRatio)s)
                unless on(instance, device, serial) ssd_health_problem{problem=~"wear_high|wear_out", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdWearCritical,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} has used {{ $value | humanizePercentage }} of its rated endurance',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reports {{ $value | humanizePercentage }} of its rated
                endurance used (critical at %(wearCriticalPct)s). Replace it before it reaches 100 %%.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdwearcritical',
            },
          },

          {
            alert: 'SsdWearOutForecast',
            // The forecast moves with the write rate, so it must hold for an hour.
            expr: |||
              (ssd_wearout_estimated_seconds < %(wearOutForecastDays)s * 86400)
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdWearOutForecast,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} reaches its rated endurance in {{ $value | humanizeDuration }}',
              description: lib.fold(|||
                At the write rate seen so far, {{ $labels.model }} {{ $labels.device }}
                (serial {{ $labels.serial }}) on {{ $labels.instance }} reaches 100 %% of its rated
                endurance in {{ $value | humanizeDuration }} (alert below %(wearOutForecastDays)s days).
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdwearoutforecast',
            },
          },

          // ------------------------------------------------------- error counters
          // A count the drive has carried for years is no problem; only a rise is.
          // Counter rises are events: no `for`, the 1h window keeps them visible.
          // A rise is the count above its lowest value in the window, not
          // increase(): these are the drive's lifetime counts, which never reset
          // (a new drive is a new serial), and VictoriaMetrics' increase() counts a
          // series that starts inside the window from 0, so for the first hour of
          // a deployment every drive with a small count would fire there
          // (alerts/README.md, "VictoriaMetrics and MetricsQL").

          {
            alert: 'SsdUnsafeShutdowns',
            expr: |||
              (
                (ssd_unsafe_shutdowns_total - min_over_time(ssd_unsafe_shutdowns_total[%(counterWindow)s]) > 0)
                unless on(instance, device, serial) ssd_health_problem{problem="unsafe_shutdowns_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} lost power without a clean shutdown',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} counted {{ $value | printf "%%.0f" }} more unsafe shutdown(s)
                in %(counterLast)s.
                {{ with printf `ssd_plp_health_ratio{instance=%%q,device=%%q,serial=%%q}` $labels.instance $labels.device $labels.serial | query }}It has power-loss protection (capacitor health {{ . | first | value | humanizePercentage }}): the capacitors were used to flush its cache.{{ else }}On a drive with power-loss protection the capacitors were used to flush its cache; without PLP, writes still in its volatile cache may be lost.{{ end }}
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdunsafeshutdowns',
            },
          },

          {
            alert: 'SsdMediaErrors',
            expr: |||
              (
                (ssd_media_errors_total - min_over_time(ssd_media_errors_total[%(counterWindow)s]) > 0)
                unless on(instance, device, serial) ssd_health_problem{problem="media_errors_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} has new media errors',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} counted {{ $value | printf "%%.0f" }} more unrecovered media
                error(s) in %(counterLast)s: data it could not read back.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdmediaerrors',
            },
          },

          {
            alert: 'SsdCrcErrors',
            expr: |||
              (
                (ssd_crc_errors_total - min_over_time(ssd_crc_errors_total[%(counterWindow)s]) > 0)
                unless on(instance, device, serial) ssd_health_problem{problem="crc_errors_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SATA link CRC errors on SSD {{ $labels.device }} on {{ $labels.instance }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} counted {{ $value | printf "%%.0f" }} more interface CRC
                error(s) in %(counterLast)s. This is the cable, backplane or connector, not the NAND.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdcrcerrors',
            },
          },

          {
            alert: 'SsdScsiGrownDefects',
            // A gauge that only grows on a healthy drive: how much it rose above
            // its lowest value of the last hour (no extrapolation, unlike delta).
            expr: |||
              (
                (ssd_scsi_grown_defects - min_over_time(ssd_scsi_grown_defects[%(counterWindow)s]) > 0)
                unless on(instance, device, serial) ssd_health_problem{problem="grown_defects_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} grew its defect list',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} added {{ $value | printf "%%.0f" }} entries to its grown defect
                list within %(counterLast)s: it retired more of its media.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdscsigrowndefects',
            },
          },

          {
            alert: 'SsdMediaDiesOffline',
            // OCP C0h (log page version 5 on): the Total Die Failure Tolerance is
            // how many NAND dies may fail with the drive still working, so dies
            // offline reaching it means the drive used up what it was built to
            // survive. The verdict's media_dies_offline, critical.
            expr: |||
              # (both series carry the same labels: matched on all of them, so
              # the result keeps `job` for the join below)
              (
                (ssd_media_dies_offline > 0 and ssd_media_dies_offline >= ssd_media_die_failure_tolerance)
                unless on(instance, device, serial) ssd_health_problem{problem="media_dies_offline", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdMediaDiesOffline,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} has media dies offline at its failure tolerance',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} has {{ $value | printf "%.0f" }}
                NAND die(s) offline, at or past the number it is built to survive losing.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdmediadiesoffline',
            },
          },

          {
            alert: 'SsdDriveReportedInternalError',
            // NVMe controller-initiated telemetry (log 08h): the generation number
            // moves each time the drive saves its internal state on its own,
            // which it does after an internal failure. The verdict's
            // drive_reported_internal_error, a warning; resolves an hour after
            // the last capture. The max/min clause keeps a series that has not
            // moved quiet under MetricsQL too, whose changes() counts a series'
            // first sample in the window as a change.
            expr: |||
              (
                (
                  (changes(ssd_telemetry_ctrl_generation[%(counterWindow)s]) > 0)
                  and on(instance, device, serial)
                  (
                    max_over_time(ssd_telemetry_ctrl_generation[%(counterWindow)s])
                    != min_over_time(ssd_telemetry_ctrl_generation[%(counterWindow)s])
                  )
                )
                unless on(instance, device, serial) ssd_health_problem{problem="drive_reported_internal_error", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} recorded an internal failure',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} captured its internal state on
                its own (controller-initiated telemetry) {{ $value | printf "%%.0f" }} time(s) in the
                %(counterLastBare)s: it saw an internal failure. Collect the telemetry log for the vendor.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssddrivereportedinternalerror',
            },
          },

          {
            alert: 'SsdSasPhyErrors',
            // One alert per phy, whatever the kind of error (invalid dwords,
            // running disparity, loss of dword sync, phy reset problems): the
            // exporter's phy_errors_increasing over the last hour. A counter
            // reset (a power cycle of the drive) is no rise.
            expr: |||
              (
                (
                  sum without (kind) (
                    ssd_sas_phy_errors_total - min_over_time(ssd_sas_phy_errors_total[%(counterWindow)s])
                  ) > 0
                )
                unless on(instance, device, serial) ssd_health_problem{problem="phy_errors_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SAS link errors on SSD {{ $labels.device }} phy {{ $labels.phy }} on {{ $labels.instance }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} counted {{ $value | printf "%%.0f" }} more SAS phy error(s) on
                phy {{ $labels.phy }} in %(counterLast)s. This is the cable, backplane, expander or HBA
                port, not the NAND.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdsasphyerrors',
            },
          },

          {
            alert: 'SsdDriveReportedWarning',
            // A SAS / SCSI drive's informational exceptions page (2Fh) carries a
            // warning (ASC 0Bh: a temperature exceeded, a background self-test or
            // scan failed, ...): the exporter's drive_reported_warning. Not a
            // failure prediction (that is ASC 5Dh, SsdSmartFailed); the reason
            // with the ASC/ASCQ is in `ssd_exporter check` and on the landing page.
            // The severity="warning" selector leaves a muted one out.
            expr: |||
              ssd_health_problem{problem="drive_reported_warning", severity="warning"}
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdDriveReportedWarning,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} reports a warning of its own',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} has reported an informational
                exception warning (SCSI ASC 0Bh) for %(forWords)s; `ssd_exporter check` names the
                ASC/ASCQ.
              ||| % (f { forWords: lib.words(c.alertFor.SsdDriveReportedWarning) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssddrivereportedwarning',
            },
          },

          // ------------------------------------------------------------ PCIe link

          {
            alert: 'SsdPcieLinkDegraded',
            // The exporter's own pcie_link_degraded: the NVMe drive's link trained
            // slower or narrower than both the drive and its port can do (sysfs).
            // Not ssd_pcie_link_*{link="current"} < {link="max"}: a Gen4 drive in
            // a Gen3 slot runs Gen3 as built, and only the exporter reads the
            // port's maximum. A muted problem does not page.
            expr: |||
              (ssd_health_problem{problem="pcie_link_degraded", severity!="muted"} == 1)
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdPcieLinkDegraded,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'PCIe link of SSD {{ $labels.device }} on {{ $labels.instance }} is degraded',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} runs its PCIe link at
                {{ with printf `ssd_pcie_link_speed_transfers_per_second{instance=%q,device=%q,serial=%q,link="current"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value | humanize }}T/s{{ end }}
                x{{ with printf `ssd_pcie_link_width_lanes{instance=%q,device=%q,serial=%q,link="current"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value }}{{ end }}
                (the drive can do
                {{ with printf `ssd_pcie_link_speed_transfers_per_second{instance=%q,device=%q,serial=%q,link="max"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value | humanize }}T/s{{ end }}
                x{{ with printf `ssd_pcie_link_width_lanes{instance=%q,device=%q,serial=%q,link="max"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value }}{{ end }}),
                below what it and its port can do: a seating, riser, cable or slot problem.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdpcielinkdegraded',
            },
          },

          {
            alert: 'SsdPcieErrors',
            // Uncorrectable non-fatal AER errors of the drive's PCI function
            // (a transaction lost, the link still up) above their 1h minimum:
            // the exporter's pcie_errors_increasing, a warning. The kernel counts
            // from 0 when it finds the device, so a reboot or a re-plug is no rise.
            expr: |||
              (
                (
                  ssd_pcie_errors_total{severity="nonfatal"}
                  - min_over_time(ssd_pcie_errors_total{severity="nonfatal"}[%(counterWindow)s]) > 0
                )
                unless on(instance, device, serial) ssd_health_problem{problem="pcie_errors_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'Uncorrectable PCIe errors on SSD {{ $labels.device }} on {{ $labels.instance }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reported {{ $value | printf "%%.0f" }} more non-fatal
                uncorrectable PCIe error(s) (AER) in %(counterLast)s: transactions on its link were
                lost. This is the slot, riser, cable or the drive's connector, not the NAND.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdpcieerrors',
            },
          },

          {
            alert: 'SsdPcieFatalErrors',
            // Fatal AER errors: the link had to be reset to recover; in-flight
            // I/O failed. pcie_errors_increasing at critical.
            expr: |||
              (
                (
                  ssd_pcie_errors_total{severity="fatal"}
                  - min_over_time(ssd_pcie_errors_total{severity="fatal"}[%(counterWindow)s]) > 0
                )
                unless on(instance, device, serial) ssd_health_problem{problem="pcie_errors_increasing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'Fatal PCIe errors on SSD {{ $labels.device }} on {{ $labels.instance }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reported {{ $value | printf "%%.0f" }} more fatal PCIe
                error(s) (AER) in %(counterLast)s: its link was reset to recover, and I/O in flight
                failed.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdpciefatalerrors',
            },
          },

          // -------------------------------------------------------------- thermal

          {
            alert: 'SsdThermalThrottling',
            // Counts first, so $value is how often it throttled; the `active` flag
            // alone (no new count) gives 1, and the description then says
            // "throttling now". Transitions are summed over `level` so a drive
            // alerts once. Rises as for the error counters above.
            expr: |||
              (
                (
                  sum without (level) (
                    ssd_thermal_throttle_transitions_total
                    - min_over_time(ssd_thermal_throttle_transitions_total[%(throttleWindow)s])
                  ) > 0
                  or
                  ssd_thermal_throttle_events_total
                  - min_over_time(ssd_thermal_throttle_events_total[%(throttleWindow)s]) > 0
                  or
                  ssd_thermal_throttle_active == 1
                )
                unless on(instance, device, serial) ssd_health_problem{problem="thermal_throttling", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdThermalThrottling,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} is throttling for heat',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} is slowing itself down to cool off.
                {{ with printf `ssd_thermal_throttle_active{instance=%%q,device=%%q,serial=%%q} == 1` $labels.instance $labels.device $labels.serial | query }}It is throttling now.{{ else }}It started throttling {{ $value | printf "%%.0f" }} time(s) in %(throttleLast)s.{{ end }}
                Composite temperature
                {{ with printf `ssd_temperature_celsius{instance=%%q,device=%%q,serial=%%q,sensor="composite"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value }} °C{{ else }}unknown{{ end }}.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdthermalthrottling',
            },
          },

          {
            alert: 'SsdTemperatureWarning',
            // At or past the drive's own warning threshold (NVMe WCTEMP, SATA
            // specified maximum operating temperature) but below its critical one.
            expr: |||
              (
                (
                  ssd_temperature_celsius{sensor="composite"}
                    >= on(instance, device, serial) group_left
                  ssd_temperature_threshold_celsius{level="warning"}
                  unless on(instance, device, serial)
                  ssd_temperature_celsius{sensor="composite"}
                    >= on(instance, device, serial) group_left
                  ssd_temperature_threshold_celsius{level="critical"}
                )
                unless on(instance, device, serial) ssd_health_problem{problem="temperature_above_warning", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdTemperatureWarning,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} is at {{ $value }} °C, past its warning temperature',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reads {{ $value }} °C composite, at or above its warning
                threshold of
                {{ with printf `ssd_temperature_threshold_celsius{instance=%q,device=%q,serial=%q,level="warning"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value }} °C{{ end }}.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdtemperaturewarning',
            },
          },

          {
            alert: 'SsdTemperatureCritical',
            expr: |||
              (
                (
                  ssd_temperature_celsius{sensor="composite"}
                    >= on(instance, device, serial) group_left
                  ssd_temperature_threshold_celsius{level="critical"}
                )
                unless on(instance, device, serial) ssd_health_problem{problem="temperature_above_critical", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdTemperatureCritical,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }} is at {{ $value }} °C, past its critical temperature',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} reads {{ $value }} °C composite, at or above its critical
                threshold of
                {{ with printf `ssd_temperature_threshold_celsius{instance=%q,device=%q,serial=%q,level="critical"}` $labels.instance $labels.device $labels.serial | query }}{{ . | first | value }} °C{{ end }}.
                Data retention and the drive's life suffer; it may shut itself down.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdtemperaturecritical',
            },
          },

          // -------------------------------------------------------------- latency

          {
            alert: 'SsdLatencyAboveQos',
            // The probe's tail over its sliding window against the datasheet's
            // p99.999 limit (for models whose datasheet gives one), with the
            // evidence the exporter's own verdict uses (src/probe/qos.rs): a
            // p99.99 above the limit with >= latencyQosMinSamples (10000) samples in the window, else a
            // p99.9 above it with >= latencyQosMinSamplesP999 (2500) (what the default 5 reads/s fill a
            // 10-minute window with). Either means far more reads over the limit
            // than the 1 in 100 000 it allows. The `q` label says which.
            // Why this and not ssd_health_problem: docs/runbooks.md.
            expr: |||
              (
                (
                  (
                    (
                      ssd_probe_latency_quantile_seconds{q="0.9999"}
                        > on(instance, device, serial, op) group_left
                      ssd_latency_qos_target_seconds{q="0.99999"}
                    )
                    and on(instance, device, serial, block, op, window)
                    ssd_probe_window_samples >= %(latencyQosMinSamples)s
                  )
                  or
                  (
                    (
                      (
                        ssd_probe_latency_quantile_seconds{q="0.999"}
                          > on(instance, device, serial, op) group_left
                        ssd_latency_qos_target_seconds{q="0.99999"}
                      )
                      and on(instance, device, serial, block, op, window)
                      ssd_probe_window_samples >= %(latencyQosMinSamplesP999)s
                    )
                    unless on(instance, device, serial, block, op, window)
                    (
                      ssd_probe_latency_quantile_seconds{q="0.9999"}
                      and on(instance, device, serial, block, op, window)
                      ssd_probe_window_samples >= %(latencyQosMinSamples)s
                    )
                  )
                )
                unless on(instance, device, serial) ssd_health_problem{problem="latency_above_qos", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdLatencyAboveQos,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} on {{ $labels.instance }}: {{ if eq $labels.q "0.999" }}p99.9{{ else }}p99.99{{ end }} {{ $labels.op }} latency {{ $value | humanizeDuration }} above datasheet QoS',
              description: lib.fold(|||
                The probe's 4 KiB QD1 {{ $labels.op }} latency on {{ $labels.block }}
                ({{ $labels.model }}, serial {{ $labels.serial }}) on {{ $labels.instance }} has a
                {{ if eq $labels.q "0.999" }}p99.9{{ else }}p99.99{{ end }} of {{ $value | humanizeDuration }} over the last {{ $labels.window }}, above
                the datasheet's p99.999 limit of
                {{ with printf `ssd_latency_qos_target_seconds{instance=%%q,device=%%q,serial=%%q,op=%%q}` $labels.instance $labels.device $labels.serial $labels.op | query }}{{ . | first | value | humanizeDuration }}{{ end }},
                for %(forWords)s.
              ||| % (f { forWords: lib.words(c.alertFor.SsdLatencyAboveQos) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdlatencyaboveqos',
            },
          },

          // ----------------------------------------------------------- collection

          {
            alert: 'SsdDeviceDown',
            expr: |||
              (
                (ssd_device_up == 0)
                unless on(instance, device, serial) ssd_health_problem{problem="poll_failing", severity="muted"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdDeviceDown,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} cannot read the health log of {{ $labels.device }}',
              description: lib.fold(|||
                Polls of {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} have failed to read its SMART/Health data for %(forWords)s;
                its health series are stale.
              ||| % (f { forWords: lib.words(c.alertFor.SsdDeviceDown) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssddevicedown',
            },
          },

          {
            alert: 'SsdPollErrors',
            // A page (`source`) that keeps failing. One failure keeps the 15m
            // increase above 0 for less than 15 minutes, so `for: 30m` needs
            // failures recurring for half an hour: a single blip never fires.
            // A source's counter is served from its first failure on (zero
            // counts are lazy), so that first failure is the series appearing:
            // `unless ... offset` sees it, where increase() needs two samples.
            expr: |||
              (
                increase(ssd_poll_errors_total[%(pollErrorsWindow)s]) > 0
                or (ssd_poll_errors_total unless ssd_poll_errors_total offset %(pollErrorsWindow)s) > 0
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdPollErrors,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} keeps failing to read {{ $labels.source }} from {{ $labels.device }}',
              description: lib.fold(|||
                Reading {{ $labels.source }} from {{ $labels.model }} {{ $labels.device }}
                (serial {{ $labels.serial }}) on {{ $labels.instance }} failed
                {{ $value | printf "%%.0f" }} time(s) in %(pollErrorsLast)s and has kept failing
                for %(forWords)s. The values from that page are stale.
              ||| % (f { forWords: lib.words(c.alertFor.SsdPollErrors) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdpollerrors',
            },
          },

          {
            alert: 'SsdPollStale',
            // Ten default poll intervals (60 s) without a successful poll while the
            // drive is not reported down (that is SsdDeviceDown): a stuck poller.
            // A SATA drive in standby is deliberately not polled (its timestamp
            // ages too), so it is left out while it sleeps.
            expr: |||
              (
                time() - ssd_last_poll_timestamp_seconds > %(pollStaleSeconds)s
                unless on(instance, device, serial) (ssd_device_up == 0)
                unless on(instance, device, serial) ssd_power_mode{mode="standby"}
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            ||| % f,
            'for': c.alertFor.SsdPollStale,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} has not polled {{ $labels.device }} for {{ $value | humanizeDuration }}',
              description: lib.fold(|||
                The last successful poll of {{ $labels.model }} {{ $labels.device }}
                (serial {{ $labels.serial }}) on {{ $labels.instance }} was
                {{ $value | humanizeDuration }} ago (alert after %(pollStaleSeconds)s s%(pollStaleNote)s).
                Every value served for this drive is that old.
              ||| % f),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdpollstale',
            },
          },

          {
            alert: 'SsdExporterTaskRestarts',
            // A drive's poll loop or latency probe panicked (or its probe ended)
            // and was restarted by the exporter's supervision. Each restart is a
            // bug or a device the exporter cannot handle; it keeps watching, but
            // something is wrong. The 1h increase keeps it firing for an hour.
            // A task's counter is served from its first restart on (zero counts
            // are lazy): the series appearing is that restart, which
            // `unless ... offset 1h` sees for an hour, where increase() cannot.
            expr: |||
              (
                increase(ssd_exporter_task_restarts_total[1h]) > 0
                or (ssd_exporter_task_restarts_total unless ssd_exporter_task_restarts_total offset 1h) > 0
              )
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} restarted the {{ $labels.task }} task of {{ $labels.device }}',
              description: lib.fold(|||
                The {{ $labels.task }} task of {{ $labels.model }} {{ $labels.device }}
                (serial {{ $labels.serial }}) on {{ $labels.instance }} ended unexpectedly and was
                restarted {{ $value | printf "%.0f" }} time(s) in the last hour. The exporter's
                log has the reason.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdexportertaskrestarts',
            },
          },

          {
            alert: 'SsdDeviceVanished',
            // A drive's series are removed when its device node goes away, which is
            // also what a drive that dropped off the bus looks like. Fires for up
            // to an hour after a drive disappeared from a running exporter. Matched
            // on serial alone, so a drive renamed by a reboot (sdb -> sdc) is not
            // "gone".
            expr: |||
              last_over_time(ssd_device_info[1h])
              unless on(instance, serial) ssd_device_info
              and on(instance) (up{%(ssdExporterSelector)s} == 1)
            ||| % f,
            'for': c.alertFor.SsdDeviceVanished,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'SSD {{ $labels.device }} disappeared from {{ $labels.instance }}',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}) on
                {{ $labels.instance }} was monitored within the last hour and is gone, while the
                exporter still runs: it was removed, or it dropped off the bus.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssddevicevanished',
            },
          },

          // ------------------------------------------------------------- exporter
          // Per target, not per drive: no device or serial exists here.

          {
            alert: 'SsdExporterDown',
            // The exporter's own targets: ssdExporterSelector, job="ssd_exporter" by
            // default (alerts/README.md, "The job name").
            expr: 'up{%(ssdExporterSelector)s} == 0' % f,
            'for': c.alertFor.SsdExporterDown,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} is down',
              description: lib.fold(|||
                Prometheus has failed to scrape ssd_exporter on {{ $labels.instance }} for
                %(forWords)s. No drive on that host is being watched.
              ||| % (f { forWords: lib.words(c.alertFor.SsdExporterDown) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdexporterdown',
            },
          },

          {
            alert: 'SsdExporterAbsent',
            expr: 'absent(up{%(ssdExporterSelector)s})' % f,
            'for': c.alertFor.SsdExporterAbsent,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'No ssd_exporter target is being scraped',
              description: lib.fold(|||
                Prometheus has had no target %(exporterTargets)s for %(forWords)s, so no SSD
                anywhere is being watched and no other SSD alert can fire.
              ||| % (f { forWords: lib.words(c.alertFor.SsdExporterAbsent) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdexporterabsent',
            },
          },

          {
            alert: 'SsdExporterNoDevices',
            expr: 'ssd_exporter_devices == 0',
            'for': c.alertFor.SsdExporterNoDevices,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} monitors no drives',
              description: lib.fold(|||
                ssd_exporter on {{ $labels.instance }} is up but has found no drive to watch
                for %(forWords)s.
              ||| % (f { forWords: lib.words(c.alertFor.SsdExporterNoDevices) })),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdexporternodevices',
            },
          },

          {
            alert: 'SsdExporterStateErrors',
            // The state file (docs/state.md) could not be read, believed or
            // written: after the next restart a counter that rose while the
            // exporter was down may be taken as the new baseline. A failure at
            // start (a damaged file, an unusable directory) is counted once, before
            // Prometheus has a sample to compare with, so it is caught by the
            // process having started within the hour.
            expr: |||
              increase(ssd_exporter_state_errors_total[1h]) > 0
              or (
                ssd_exporter_state_errors_total > 0
                and on(instance, job) (time() - process_start_time_seconds) < 3600
              )
            |||,
            labels: {
              severity: 'warning',
            },
            annotations: {
              summary: 'ssd_exporter on {{ $labels.instance }} could not {{ $labels.op }} its state file',
              description: lib.fold(|||
                ssd_exporter on {{ $labels.instance }} counts {{ $value | printf "%.0f" }} state file
                {{ $labels.op }} failure(s) within the last hour or since its start. Its log names the
                file and the reason.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdexporterstateerrors',
            },
          },

          // ------------------------------------------------------------- catch-all

          {
            alert: 'SsdHealthCritical',
            // The exporter's own verdict. Most of its critical problems have their
            // own alert above; this one also catches the rest (a failed self-test,
            // wear out, read-only) and lists every critical problem by name.
            expr: |||
              (ssd_health_status == 2)
              * on(instance, device, serial) group_left(model, firmware) ssd_device_info
            |||,
            'for': c.alertFor.SsdHealthCritical,
            labels: {
              severity: 'critical',
            },
            annotations: {
              summary: 'ssd_exporter judges SSD {{ $labels.device }} on {{ $labels.instance }} critical',
              description: lib.fold(|||
                {{ $labels.model }} {{ $labels.device }} (serial {{ $labels.serial }}, firmware
                {{ $labels.firmware }}) on {{ $labels.instance }} is critical; problems:
                {{ range $i, $p := printf `ssd_health_problem{instance=%q,device=%q,serial=%q,severity="critical"}` $labels.instance $labels.device $labels.serial | query | sortByLabel "problem" }}{{ if $i }}, {{ end }}{{ $p.Labels.problem }}{{ end }}.
              |||),
              runbook_url: 'https://github.com/ssd-exporter/ssd_exporter/blob/main/docs/runbooks.md#ssdhealthcritical',
            },
          },

        ]),
      },
    ],
  },
}
