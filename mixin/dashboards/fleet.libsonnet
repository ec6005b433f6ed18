// The fleet dashboard: which drives need attention, across every exporter.
// `c` is the mixin's _config (its ssdSelector reaches every selector).
local lib = import '../lib.libsonnet';
local nvmeDepth = import 'nvme_depth.libsonnet';
local panels = import 'panels.libsonnet';

function(c)
  local p = panels.new(c);
  local sel = p.sel;
  local q = p.q;
  local th = p.thresholds;
  local who = '{{instance}} {{device}}';
  local year = 365 * 86400;
  local top = '10';

  // How many series match, 0 rather than no data when none do.
  local count(expr) = 'count(' + expr + ') or vector(0)';

  // Composite temperature minus the drive's own warning threshold (°C).
  local tempVsWarning =
    sel('ssd_temperature_celsius', ['sensor="composite"']) + ' - on(instance, device, serial) '
    + sel('ssd_temperature_threshold_celsius', ['level="warning"']);

  local writeAmplification(window) =
    'rate(' + sel('ssd_nand_written_bytes_total') + '[' + window + '])'
    + ' / on(instance, device, serial) '
    + '(rate(' + sel('ssd_host_written_bytes_total') + '[' + window + ']) > 0)';

  local drivesQueries = [
    q(p.withModel(sel('ssd_health_status')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_device_up')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_percentage_used_ratio')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_wearout_estimated_seconds')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_temperature_celsius', ['sensor="composite"'])),
      instant=true,
      format='table'),
    q(p.perDrive(tempVsWarning), instant=true, format='table'),
    q(p.perDrive(sel('ssd_unsafe_shutdowns_total')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_plp_health_ratio')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_media_errors_total')), instant=true, format='table'),
    q(p.perDrive(sel('ssd_pcie_link_speed_transfers_per_second', ['link="current"'])),
      instant=true,
      format='table'),
    q(p.perDrive(sel('ssd_pcie_link_width_lanes', ['link="current"'])),
      instant=true,
      format='table'),
    q(p.perDrive(sel('ssd_health_problem', ['problem="pcie_link_degraded"'])),
      instant=true,
      format='table'),
    // Last: where the drive sits, as labels (its value, 1, is hidden).
    q('max by (instance, device, serial, enclosure, slot) (' + sel('ssd_device_info') + ')',
      instant=true,
      format='table'),
  ];
  local drivesNames = [
    'Health',
    'Up',
    'Used',
    'Wear-out in',
    'Temp',
    'vs warning',
    'Unsafe shutdowns',
    'PLP health',
    'Media errors',
    'PCIe speed',
    'Lanes',
    'Link',
  ];
  local value(i) = 'Value #' + std.char(65 + i);

  local overview = [
    p.row('Overview'),
    p.add(p.stat('Drives by health status',
                 'Drives whose verdict (ssd_health_status) is ok, warning, critical or '
                 + 'unknown (no core health data and nothing critical known). '
                 + 'The reasons are in the problem table below.',
                 [
                   q(count(sel('ssd_health_status') + ' == 0'), 'OK', instant=true),
                   q(count(sel('ssd_health_status') + ' == 1'), 'Warning', instant=true),
                   q(count(sel('ssd_health_status') + ' == 2'), 'Critical', instant=true),
                   q(count(sel('ssd_health_status') + ' == 3'), 'Unknown', instant=true),
                 ],
                 'none',
                 steps=th('green'),
                 overrides=[
                   p.override('byFrameRefID', 'B', { thresholds: th('green', [['yellow', 1]]) }),
                   p.override('byFrameRefID', 'C', { thresholds: th('green', [['red', 1]]) }),
                   p.override('byFrameRefID', 'D', { thresholds: th('green', [['purple', 1]]) }),
                 ]),
          8,
          5),
    p.add(p.stat('Drives and exporters',
                 'Drives known to the selected exporters (ssd_device_info), and exporters '
                 + 'answering (ssd_exporter_build_info).',
                 [
                   q(count(sel('ssd_device_info')), 'Drives', instant=true),
                   q(count(p.selInstance('ssd_exporter_build_info')), 'Exporters', instant=true),
                 ],
                 'none'), 5, 5),
    p.add(p.stateTimeline('Health status over time',
                          "Each drive's verdict: ok, warning, critical or unknown.",
                          [q('max by (instance, device) (' + sel('ssd_health_status') + ')', who)],
                          p.healthMap,
                          steps=th('green', [['yellow', 1], ['red', 2]])),
          11,
          5),
    p.add(p.table('Active problems',
                  "One row per problem the exporter's verdict sees (ssd_health_problem; severity "
                  + '"muted": muted for that drive in the exporter\'s config, not in its verdict), '
                  + "with the drive's model and firmware. Click a device for its drive view.",
                  [q(p.withModel(sel('ssd_health_problem')), instant=true, format='table')],
                  transformations=[p.organize(hide=['Value'],
                                              order=[
                                                'instance',
                                                'device',
                                                'model',
                                                'firmware',
                                                'serial',
                                                'severity',
                                                'problem',
                                              ])],
                  overrides=[p.override('byName', 'severity', {
                    mappings: p.severityMap,
                    'custom.cellOptions': { type: 'color-text' },
                  })],
                  sortBy=[['severity', false]]), 24, 7),
    p.add(p.table('Drives',
                  'Every drive: where it sits (enclosure and slot: the PCI slot of an NVMe '
                  + 'drive, the enclosure bay of a SAS/SATA disk), verdict, whether its last '
                  + 'poll worked, wear, forecast, composite temperature and its distance to the '
                  + "drive's warning threshold (negative: below), lifetime unsafe shutdowns, PLP "
                  + "health, media errors, and an NVMe drive's PCIe link now (Link: degraded "
                  + 'below what the drive and its port can do). Empty cells: the drive does not '
                  + 'report it. Click a device for its drive view.',
                  drivesQueries,
                  transformations=[p.merge, p.organize(
                    hide=[value(std.length(drivesNames))],
                    order=[
                      'instance',
                      'device',
                      'enclosure',
                      'slot',
                      'model',
                      'firmware',
                      'serial',
                    ] + [value(i) for i in std.range(0, std.length(drivesNames) - 1)],
                    rename={ [value(i)]: drivesNames[i] for i in std.range(0, std.length(drivesNames) - 1) }
                  )],
                  overrides=[
                    p.override('byName', 'Health', {
                      mappings: p.healthMap,
                      'custom.cellOptions': { type: 'color-background' },
                    }),
                    p.override('byName', 'Up', {
                      mappings: p.valueMap([[0, 'down', 'red'], [1, 'up', 'green']]),
                      'custom.cellOptions': { type: 'color-text' },
                    }),
                    p.override('byName', 'Used', {
                      unit: 'percentunit',
                      thresholds: th('green', [['yellow', 0.8], ['red', 1]]),
                      'custom.cellOptions': { type: 'color-text' },
                    }),
                    p.override('byName', 'Wear-out in', { unit: 's' }),
                    p.override('byName', 'Temp', { unit: 'celsius' }),
                    p.override('byName', 'vs warning', {
                      unit: 'celsius',
                      thresholds: th('green', [['yellow', -5], ['red', 0]]),
                      'custom.cellOptions': { type: 'color-text' },
                    }),
                    p.override('byName', 'PLP health', {
                      unit: 'percentunit',
                      thresholds: th('red', [['yellow', 0.5], ['green', 0.8]]),
                      'custom.cellOptions': { type: 'color-text' },
                    }),
                    p.override('byName', 'PCIe speed', { unit: 'si:T/s' }),
                    p.override('byName', 'Link', {
                      mappings: p.valueMap([[1, 'degraded', 'orange']]),
                      'custom.cellOptions': { type: 'color-text' },
                    }),
                  ],
                  sortBy=[['Health', true]]), 24, 10),
  ];

  local wear = [
    p.row('Wear and endurance'),
    p.add(p.bargauge('Most worn drives',
                     "Percentage used (NVMe log 02h; SATA Device Statistics or the family's "
                     + 'life attribute), highest first. 100 % is the rated life; it may go beyond.',
                     [q('topk(' + top + ', ' + sel('ssd_percentage_used_ratio') + ')', who, instant=true)],
                     'percentunit',
                     min=0,
                     max=1,
                     steps=th('green', [['yellow', 0.8], ['red', 1]])), 8),
    p.add(p.bargauge('Shortest wear-out forecast',
                     'Time until percentage used reaches 100 % at the rate seen so far '
                     + '(ssd_wearout_estimated_seconds), shortest first.',
                     [q('bottomk(' + top + ', ' + sel('ssd_wearout_estimated_seconds') + ')',
                        who,
                        instant=true)],
                     's',
                     min=0,
                     steps=th('red', [['yellow', 30 * 86400], ['green', year]])), 8),
    p.add(p.bargauge('Endurance used against the rated writes',
                     'Host bytes written over the datasheet endurance (TBW or DWPD × warranty), '
                     + 'for models the exporter knows the rating of.',
                     [q('topk(' + top + ', ' + sel('ssd_endurance_used_ratio') + ')', who, instant=true)],
                     'percentunit',
                     min=0,
                     max=1,
                     steps=th('green', [['yellow', 0.8], ['red', 1]])), 8),
    p.add(p.timeseries('Percentage used',
                       'Wear of each drive over time, labelled with its model.',
                       [q(p.withModel(sel('ssd_percentage_used_ratio')), who + ' {{model}}')],
                       'percentunit',
                       min=0), 16),
    p.add(p.bargauge('Spare above its threshold',
                     "Available spare minus the drive's own spare threshold (NVMe), lowest "
                     + 'first. Below 0 the drive raises its critical warning.',
                     [q('bottomk(' + top + ', ' + sel('ssd_available_spare_ratio')
                        + ' - on(instance, device, serial) '
                        + sel('ssd_available_spare_threshold_ratio') + ')', who, instant=true)],
                     'percentunit',
                     min=0,
                     max=1,
                     steps=th('red', [['yellow', 0], ['green', 0.1]])), 8),
  ];

  local temperature = [
    p.row('Temperature'),
    p.add(p.timeseries("Temperature relative to the drive's warning threshold",
                       "Composite temperature minus the drive's own warning threshold "
                       + '(NVMe WCTEMP; SATA maximum operating temperature). Above 0 the drive '
                       + 'is hotter than it is specified for.',
                       [q(tempVsWarning, who)],
                       'celsius',
                       lineAt=0), 12),
    p.add(p.bargauge('Closest to the warning threshold',
                     'Composite temperature minus the warning threshold now, hottest first.',
                     [q('topk(' + top + ', ' + tempVsWarning + ')', who, instant=true)],
                     'celsius',
                     steps=th('green', [['yellow', -5], ['red', 0]])), 6),
    p.add(p.timeseries('Time above the warning temperature',
                       'Share of time each drive spent above its warning temperature, '
                       + 'as the drive counts it.',
                       [q('rate(' + sel('ssd_temperature_above_warning_seconds_total')
                          + '[$__rate_interval])', who)],
                       'percentunit',
                       min=0,
                       interval=p.pollRateInterval), 6),
    p.add(p.timeseries('Composite temperature',
                       "The drive's composite temperature (SATA: its one reading).",
                       [q(sel('ssd_temperature_celsius', ['sensor="composite"']), who)],
                       'celsius'), 12),
    p.add(p.timeseries('Hottest sensor',
                       "The highest of each drive's temperature sensors (NVMe sensors 1-8 "
                       + 'and composite).',
                       [q('max by (instance, device) (' + sel('ssd_temperature_celsius') + ')', who)],
                       'celsius'), 12),
  ];

  local throttling = [
    p.row('Thermal throttling'),
    p.add(p.stat('Throttling now',
                 'Drives that report throttling at their last poll (OCP log C0h).',
                 [q(count(sel('ssd_thermal_throttle_active') + ' == 1'), 'drives', instant=true)],
                 'none',
                 steps=th('green', [['red', 1]])), 4, 6),
    p.add(p.stateTimeline('Thermal throttling active',
                          'When each drive said it was throttling (OCP log C0h).',
                          [q(sel('ssd_thermal_throttle_active'), who)],
                          p.valueMap([[0, 'no', 'green'], [1, 'throttling', 'red']])), 10, 6),
    p.add(p.bargauge('Most throttle events in the time range',
                     "Throttle events counted by the drive during the dashboard's time range "
                     + '(OCP C0h; SATA vendor attribute).',
                     [q('topk(' + top + ', increase(' + sel('ssd_thermal_throttle_events_total')
                        + '[$__range]))', who, instant=true)],
                     'none',
                     steps=th('green', [['yellow', 1]])), 10, 6),
    p.add(p.timeseries('Throttle events',
                       'New throttle events per interval.',
                       [q('increase(' + sel('ssd_thermal_throttle_events_total')
                          + '[$__rate_interval])', who)],
                       'none',
                       interval=p.pollRateInterval), 8),
    p.add(p.timeseries('Thermal-management transitions',
                       'Transitions into light (TMT1) and heavy (TMT2) host-controlled '
                       + 'thermal management per interval (NVMe).',
                       [q('increase(' + sel('ssd_thermal_throttle_transitions_total')
                          + '[$__rate_interval])', who + ' {{level}}')],
                       'none',
                       interval=p.pollRateInterval), 8),
    p.add(p.timeseries('Share of time throttled',
                       'Share of time in light (TMT1) and heavy (TMT2) thermal management.',
                       [q('rate(' + sel('ssd_thermal_throttle_seconds_total')
                          + '[$__rate_interval])', who + ' {{level}}')],
                       'percentunit',
                       min=0,
                       interval=p.pollRateInterval), 8),
  ];

  local powerLoss = [
    p.row('Power loss: unsafe shutdowns and PLP'),
    p.add(p.stat('Volatile memory backup failed',
                 'Drives whose critical warning says the volatile memory backup (the PLP '
                 + 'capacitors) failed: cached writes are not safe from a power cut.',
                 [q(count(sel('ssd_critical_warning', ['condition="volatile_memory_backup"'])
                          + ' == 1'), 'drives', instant=true)],
                 'none',
                 steps=th('green', [['red', 1]])), 4, 8),
    p.add(p.bargauge('Lowest PLP health',
                     'Capacitor health of drives with power-loss protection (OCP C0h; SATA '
                     + 'attribute 195/175), lowest first. The verdict turns critical below 50 %.',
                     [q('bottomk(' + top + ', ' + sel('ssd_plp_health_ratio') + ')', who, instant=true)],
                     'percentunit',
                     min=0,
                     max=1,
                     steps=th('red', [['yellow', 0.5], ['green', 0.8]])), 6, 8),
    p.add(p.bargauge('Unsafe shutdowns in the time range',
                     'Power lost without a clean shutdown during the time range, most first.',
                     [q('topk(' + top + ', increase(' + sel('ssd_unsafe_shutdowns_total')
                        + '[$__range]))', who, instant=true)],
                     'none',
                     steps=th('green', [['yellow', 1]])), 6, 8),
    p.add(p.timeseries('Unsafe shutdowns',
                       'New unsafe shutdowns per interval.',
                       [q('increase(' + sel('ssd_unsafe_shutdowns_total') + '[$__rate_interval])',
                          who)],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval), 8, 8),
  ];

  local p9999 = sel('ssd_probe_latency_quantile_seconds', ['q="0.9999"']);
  local limit = sel('ssd_latency_qos_target_seconds', ['q="0.99999"']);
  local readP9999 = sel('ssd_probe_latency_quantile_seconds', ['op="read"', 'q="0.9999"']);
  // The probe latency's buckets as _config.nativeHistograms says Prometheus
  // stores them (lib.probeLatency).
  local buckets = 'sum by (le, op) (rate(' + sel(lib.probeLatency(c).buckets)
                  + '[$__rate_interval]))';
  local vsPeers = 'model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_vs_peers';
  local latency = [
    p.row('Latency probe'),
    p.add(p.timeseries('Fleet probe latency',
                       'Percentiles of every 4 KiB QD1 probe I/O of the selected drives, from '
                       + 'the shared histogram buckets (resolution: the bucket bounds).',
                       [
                         q('histogram_quantile(' + x[0] + ', ' + buckets + ')', '{{op}} p' + x[1])
                         for x in [['0.5', '50'], ['0.99', '99'], ['0.999', '99.9']]
                       ],
                       's',
                       log=true,
                       link=false), 8),
    p.add(p.timeseries('Worst drive per quantile against the tightest limit',
                       'For each quantile q, the highest sliding-window value of any selected '
                       + 'drive (ssd_probe_latency_quantile_seconds), and dashed the tightest '
                       + 'datasheet limit among them (ssd_latency_qos_target_seconds).',
                       [
                         q('max by (op, q) (' + sel('ssd_probe_latency_quantile_seconds') + ')',
                           '{{op}} p{{q}} worst drive'),
                         q('min by (op, q) (' + sel('ssd_latency_qos_target_seconds') + ')',
                           '{{op}} p{{q}} limit'),
                       ],
                       's',
                       log=true,
                       link=false,
                       overrides=[p.override('byFrameRefID', 'B', p.dashedRed)]), 8),
    p.add(p.timeseries('Window p99.99 against the datasheet QoS limit',
                       "Each drive's sliding-window p99.99 over its datasheet's p99.999 limit "
                       + '(ssd_latency_qos_target_seconds), for models with a published limit. '
                       + 'Above 1 the drive misses its QoS, as the latency_above_qos problem says.',
                       [q('max by (instance, device, serial, op) (' + p9999 + ')'
                          + ' / on(instance, device, serial, op) ' + limit,
                          who + ' {{op}}')],
                       'percentunit',
                       min=0,
                       lineAt=1), 8),
    p.add(p.timeseries('Window p99 per drive',
                       "Exact read p99 over each probed block device's sliding window.",
                       [q(sel('ssd_probe_latency_quantile_seconds', ['op="read"', 'q="0.99"']),
                          who + ' {{block}}')],
                       's',
                       log=true), 12),
    p.add(p.bargauge('Worst window p99.99',
                     'Highest read p99.99 over the sliding window, worst first.',
                     [q('topk(' + top + ', ' + readP9999 + ')', who + ' {{block}}', instant=true)],
                     's'), 6),
    p.add(p.table('Datasheet QoS limits by model',
                  'The 4 KiB QD1 latency limits the exporter knows for the models present.',
                  [q('max by (model, op, q) (' + p.withModel(sel('ssd_latency_qos_target_seconds'))
                     + ')', instant=true, format='table')],
                  transformations=[p.organize(order=['model', 'op', 'q', 'Value'],
                                              rename={ Value: 'limit' })],
                  overrides=[p.override('byName', 'limit', { unit: 's' })],
                  deviceLink=false), 6),
    p.add(p.timeseries("Fail-slow: read p99 against the peers' median",
                       "Each drive's read p99 over 2 minutes (probe histogram) over the median of "
                       + 'the drives of its model and firmware: on its host where the host has '
                       + 'three or more, else across the fleet. Dashed: the factor SsdFailSlow '
                       + 'fires at (held for 4 minutes, then 15). Needs the rules of '
                       + 'alerts/fleet.rules.yml.',
                       [
                         q(sel(vsPeers), who + ' ({{peers}} peers)'),
                         q('max(ssd_exporter:fail_slow_factor)', 'SsdFailSlow factor'),
                       ],
                       'none',
                       log=true,
                       overrides=[p.override('byFrameRefID', 'B', p.dashedRed)]), 24),
  ];

  local writes = [
    p.row('Writes'),
    p.add(p.timeseries('Write amplification',
                       'NAND bytes written over host bytes written in the past hour (drives '
                       + 'that report NAND writes: OCP C0h, SATA vendor attribute). SATA counters '
                       + 'step in GiB, so an hour is the shortest window that reads well.',
                       [q(writeAmplification('1h'), who)],
                       'none',
                       min=0), 8),
    p.add(p.bargauge('Lifetime write amplification',
                     'NAND bytes over host bytes written since the drive was made, highest first.',
                     [q('topk(' + top + ', ' + sel('ssd_nand_written_bytes_total')
                        + ' / on(instance, device, serial) '
                        + '(' + sel('ssd_host_written_bytes_total') + ' > 0))', who, instant=true)],
                     'none',
                     min=0), 4),
    p.add(p.timeseries('Host writes',
                       'Bytes the host wrote to each drive, per second.',
                       [q('rate(' + sel('ssd_host_written_bytes_total') + '[$__rate_interval])', who)],
                       'Bps',
                       interval=p.pollRateInterval), 6),
    p.add(p.timeseries('Host reads',
                       'Bytes the host read from each drive, per second.',
                       [q('rate(' + sel('ssd_host_read_bytes_total') + '[$__rate_interval])', who)],
                       'Bps',
                       interval=p.pollRateInterval), 6),
  ];

  local errors = [
    p.row('Errors'),
    p.add(p.timeseries('New media errors',
                       'Unrecovered data integrity errors per interval (NVMe media errors; '
                       + 'SATA attribute 187). A rise, not an old count, is what matters.',
                       [q('increase(' + sel('ssd_media_errors_total') + '[$__rate_interval])', who)],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval), 9),
    p.add(p.timeseries('New interface CRC errors',
                       'SATA link CRC errors per interval (attribute 199): usually a cable or '
                       + 'backplane, not the drive.',
                       [q('increase(' + sel('ssd_crc_errors_total') + '[$__rate_interval])', who)],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval), 9),
    p.add(p.bargauge('New errors in the time range',
                     'Media and CRC errors counted during the time range, most first.',
                     [
                       q('topk(' + top + ', increase(' + sel('ssd_media_errors_total') + '[$__range]))',
                         who + ' media',
                         instant=true),
                       q('topk(' + top + ', increase(' + sel('ssd_crc_errors_total') + '[$__range]))',
                         who + ' CRC',
                         instant=true),
                     ],
                     'none',
                     steps=th('green', [['red', 1]])), 6),
    p.add(p.timeseries('New SAS phy errors',
                       'SAS link errors per interval and phy (log 18h: invalid dwords, running '
                       + 'disparity, loss of dword sync, phy reset problems): a cable, backplane, '
                       + "expander or HBA port, not the drive's media.",
                       [q('sum by (instance, device, phy) (increase('
                          + sel('ssd_sas_phy_errors_total') + '[$__rate_interval]))',
                          who + ' phy {{phy}}')],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval), 12),
    p.add(p.timeseries('SCSI grown defects',
                       "Entries in each SAS / SCSI drive's grown defect list (blocks it retired "
                       + 'in the field). A step up is what matters.',
                       [q(sel('ssd_scsi_grown_defects'), who)],
                       'none'), 12),
  ];

  local polling = [
    p.row('Polling'),
    p.add(p.stat('Drives not answering',
                 'Drives whose last poll failed (ssd_device_up = 0); their other series '
                 + 'keep the last good values.',
                 [q(count(sel('ssd_device_up') + ' == 0'), 'drives', instant=true)],
                 'none',
                 steps=th('green', [['red', 1]])), 4, 7),
    p.add(p.stateTimeline('Drive answering polls',
                          "Whether each drive's last poll read its SMART/Health data.",
                          [q(sel('ssd_device_up'), who)],
                          p.valueMap([[0, 'down', 'red'], [1, 'up', 'green']])), 8, 7),
    p.add(p.timeseries('Poll errors',
                       'Failed reads per second, by page or command (source).',
                       [q('sum by (instance, device, source) '
                          + '(rate(' + sel('ssd_poll_errors_total') + '[$__rate_interval]))',
                          who + ' {{source}}')],
                       'none',
                       interval=p.pollRateInterval), 6, 7),
    p.add(p.timeseries('Data age',
                       "Time since each drive's last successful poll: how old its values are.",
                       [q('time() - ' + sel('ssd_last_poll_timestamp_seconds'), who)],
                       's',
                       min=0), 6, 7),
    p.add(p.table('Exporters',
                  'Build and drive count of each selected exporter.',
                  [
                    q('max by (instance, version, revision) '
                      + '(' + p.selInstance('ssd_exporter_build_info') + ')', instant=true, format='table'),
                    q('sum by (instance) (' + p.selInstance('ssd_exporter_devices') + ')',
                      instant=true,
                      format='table'),
                  ],
                  transformations=[p.merge, p.organize(hide=['Value #A'],
                                                       order=['instance', 'version', 'revision'],
                                                       rename={ 'Value #B': 'drives' })],
                  deviceLink=false), 24, 6),
  ];

  p.dashboard(
    p.fleetUid,
    'SSD fleet',
    'Health, wear, temperature, power loss, latency and polling of every SSD that '
    + 'ssd_exporter watches. Click a drive for its own view.',
    overview + wear + temperature + throttling + powerLoss + latency + writes
    + nvmeDepth.fleet(p) + errors + polling,
    p.variables(deviceMulti=true),
    [{
      title: 'Drive view',
      type: 'link',
      url: p.driveUrl + '?${datasource:queryparam}',
      icon: 'dashboard',
      keepTime: true,
      includeVars: false,
      targetBlank: false,
      asDropdown: false,
      tags: [],
      tooltip: 'One drive in detail',
    }],
  )
