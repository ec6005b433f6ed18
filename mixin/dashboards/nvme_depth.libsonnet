// What an NVMe drive says about itself beyond SMART, in both dashboards: write
// amplification from the drive's own counters, endurance against the drive's
// own estimate, firmware waiting for the next reset, and a timeline of the
// persistent event log's events (ssd_pel_*), the telemetry captures and the
// OCP media dies. Each function takes the site's builders (panels.new(c)).
local who = '{{instance}} {{device}}';

// A state timeline with one lane per event type (and drive), lit in each
// interval its ssd_pel_events_total rose (0, no event, is transparent).
local eventTimeline(p, legend, by) =
  p.stateTimeline(
    'Event timeline',
    "When the drive's persistent event log (NVMe log 0Dh) gained events, per type: "
    + 'power-on or reset, firmware commit, thermal excursion, hardware error, SMART '
    + 'snapshot... Each event is counted once; the log is read with every identity '
    + 'refresh (every 10th poll). The drive page (/) lists the newest events with their '
    + 'details.',
    [p.q('sum by (' + by + ') (increase(' + p.sel('ssd_pel_events_total')
         + '[$__rate_interval]))', legend)],
    p.valueMap([[0, ' ', 'transparent']]),
    steps=p.thresholds('transparent', [['blue', 0.5], ['orange', 1.5], ['red', 5]])
  );

