// Every selector and threshold of the mixin, in one place. Override any key:
//   (import 'mixin.libsonnet') + { _config+:: { ssdSelector: 'cluster="eu1"' } }
// mixin/README.md has the table; the defaults are what alerts/*.rules.yml
// are rendered with and what alerts/tests check.
{
  _config+:: {
    // ------------------------------------------------------------ selectors
    // The exporter's own scrape targets, for up{...}: SsdExporterDown,
    // SsdExporterAbsent and SsdDeviceVanished.
    ssdExporterSelector: 'job="ssd_exporter"',
    // Extra matchers added to every selector of an ssd_* metric in every
    // rule (expressions and the queries the annotations' templates make)
    // and dashboard query (recording rules' own series, names with a colon,
    // are left alone), e.g. 'cluster="eu1"'. Empty: none.
    ssdSelector: '',
    // Whether Prometheus stores the probe latency as a native histogram
    // (started with --enable-feature=native-histograms, so it scrapes the
    // protobuf format): the rules and dashboards then read the one series
    // ssd_probe_latency_seconds{op} instead of its classic _bucket and
    // _count series. false: the classic buckets (text scrapes, vmagent,
    // VictoriaMetrics, or Prometheus without the flag).
    nativeHistograms: false,

    // ------------------------------------------- thresholds of the alerts
    // Where the exporter's verdict has the same threshold (its `health:`
    // config), the default here is the exporter's default; keep them equal
    // or the landing page and `ssd_exporter check` disagree with the alerts.
    plpHealthLowRatio: 0.5,  // SsdPlpHealthLow below it; health.plp_health_critical
    spareLowFactor: 2,  // SsdSpareLow at or below this x the drive's threshold; health.spare_warning_factor
    wearHighRatio: 0.8,  // SsdWearHigh from it; health.wear_warning
    wearCriticalRatio: 0.9,  // SsdWearCritical from it; below health.wear_critical (1.0) on purpose
    wearOutForecastDays: 30,  // SsdWearOutForecast below it
    pollStaleSeconds: 600,  // SsdPollStale above it: ten default poll intervals
    latencyQosMinSamples: 10000,  // SsdLatencyAboveQos: samples a p99.99 needs
    latencyQosMinSamplesP999: 2500,  // SsdLatencyAboveQos: samples a p99.9 needs
    failSlowFactor: 5,  // SsdFailSlow: read p99 over the peers' median
    latencyDriftFactor: 3,  // SsdLatencyDrift: read p99 over its own 7-day median

    // ------------------------------------------------------------- windows
    counterWindow: '1h',  // a rise of a drive's error counters within it alerts
    throttleWindow: '15m',  // SsdThermalThrottling: a rise of throttle counts within it
    pollErrorsWindow: '15m',  // SsdPollErrors: increase() of poll errors over it

    // ---------------------------------------------- `for` of each alert
    // Alerts on counter rises (SsdUnsafeShutdowns, SsdMediaErrors, ...) have
    // none: a rise is an event, kept visible by its window.
    alertFor: {
      SsdCriticalWarning: '1m',
      SsdSmartFailed: '1m',
      SsdAttributeFailing: '5m',
      SsdPlpFailed: '1m',
      SsdPlpTestFailed: '1m',
      SsdPlpHealthLow: '2m',
      SsdSpareLow: '15m',
      SsdSpareBelowThreshold: '2m',
      SsdWearHigh: '15m',
      SsdWearCritical: '5m',
      SsdWearOutForecast: '1h',
      SsdMediaDiesOffline: '5m',
      SsdDriveReportedWarning: '15m',
      SsdPcieLinkDegraded: '15m',
      SsdThermalThrottling: '5m',
      SsdTemperatureWarning: '5m',
      SsdTemperatureCritical: '1m',
      SsdLatencyAboveQos: '15m',
      SsdDeviceDown: '10m',
      SsdPollErrors: '30m',
      SsdPollStale: '5m',
      SsdDeviceVanished: '5m',
      SsdExporterDown: '5m',
      SsdExporterAbsent: '15m',
      SsdExporterNoDevices: '15m',
      SsdHealthCritical: '5m',
      SsdFailSlow: '15m',
      SsdLatencyDrift: '30m',
    },
  },
}
