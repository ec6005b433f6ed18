// The drive dashboard: one drive in detail, everything the exporter says about it.
// `c` is the mixin's _config (its ssdSelector reaches every selector).
local lib = import '../lib.libsonnet';
local nvmeDepth = import 'nvme_depth.libsonnet';
local panels = import 'panels.libsonnet';

function(c)
  local p = panels.new(c);
  local sel = p.sel;
  local q = p.q;
  local th = p.thresholds;
  local year = 365 * 86400;
  local rate(metric, matchers=[]) = 'rate(' + sel(metric, matchers) + '[$__rate_interval])';
  local increase(metric, matchers=[]) = 'increase(' + sel(metric, matchers) + '[$__rate_interval])';
  local setMap = p.valueMap([[0, 'clear', 'green'], [1, 'SET', 'red']]);

  local identity = [
    p.row('Drive'),
    p.add(p.table('Identity',
                  'What the drive says it is (Identify data): transport, model, firmware, '
                  + 'serial and WWN; and where it sits, where sysfs says: PCI address and slot '
                  + '(NVMe), SAS address and the phy it is attached through, enclosure and bay, '
                  + 'the by-path name, the fabric of a remote NVMe target.',
                  [q(sel('ssd_device_info'), instant=true, format='table')],
                  transformations=[p.organize(hide=['Value'],
                                              order=[
                                                'instance',
                                                'device',
                                                'transport',
                                                'model',
                                                'firmware',
                                                'serial',
                                                'wwn',
                                                'enclosure',
                                                'slot',
                                                'pci_address',
                                                'sas_address',
                                                'sas_phy',
                                                'path',
                                                'fabric',
                                              ])],
                  deviceLink=false), 12, 4),
    p.add(p.stat('Verdict',
                 "The exporter's verdict on the drive: ok, warning, critical or unknown "
                 + '(no core health data and nothing critical known).',
                 [q(sel('ssd_health_status'), 'verdict', instant=true)],
                 mappings=p.healthMap,
                 steps=th('green', [['yellow', 1], ['red', 2]])), 3, 4),
    p.add(p.stat('SMART status',
                 "The drive's own overall assessment (NVMe: no critical warning bit set; "
                 + 'SATA: SMART RETURN STATUS).',
                 [q(sel('ssd_smart_passed'), 'SMART', instant=true)],
                 mappings=p.valueMap([[0, 'FAILED', 'red'], [1, 'PASSED', 'green']])), 3, 4),
    p.add(p.stat('Capacity',
                 'User capacity.',
                 [q(sel('ssd_capacity_bytes'), 'capacity', instant=true)],
                 'bytes'), 3, 4),
    p.add(p.stat('Last self-test',
                 "Result of the newest entry in the drive's self-test log.",
                 [q(sel('ssd_self_test_last_result') + ' == 1', '{{result}}', instant=true)],
                 textMode='name'), 3, 4),
    p.add(p.table('Active problems',
                  'Each problem the verdict sees (ssd_health_problem) and its severity; "muted": '
                  + "muted for this drive in the exporter's config, not counted in the verdict.",
                  [q(p.withModel(sel('ssd_health_problem')), instant=true, format='table')],
                  transformations=[p.organize(hide=[
                                                'Value',
                                                'instance',
                                                'device',
                                                'serial',
                                                'model',
                                                'firmware',
                                              ],
                                              order=['severity', 'problem'])],
                  overrides=[p.override('byName', 'severity', {
                    mappings: p.severityMap,
                    'custom.cellOptions': { type: 'color-text' },
                  })],
                  sortBy=[['severity', false]],
                  deviceLink=false), 8, 7),
    p.add(p.table('Not judged',
                  'What the verdict could not judge because the drive does not report it '
                  + '(ssd_health_unknown).',
                  [q(sel('ssd_health_unknown'), instant=true, format='table')],
                  transformations=[p.organize(hide=['Value', 'instance', 'device', 'serial'])],
                  deviceLink=false), 4, 7),
    p.add(p.stat('Power-on time and cycles',
                 'Lifetime power-on time and power cycles.',
                 [
                   q(sel('ssd_power_on_seconds_total'), 'powered on', instant=true),
                   q(sel('ssd_power_cycles_total'), 'power cycles', instant=true),
                 ],
                 's',
                 overrides=[p.override('byFrameRefID', 'B', { unit: 'none' })]), 4, 7),
    p.add(p.stateTimeline('Verdict and critical warnings over time',
                          'The verdict and each critical-warning bit the drive reports '
                          + '(NVMe log 02h byte 0, endurance group byte 6).',
                          [
                            q(sel('ssd_health_status'), 'verdict'),
                            q(sel('ssd_critical_warning'), '{{condition}}'),
                            q(sel('ssd_endurance_group_critical_warning'),
                              'endurance group {{condition}}'),
                          ],
                          p.healthMap,
                          steps=th('green', [['yellow', 1], ['red', 2]]),
                          overrides=[
                            p.override('byFrameRefID', 'B', { mappings: setMap }),
                            p.override('byFrameRefID', 'C', { mappings: setMap }),
                          ],
                          link=false), 8, 7),
  ];

  local wear = [
    p.row('Wear and spare'),
    p.add(p.stat('Percentage used',
                 'Wear against the rated life; may go beyond 100 %.',
                 [q(sel('ssd_percentage_used_ratio'), 'used', instant=true)],
                 'percentunit',
                 steps=th('green', [['yellow', 0.8], ['red', 1]])), 4, 4),
    p.add(p.stat('Wear-out forecast',
                 'Time until percentage used reaches 100 % at the rate seen so far.',
                 [q(sel('ssd_wearout_estimated_seconds'), 'wear-out in', instant=true)],
                 's',
                 steps=th('red', [['yellow', 30 * 86400], ['green', year]])), 4, 4),
    p.add(p.stat('Endurance used',
                 "Host bytes written over the datasheet's rated endurance (known models).",
                 [q(sel('ssd_endurance_used_ratio'), 'endurance', instant=true)],
                 'percentunit',
                 steps=th('green', [['yellow', 0.8], ['red', 1]])), 4, 4),
    p.add(p.timeseries('Available spare against its threshold',
                       'Remaining spare blocks and the threshold at which the drive raises its '
                       + 'critical warning (NVMe).',
                       [
                         q(sel('ssd_available_spare_ratio'), 'available spare'),
                         q(sel('ssd_available_spare_threshold_ratio'), 'threshold'),
                       ],
                       'percentunit',
                       min=0,
                       max=1,
                       link=false,
                       overrides=[p.override('byFrameRefID', 'B', p.dashedRed)]), 12, 8),
    p.add(p.timeseries('Wear over time',
                       'Percentage used and rated endurance used.',
                       [
                         q(sel('ssd_percentage_used_ratio'), 'percentage used'),
                         q(sel('ssd_endurance_used_ratio'), 'endurance used'),
                       ],
                       'percentunit',
                       min=0,
                       link=false), 12, 4),
  ];

  local warning = sel('ssd_temperature_threshold_celsius', ['level="warning"']);
  local critical = sel('ssd_temperature_threshold_celsius', ['level="critical"']);
  local composite = sel('ssd_temperature_celsius', ['sensor="composite"']);
  local temperature = [
    p.row('Temperature and throttling'),
    p.add(p.timeseries("Temperature against the drive's thresholds",
                       'Every sensor the drive reports and its own warning and critical '
                       + 'thresholds (dashed).',
                       [
                         q(sel('ssd_temperature_celsius'), 'sensor {{sensor}}'),
                         q(sel('ssd_temperature_threshold_celsius'), '{{level}} threshold'),
                       ],
                       'celsius',
                       link=false,
                       overrides=[p.override('byFrameRefID', 'B', p.dashedRed)]), 12, 9),
    p.add(p.stat('Headroom to the thresholds',
                 'Warning and critical threshold minus the composite temperature now.',
                 [
                   q(warning + ' - on(instance, device, serial) ' + composite,
                     'to warning',
                     instant=true),
                   q(critical + ' - on(instance, device, serial) ' + composite,
                     'to critical',
                     instant=true),
                 ],
                 'celsius',
                 steps=th('red', [['yellow', 0], ['green', 5]])), 4, 9),
    p.add(p.timeseries('Time above warning and critical temperature',
                       'Share of time the drive counted above its warning and critical '
                       + 'composite temperature.',
                       [
                         q(rate('ssd_temperature_above_warning_seconds_total'), 'above warning'),
                         q(rate('ssd_temperature_above_critical_seconds_total'), 'above critical'),
                       ],
                       'percentunit',
                       min=0,
                       interval=p.pollRateInterval,
                       link=false), 8, 9),
    p.add(p.stateTimeline('Throttling now',
                          'When the drive said it was throttling (OCP log C0h).',
                          [q(sel('ssd_thermal_throttle_active'), 'throttling')],
                          p.valueMap([[0, 'no', 'green'], [1, 'throttling', 'red']]),
                          link=false), 12, 4),
    p.add(p.stat('Throttling, lifetime',
                 'Throttle events (OCP C0h; SATA vendor attribute), thermal-management '
                 + 'transitions and time by level (NVMe TMT1 light, TMT2 heavy).',
                 [
                   q(sel('ssd_thermal_throttle_events_total'), 'events', instant=true),
                   q(sel('ssd_thermal_throttle_transitions_total'),
                     '{{level}} transitions',
                     instant=true),
                   q(sel('ssd_thermal_throttle_seconds_total'), '{{level}} time', instant=true),
                 ],
                 'none',
                 overrides=[p.override('byFrameRefID', 'C', { unit: 's' })]), 12, 4),
    p.add(p.timeseries('Throttle events and transitions',
                       'New throttle events and thermal-management transitions per interval.',
                       [
                         q(increase('ssd_thermal_throttle_events_total'), 'events'),
                         q(increase('ssd_thermal_throttle_transitions_total'),
                           '{{level}} transitions'),
                       ],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 12),
    p.add(p.timeseries('Share of time throttled',
                       'Share of time in light (TMT1) and heavy (TMT2) thermal management.',
                       [q(rate('ssd_thermal_throttle_seconds_total'), '{{level}}')],
                       'percentunit',
                       min=0,
                       interval=p.pollRateInterval,
                       link=false), 12),
  ];

  local powerLoss = [
    p.row('Power loss'),
    p.add(p.stat('Volatile memory backup',
                 "The drive's critical warning for its volatile memory backup (the PLP "
                 + 'capacitors on drives with power-loss protection).',
                 [q(sel('ssd_critical_warning', ['condition="volatile_memory_backup"']),
                    'backup',
                    instant=true)],
                 mappings=p.valueMap([[0, 'OK', 'green'], [1, 'FAILED', 'red']])), 4, 8),
    p.add(p.stat('Unsafe shutdowns',
                 'Lifetime unsafe shutdowns, those in the time range, and on OCP drives '
                 + 'incomplete shutdowns and PLP starts.',
                 [
                   q(sel('ssd_unsafe_shutdowns_total'), 'lifetime', instant=true),
                   q('increase(' + sel('ssd_unsafe_shutdowns_total') + '[$__range])',
                     'in range',
                     instant=true),
                   q(sel('ssd_incomplete_shutdowns_total'), 'incomplete', instant=true),
                   q(sel('ssd_plp_starts_total'), 'PLP starts', instant=true),
                 ],
                 'none',
                 decimals=0), 6, 8),
    p.add(p.timeseries('Unsafe shutdowns and PLP starts',
                       'New unsafe shutdowns and PLP starts per interval.',
                       [
                         q(increase('ssd_unsafe_shutdowns_total'), 'unsafe shutdowns'),
                         q(increase('ssd_plp_starts_total'), 'PLP starts'),
                       ],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 7, 8),
    p.add(p.timeseries('PLP health',
                       'Capacitor health (OCP C0h; SATA attribute 195/175). The verdict '
                       + 'turns critical below 50 %.',
                       [q(sel('ssd_plp_health_ratio'), 'PLP health')],
                       'percentunit',
                       min=0,
                       max=1,
                       link=false), 7, 8),
  ];

  local io = [
    p.row('Reads and writes'),
    p.add(p.timeseries('Writes: host and NAND',
                       'Bytes written by the host and by the drive to its NAND, per second.',
                       [
                         q(rate('ssd_host_written_bytes_total'), 'host'),
                         q(rate('ssd_nand_written_bytes_total'), 'NAND'),
                       ],
                       'Bps',
                       interval=p.pollRateInterval,
                       link=false), 8),
    p.add(p.timeseries('Reads: host and NAND',
                       'Bytes read by the host and by the drive from its NAND, per second.',
                       [
                         q(rate('ssd_host_read_bytes_total'), 'host'),
                         q(rate('ssd_nand_read_bytes_total'), 'NAND'),
                       ],
                       'Bps',
                       interval=p.pollRateInterval,
                       link=false), 8),
    p.add(p.timeseries('Write amplification',
                       "NAND over host bytes written in the past hour, and over the drive's "
                       + 'life.',
                       [
                         q('rate(' + sel('ssd_nand_written_bytes_total') + '[1h]) '
                           + '/ on(instance, device, serial) '
                           + '(rate(' + sel('ssd_host_written_bytes_total') + '[1h]) > 0)', 'past hour'),
                         q(sel('ssd_nand_written_bytes_total') + ' / on(instance, device, serial) '
                           + '(' + sel('ssd_host_written_bytes_total') + ' > 0)', 'lifetime'),
                       ],
                       'none',
                       min=0,
                       link=false), 8),
    p.add(p.timeseries('Commands',
                       'Read and write commands the host issued, per second.',
                       [
                         q(rate('ssd_host_read_commands_total'), 'reads'),
                         q(rate('ssd_host_write_commands_total'), 'writes'),
                       ],
                       'iops',
                       interval=p.pollRateInterval,
                       link=false), 12),
    p.add(p.timeseries('Controller busy',
                       'Share of time the controller was busy with I/O (NVMe).',
                       [q(rate('ssd_controller_busy_seconds_total'), 'busy')],
                       'percentunit',
                       min=0,
                       interval=p.pollRateInterval,
                       link=false), 12),
  ];

  // The probe latency's buckets as _config.nativeHistograms says Prometheus
  // stores them (lib.probeLatency).
  local latencyBuckets = lib.probeLatency(c).buckets;
  local reads = increase(latencyBuckets, ['op="read"']);
  local buckets = 'sum by (le, op) (' + rate(latencyBuckets) + ')';
  local probe = [
    p.row('Latency probe'),
    p.add(p.timeseries('Probe latency quantiles and the datasheet limit',
                       'Exact quantiles over the sliding window of 4 KiB QD1 probe I/Os, and '
                       + "the datasheet's QoS limit (dashed) for models that publish one.",
                       [
                         q(sel('ssd_probe_latency_quantile_seconds'), '{{block}} {{op}} p{{q}}'),
                         q(sel('ssd_latency_qos_target_seconds'), '{{op}} limit p{{q}}'),
                       ],
                       's',
                       log=true,
                       link=false,
                       overrides=[p.override('byFrameRefID', 'B', p.dashedRed)]), 12, 9),
    p.add(p.heatmap('Probe read latency distribution',
                    'Probe reads per latency bucket over time (10 µs to 10 s buckets).',
                    [q('sum by (le) (' + reads + ')', '{{le}}', format='heatmap')],
                    's'), 12, 9),
    p.add(p.timeseries('Probe latency from the histogram',
                       'Percentiles from the histogram buckets: coarser than the window '
                       + 'quantiles, but over any time range.',
                       [
                         q('histogram_quantile(' + x[0] + ', ' + buckets + ')', '{{op}} p' + x[1])
                         for x in [['0.5', '50'], ['0.99', '99'], ['0.999', '99.9']]
                       ],
                       's',
                       log=true,
                       link=false), 8),
    p.add(p.timeseries('Probe I/Os by result',
                       'Probe I/Os per second: ok, error, timeout.',
                       [q('sum by (op, result) (' + rate('ssd_probe_ios_total') + ')',
                          '{{op}} {{result}}')],
                       'ops',
                       link=false), 8),
    p.add(p.timeseries('Skipped probes by reason',
                       'Probes not issued per second: the drive was busy or in standby, or '
                       + 'could not be opened or read.',
                       [q('sum by (reason) (' + rate('ssd_probe_skipped_total') + ')', '{{reason}}')],
                       'ops',
                       link=false), 8),
    p.add(p.timeseries('Probe busy ratio',
                       "The probe's own share of the drive's busy time.",
                       [q(sel('ssd_probe_busy_ratio'), '{{block}}')],
                       'percentunit',
                       min=0,
                       link=false), 12),
    p.add(p.timeseries('Probe samples in the window',
                       'Probe I/Os behind the window quantiles: a p99.99 needs tens of '
                       + 'thousands.',
                       [q(sel('ssd_probe_window_samples'), '{{block}} {{op}}')],
                       'none',
                       link=false), 12),
  ];

  // Only the normalized value is served by default: the verdict judges it
  // against the threshold (worst, threshold and raw with metrics.diagnostics).
  local sata = [
    p.row('SATA attributes', collapsed=true),
    p.add(p.table('SATA SMART attributes',
                  "Every attribute's normalized value as the drive reports it, named as "
                  + 'smartctl names it (worst, threshold and raw with metrics.diagnostics: '
                  + 'true; the verdict judges the threshold either way).',
                  [q('max by (id, name) (' + sel('ssd_ata_attribute_value') + ')',
                     instant=true,
                     format='table')],
                  transformations=[
                    {
                      id: 'convertFieldType',
                      options: {
                        conversions: [{ targetField: 'id', destinationType: 'number' }],
                        fields: {},
                      },
                    },
                    p.organize(order=['id', 'name', 'Value'], rename={ Value: 'value' }),
                  ],
                  sortBy=[['id', false]],
                  deviceLink=false), 14, 14),
    p.add(p.timeseries('SATA normalized attribute values',
                       'Normalized values over time (100 or 200 is new; the drive fails an '
                       + 'attribute at its threshold).',
                       [q(sel('ssd_ata_attribute_value'), '{{id}} {{name}}')],
                       'none',
                       link=false), 10, 14),
  ];

  local scsi = [
    p.row('SAS / SCSI', collapsed=true),
    p.add(p.timeseries('SCSI errors per operation',
                       'Errors the drive corrected and could not correct per interval, by '
                       + 'operation (log pages 03h read, 02h write, 05h verify). The uncorrected '
                       + 'ones are also in media errors.',
                       [
                         q('sum by (op) (' + increase('ssd_scsi_errors_corrected_total') + ')',
                           'corrected {{op}}'),
                         q('sum by (op) (' + increase('ssd_scsi_errors_uncorrected_total') + ')',
                           'uncorrected {{op}}'),
                       ],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 9),
    p.add(p.timeseries('SAS phy errors',
                       'Link errors per interval, by phy and kind (log 18h): the cable, '
                       + 'backplane, expander or HBA port, not the media.',
                       [q('sum by (phy, kind) (' + increase('ssd_sas_phy_errors_total') + ')',
                          'phy {{phy}} {{kind}}')],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 9),
    p.add(p.stat('SCSI counters',
                 'Grown defect list entries (READ DEFECT DATA), non-medium errors (log 06h) '
                 + 'and start-stop cycles (log 0Eh), lifetime.',
                 [
                   q(sel('ssd_scsi_grown_defects'), 'grown defects', instant=true),
                   q(sel('ssd_scsi_non_medium_errors_total'), 'non-medium errors', instant=true),
                   q(sel('ssd_scsi_start_stop_cycles_total'), 'start-stop cycles', instant=true),
                 ],
                 'none'), 6),
  ];

  local lifetime = [
    ['ssd_media_errors_total', 'media'],
    ['ssd_crc_errors_total', 'CRC'],
    ['ssd_error_log_entries_total', 'error log'],
    ['ssd_uncorrectable_read_errors_total', 'uncorrectable reads'],
    ['ssd_soft_ecc_errors_total', 'soft ECC'],
    ['ssd_xor_recoveries_total', 'XOR recoveries'],
    ['ssd_end_to_end_detected_errors_total', 'end-to-end detected'],
    ['ssd_end_to_end_corrected_errors_total', 'end-to-end corrected'],
    ['ssd_pcie_correctable_errors_total', 'PCIe correctable'],
    ['ssd_pcie_link_retrainings_total', 'PCIe link retrainings'],
  ];
  local errors = [
    p.row('Errors'),
    p.add(p.timeseries('New errors',
                       'Errors counted per interval: media (NVMe; SATA 187), interface CRC '
                       + '(SATA 199), error-log entries, and on OCP drives uncorrectable reads '
                       + 'and PCIe correctable errors.',
                       [
                         q(increase('ssd_media_errors_total'), 'media'),
                         q(increase('ssd_crc_errors_total'), 'CRC'),
                         q(increase('ssd_error_log_entries_total'), 'error log entries'),
                         q(increase('ssd_uncorrectable_read_errors_total'), 'uncorrectable reads'),
                         q(increase('ssd_pcie_correctable_errors_total'), 'PCIe correctable'),
                       ],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 12),
    p.add(p.stat('Error counters, lifetime',
                 'Every error counter the drive reports, since it was made. An old count is '
                 + 'history; the verdict only flags a rise.',
                 [q(sel(m[0]), m[1], instant=true) for m in lifetime]
                 + [q(sel('ssd_bad_blocks'), 'bad blocks {{area}}', instant=true)],
                 'none'), 12),
  ];

  local speed = 'ssd_pcie_link_speed_transfers_per_second';
  local width = 'ssd_pcie_link_width_lanes';
  local pcie = [
    p.row('PCIe link'),
    p.add(p.timeseries('PCIe link speed and width',
                       "An NVMe drive's link now and at most (sysfs current_link_* and "
                       + "max_link_*). The verdict's pcie_link_degraded compares now with the "
                       + "lower of the drive's and its port's maxima: a drive in a slower slot "
                       + 'runs as built.',
                       [
                         q(sel(speed, ['link="current"']), 'speed now'),
                         q(sel(speed, ['link="max"']), 'speed at most'),
                         q(sel(width, ['link="current"']), 'lanes now'),
                         q(sel(width, ['link="max"']), 'lanes at most'),
                       ],
                       'si:T/s',
                       min=0,
                       link=false,
                       overrides=[p.override('byRegexp', 'lanes.*', {
                         unit: 'none',
                         'custom.axisPlacement': 'right',
                       })]), 12),
    p.add(p.timeseries('PCIe errors (AER)',
                       "AER error messages of the drive's PCI function per interval, by "
                       + 'severity: correctable ones the link retried; non-fatal (a transaction '
                       + "lost) and fatal (the link reset) ones are the verdict's "
                       + 'pcie_errors_increasing.',
                       [q('sum by (severity) (' + increase('ssd_pcie_errors_total') + ')',
                          '{{severity}}')],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 12),
  ];

  local polling = [
    p.row('Polling'),
    p.add(p.stateTimeline('Poll state',
                          "Whether each poll read the drive's SMART/Health data.",
                          [q(sel('ssd_device_up'), 'poll')],
                          p.valueMap([[0, 'down', 'red'], [1, 'up', 'green']]),
                          link=false), 6, 5),
    p.add(p.stateTimeline('SATA power mode',
                          'The power mode CHECK POWER MODE saw at each poll; a drive in '
                          + 'standby is not woken, and its poll is skipped.',
                          [q(sel('ssd_power_mode') + ' == 1', '{{mode}}')],
                          p.valueMap([[1, 'current', 'blue']]),
                          link=false), 6, 5),
    p.add(p.timeseries('Data age',
                       'Time since the last successful poll: how old the values are.',
                       [q('time() - ' + sel('ssd_last_poll_timestamp_seconds'), 'age')],
                       's',
                       min=0,
                       link=false), 12, 5),
    p.add(p.timeseries('Poll duration',
                       'How long the last poll took (the deadline, if it overran).',
                       [q(sel('ssd_poll_duration_seconds'), 'duration')],
                       's',
                       link=false), 6),
    p.add(p.timeseries('Poll CPU',
                       'CPU time the polling thread spends on this drive, as a share of one '
                       + 'core.',
                       [q(rate('ssd_poll_cpu_seconds_total'), 'CPU')],
                       'percentunit',
                       min=0,
                       interval=p.pollRateInterval,
                       link=false), 6),
    p.add(p.timeseries('Poll errors by source',
                       'Failed reads per second, by page or command.',
                       [q('sum by (source) (' + rate('ssd_poll_errors_total') + ')', '{{source}}')],
                       'none',
                       interval=p.pollRateInterval,
                       link=false), 6),
    p.add(p.timeseries('Polls and skipped polls',
                       'Polls per second, and polls skipped so as not to wake the drive.',
                       [
                         q(rate('ssd_polls_total'), 'polls'),
                         q('sum by (reason) (' + rate('ssd_poll_skipped_total') + ')',
                           'skipped: {{reason}}'),
                       ],
                       'none',
                       interval=p.pollRateInterval,
                       link=false), 6),
  ];

  p.dashboard(
    p.driveUid,
    'SSD drive',
    'One SSD in detail: identity, verdict, wear, temperature, power loss, I/O, '
    + 'latency probe, errors, PCIe link, polling, SATA attributes and SAS / SCSI '
    + 'counters.',
    identity + wear + temperature + powerLoss + io + nvmeDepth.drive(p) + probe + errors
    + pcie + polling + sata + scsi,
    p.variables(deviceMulti=false, instanceMulti=false),
    [{
      title: 'Fleet',
      type: 'link',
      url: p.fleetUrl + '?${datasource:queryparam}',
      icon: 'dashboard',
      keepTime: true,
      includeVars: false,
      targetBlank: false,
      asDropdown: false,
      tags: [],
      tooltip: 'Every drive',
    }],
  )