{
  drive(p):: [
    p.row('NVMe: endurance groups, firmware, events'),
    p.add(p.timeseries("Write amplification (the drive's own counters)",
                       "Media bytes written per host byte written, from the drive's "
                       + 'endurance group counters (log 09h), else OCP C0h physical media '
                       + 'writes over SMART host writes (ssd_write_amplification_ratio).',
                       [p.q(p.sel('ssd_write_amplification_ratio'), 'write amplification')],
                       'none',
                       min=0,
                       link=false), 8),
    p.add(p.timeseries('Endurance used against the rated endurance',
                       "Bytes written against the rated endurance: a user's value, the "
                       + "datasheet's, else the drive's own endurance group estimate (the "
                       + 'source is in the legend).',
                       [
                         p.q(p.sel('ssd_endurance_used_ratio') + ' * on(instance, device, serial) '
                             + 'group_left(source) (' + p.sel('ssd_rated_endurance_bytes') + ' * 0 + 1)',
                             'endurance used ({{source}})'),
                         p.q(p.sel('ssd_endurance_group_percentage_used_ratio'),
                             'group {{group}} percentage used'),
                       ],
                       'percentunit',
                       min=0,
                       link=false), 8),
    p.add(p.timeseries('Endurance group spare',
                       'Available spare of each endurance group (log 09h) and its threshold.',
                       [
                         p.q(p.sel('ssd_endurance_group_available_spare_ratio'),
                             'group {{group}} spare'),
                         p.q(p.sel('ssd_endurance_group_available_spare_threshold_ratio'),
                             'group {{group}} threshold'),
                       ],
                       'percentunit',
                       min=0,
                       max=1,
                       link=false), 8),
    p.add(p.table('Firmware slots',
                  'Each firmware slot holding an image (log 03h), the one running marked '
                  + 'active.',
                  [p.q(p.sel('ssd_firmware_slot_info'), instant=true, format='table')],
                  transformations=[p.organize(hide=['Value', 'instance', 'device', 'serial'],
                                              order=['slot', 'revision', 'active'])],
                  sortBy=[['slot', false]],
                  deviceLink=false), 6, 6),
    p.add(p.stat('Firmware activation pending',
                 'Whether the next controller reset activates another firmware slot '
                 + '(ssd_firmware_activation_pending).',
                 [p.q(p.sel('ssd_firmware_activation_pending'), 'pending', instant=true)],
                 mappings=p.valueMap([[0, 'no', 'green'], [1, 'at next reset', 'orange']])), 4, 6),
    p.add(p.stat('Telemetry captures',
                 'Controller-initiated telemetry (log 08h header): whether the drive holds '
                 + "internal state it saved on its own, and the capture's generation number. "
                 + 'A change of the generation is the warning drive_reported_internal_error.',
                 [
                   p.q(p.sel('ssd_telemetry_ctrl_data_available'),
                       'saved state waiting',
                       instant=true),
                   p.q(p.sel('ssd_telemetry_ctrl_generation'), 'generation', instant=true),
                 ],
                 mappings=p.valueMap([[0, 'none', 'green']])), 6, 6),
    p.add(p.bargauge('Media dies offline',
                     'OCP C0h: media dies offline against the die failure tolerance (dies '
                     + 'that may fail with the drive still working); at the tolerance the '
                     + 'verdict is critical.',
                     [
                       p.q(p.sel('ssd_media_dies_offline'), 'offline', instant=true),
                       p.q(p.sel('ssd_media_die_failure_tolerance'), 'tolerance', instant=true),
                     ],
                     'none',
                     min=0,
                     steps=p.thresholds('green', [['red', 1]])), 8, 6),
    p.add(eventTimeline(p, '{{type}}', 'type'), 16, 7),
    p.add(p.table('Newest event of each type',
                  'When the newest event of each type happened, for events the drive timed '
                  + 'with a host-set clock (ssd_pel_last_event_timestamp_seconds), and how many '
                  + 'of each the exporter has counted.',
                  [p.q(p.sel('ssd_pel_last_event_timestamp_seconds') + ' * 1000',
                       instant=true,
                       format='table')],
                  transformations=[p.organize(hide=['instance', 'device', 'serial'],
                                              order=['type', 'Value'],
                                              rename={ Value: 'newest' })],
                  overrides=[p.override('byName', 'newest', { unit: 'dateTimeAsIso' })],
                  sortBy=[['newest', true]],
                  deviceLink=false), 8, 7),
  ],

  fleet(p):: [
    p.row('NVMe: firmware, events, self-reported wear'),
    p.add(p.table('Firmware activation pending',
                  'Drives whose next controller reset activates another firmware slot: they '
                  + 'change firmware on reboot (log 03h).',
                  [p.q(p.withModel('(' + p.sel('ssd_firmware_activation_pending') + ' == 1)'),
                       instant=true,
                       format='table')],
                  transformations=[p.organize(hide=['Value', 'serial'],
                                              order=['instance', 'device', 'model', 'firmware'])]),
          8,
          7),
    p.add(p.bargauge('Write amplification (drive-reported)',
                     "Media over host bytes written from each drive's own counters "
                     + '(endurance groups, else OCP C0h over SMART), highest first.',
                     [p.q('topk(15, ' + p.sel('ssd_write_amplification_ratio') + ')',
                          who,
                          instant=true)],
                     'none',
                     min=0,
                     steps=p.thresholds('green', [['yellow', 3], ['red', 5]])), 8, 7),
    p.add(p.table('Saved internal state',
                  'Drives holding internal state they captured on their own '
                  + '(controller-initiated telemetry, log 08h): collect it for the vendor.',
                  [p.q(p.withModel('(' + p.sel('ssd_telemetry_ctrl_data_available') + ' == 1)'),
                       instant=true,
                       format='table')],
                  transformations=[p.organize(hide=['Value', 'serial'],
                                              order=['instance', 'device', 'model'])]), 8, 7),
    p.add(p.timeseries('Persistent log events',
                       "Events the drives' persistent event logs gained, per type, summed over "
                       + 'the fleet (ssd_pel_events_total).',
                       [p.q('sum by (type) (increase(' + p.sel('ssd_pel_events_total')
                            + '[$__rate_interval]))', '{{type}}')],
                       'none',
                       bars=true,
                       interval=p.pollRateInterval,
                       link=false), 12),
    p.add(eventTimeline(p, who + ' {{type}}', 'instance, device, type'), 12, 8),
  ],
}
