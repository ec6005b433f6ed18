"""The drive dashboard: one drive in detail, everything the exporter says about it."""

from __future__ import annotations

from tools.dashboards import nvme_depth
from tools.dashboards.panels import (DASHED_RED, DRIVE_UID, FLEET_URL, HEALTH_MAP, MERGE,
                                     POLL_RATE_INTERVAL, SEVERITY_MAP, Board, dashboard,
                                     heatmap, organize, override, q, sel, stat, state_timeline,
                                     table, thresholds, timeseries, value_map, variables,
                                     with_model)

YEAR = 365 * 86400
RATE = "[$__rate_interval]"


def _rate(metric: str, *matchers: str) -> str:
    return f"rate({sel(metric, *matchers)}{RATE})"


def _increase(metric: str, *matchers: str) -> str:
    return f"increase({sel(metric, *matchers)}{RATE})"


def identity(b: Board) -> None:
    b.row("Drive")
    b.add(table("Identity",
                "What the drive says it is (Identify data): transport, model, firmware, "
                "serial and WWN; and where it sits, where sysfs says: PCI address and slot "
                "(NVMe), SAS address and the phy it is attached through, enclosure and bay, "
                "the by-path name, the fabric of a remote NVMe target.",
                [q(sel("ssd_device_info"), instant=True, fmt="table")],
                transformations=[organize(hide=("Value",),
                                          order=("instance", "device", "transport", "model",
                                                 "firmware", "serial", "wwn", "enclosure",
                                                 "slot", "pci_address", "sas_address",
                                                 "sas_phy", "path", "fabric"))],
                device_link=False), 12, 4)
    b.add(stat("Verdict",
               "The exporter's verdict on the drive: ok, warning, critical or unknown "
               "(no core health data and nothing critical known).",
               [q(sel("ssd_health_status"), "verdict", instant=True)],
               mappings=HEALTH_MAP, steps=thresholds("green", ("yellow", 1), ("red", 2))),
          3, 4)
    b.add(stat("SMART status",
               "The drive's own overall assessment (NVMe: no critical warning bit set; "
               "SATA: SMART RETURN STATUS).",
               [q(sel("ssd_smart_passed"), "SMART", instant=True)],
               mappings=value_map((0, "FAILED", "red"), (1, "PASSED", "green"))), 3, 4)
    b.add(stat("Capacity",
               "User capacity.",
               [q(sel("ssd_capacity_bytes"), "capacity", instant=True)], "bytes"), 3, 4)
    b.add(stat("Last self-test",
               "Result of the newest entry in the drive's self-test log.",
               [q(sel("ssd_self_test_last_result") + " == 1", "{{result}}", instant=True)],
               text_mode="name"), 3, 4)
    b.add(table("Active problems",
                "Each problem the verdict sees (ssd_health_problem) and its severity; \"muted\": "
                "muted for this drive in the exporter's config, not counted in the verdict.",
                [q(with_model(sel("ssd_health_problem")), instant=True, fmt="table")],
                transformations=[organize(hide=("Value", "instance", "device", "serial",
                                                "model", "firmware"),
                                          order=("severity", "problem"))],
                overrides=[override("byName", "severity", mappings=SEVERITY_MAP,
                                    custom__cellOptions={"type": "color-text"})],
                sort_by=[("severity", False)], device_link=False), 8, 7)
    b.add(table("Not judged",
                "What the verdict could not judge because the drive does not report it "
                "(ssd_health_unknown).",
                [q(sel("ssd_health_unknown"), instant=True, fmt="table")],
                transformations=[organize(hide=("Value", "instance", "device", "serial"))],
                device_link=False), 4, 7)
    b.add(stat("Power-on time and cycles",
               "Lifetime power-on time and power cycles.",
               [q(sel("ssd_power_on_seconds_total"), "powered on", instant=True),
                q(sel("ssd_power_cycles_total"), "power cycles", instant=True)],
               "s", overrides=[override("byFrameRefID", "B", unit="none")]), 4, 7)
    b.add(state_timeline("Verdict and critical warnings over time",
                         "The verdict and each critical-warning bit the drive reports "
                         "(NVMe log 02h byte 0, endurance group byte 6).",
                         [q(sel("ssd_health_status"), "verdict"),
                          q(sel("ssd_critical_warning"), "{{condition}}"),
                          q(sel("ssd_endurance_group_critical_warning"),
                            "endurance group {{condition}}")],
                         HEALTH_MAP, steps=thresholds("green", ("yellow", 1), ("red", 2)),
                         overrides=[override("byFrameRefID", "B",
                                             mappings=value_map((0, "clear", "green"),
                                                                (1, "SET", "red"))),
                                    override("byFrameRefID", "C",
                                             mappings=value_map((0, "clear", "green"),
                                                                (1, "SET", "red")))],
                         link=False), 8, 7)


def wear(b: Board) -> None:
    b.row("Wear and spare")
    b.add(stat("Percentage used",
               "Wear against the rated life; may go beyond 100 %.",
               [q(sel("ssd_percentage_used_ratio"), "used", instant=True)], "percentunit",
               steps=thresholds("green", ("yellow", 0.8), ("red", 1))), 4, 4)
    b.add(stat("Wear-out forecast",
               "Time until percentage used reaches 100 % at the rate seen so far.",
               [q(sel("ssd_wearout_estimated_seconds"), "wear-out in", instant=True)], "s",
               steps=thresholds("red", ("yellow", 30 * 86400), ("green", YEAR))), 4, 4)
    b.add(stat("Endurance used",
               "Host bytes written over the datasheet's rated endurance (known models).",
               [q(sel("ssd_endurance_used_ratio"), "endurance", instant=True)],
               "percentunit", steps=thresholds("green", ("yellow", 0.8), ("red", 1))), 4, 4)
    b.add(timeseries("Available spare against its threshold",
                     "Remaining spare blocks and the threshold at which the drive raises its "
                     "critical warning (NVMe).",
                     [q(sel("ssd_available_spare_ratio"), "available spare"),
                      q(sel("ssd_available_spare_threshold_ratio"), "threshold")],
                     "percentunit", min_=0, max_=1, link=False,
                     overrides=[override("byFrameRefID", "B", **DASHED_RED)]), 12, 8)
    b.add(timeseries("Wear over time",
                     "Percentage used and rated endurance used.",
                     [q(sel("ssd_percentage_used_ratio"), "percentage used"),
                      q(sel("ssd_endurance_used_ratio"), "endurance used")],
                     "percentunit", min_=0, link=False), 12, 4)


def temperature(b: Board) -> None:
    b.row("Temperature and throttling")
    b.add(timeseries("Temperature against the drive's thresholds",
                     "Every sensor the drive reports and its own warning and critical "
                     "thresholds (dashed).",
                     [q(sel("ssd_temperature_celsius"), "sensor {{sensor}}"),
                      q(sel("ssd_temperature_threshold_celsius"), "{{level}} threshold")],
                     "celsius", link=False,
                     overrides=[override("byFrameRefID", "B", **DASHED_RED)]), 12, 9)
    warning = sel("ssd_temperature_threshold_celsius", 'level="warning"')
    critical = sel("ssd_temperature_threshold_celsius", 'level="critical"')
    composite = sel("ssd_temperature_celsius", 'sensor="composite"')
    b.add(stat("Headroom to the thresholds",
               "Warning and critical threshold minus the composite temperature now.",
               [q(f"{warning} - on(instance, device, serial) {composite}",
                  "to warning", instant=True),
                q(f"{critical} - on(instance, device, serial) {composite}",
                  "to critical", instant=True)],
               "celsius", steps=thresholds("red", ("yellow", 0), ("green", 5))), 4, 9)
    b.add(timeseries("Time above warning and critical temperature",
                     "Share of time the drive counted above its warning and critical "
                     "composite temperature.",
                     [q(_rate("ssd_temperature_above_warning_seconds_total"), "above warning"),
                      q(_rate("ssd_temperature_above_critical_seconds_total"),
                        "above critical")],
                     "percentunit", min_=0, interval=POLL_RATE_INTERVAL, link=False), 8, 9)
    b.add(state_timeline("Throttling now",
                         "When the drive said it was throttling (OCP log C0h).",
                         [q(sel("ssd_thermal_throttle_active"), "throttling")],
                         value_map((0, "no", "green"), (1, "throttling", "red")),
                         link=False), 12, 4)
    b.add(stat("Throttling, lifetime",
               "Throttle events (OCP C0h; SATA vendor attribute), thermal-management "
               "transitions and time by level (NVMe TMT1 light, TMT2 heavy).",
               [q(sel("ssd_thermal_throttle_events_total"), "events", instant=True),
                q(sel("ssd_thermal_throttle_transitions_total"), "{{level}} transitions",
                  instant=True),
                q(sel("ssd_thermal_throttle_seconds_total"), "{{level}} time",
                  instant=True)],
               "none", overrides=[override("byFrameRefID", "C", unit="s")]), 12, 4)
    b.add(timeseries("Throttle events and transitions",
                     "New throttle events and thermal-management transitions per interval.",
                     [q(_increase("ssd_thermal_throttle_events_total"), "events"),
                      q(_increase("ssd_thermal_throttle_transitions_total"),
                        "{{level}} transitions")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 12)
    b.add(timeseries("Share of time throttled",
                     "Share of time in light (TMT1) and heavy (TMT2) thermal management.",
                     [q(_rate("ssd_thermal_throttle_seconds_total"), "{{level}}")],
                     "percentunit", min_=0, interval=POLL_RATE_INTERVAL, link=False), 12)


def power_loss(b: Board) -> None:
    b.row("Power loss")
    b.add(stat("Volatile memory backup",
               "The drive's critical warning for its volatile memory backup (the PLP "
               "capacitors on drives with power-loss protection).",
               [q(sel("ssd_critical_warning", 'condition="volatile_memory_backup"'),
                  "backup", instant=True)],
               mappings=value_map((0, "OK", "green"), (1, "FAILED", "red"))), 4, 8)
    b.add(stat("Unsafe shutdowns",
               "Lifetime unsafe shutdowns, those in the time range, and on OCP drives "
               "incomplete shutdowns and PLP starts.",
               [q(sel("ssd_unsafe_shutdowns_total"), "lifetime", instant=True),
                q(f'increase({sel("ssd_unsafe_shutdowns_total")}[$__range])', "in range",
                  instant=True),
                q(sel("ssd_incomplete_shutdowns_total"), "incomplete", instant=True),
                q(sel("ssd_plp_starts_total"), "PLP starts", instant=True)],
               "none", decimals=0), 6, 8)
    b.add(timeseries("Unsafe shutdowns and PLP starts",
                     "New unsafe shutdowns and PLP starts per interval.",
                     [q(_increase("ssd_unsafe_shutdowns_total"), "unsafe shutdowns"),
                      q(_increase("ssd_plp_starts_total"), "PLP starts")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 7, 8)
    b.add(timeseries("PLP health",
                     "Capacitor health (OCP C0h; SATA attribute 195/175). The verdict "
                     "turns critical below 50 %.",
                     [q(sel("ssd_plp_health_ratio"), "PLP health")],
                     "percentunit", min_=0, max_=1, link=False), 7, 8)


def io(b: Board) -> None:
    b.row("Reads and writes")
    b.add(timeseries("Writes: host and NAND",
                     "Bytes written by the host and by the drive to its NAND, per second.",
                     [q(_rate("ssd_host_written_bytes_total"), "host"),
                      q(_rate("ssd_nand_written_bytes_total"), "NAND")],
                     "Bps", interval=POLL_RATE_INTERVAL, link=False), 8)
    b.add(timeseries("Reads: host and NAND",
                     "Bytes read by the host and by the drive from its NAND, per second.",
                     [q(_rate("ssd_host_read_bytes_total"), "host"),
                      q(_rate("ssd_nand_read_bytes_total"), "NAND")],
                     "Bps", interval=POLL_RATE_INTERVAL, link=False), 8)
    b.add(timeseries("Write amplification",
                     "NAND over host bytes written in the past hour, and over the drive's "
                     "life.",
                     [q(f'rate({sel("ssd_nand_written_bytes_total")}[1h]) '
                        f'/ on(instance, device, serial) '
                        f'(rate({sel("ssd_host_written_bytes_total")}[1h]) > 0)', "past hour"),
                      q(f'{sel("ssd_nand_written_bytes_total")} / on(instance, device, serial) '
                        f'({sel("ssd_host_written_bytes_total")} > 0)', "lifetime")],
                     "none", min_=0, link=False), 8)
    b.add(timeseries("Commands",
                     "Read and write commands the host issued, per second.",
                     [q(_rate("ssd_host_read_commands_total"), "reads"),
                      q(_rate("ssd_host_write_commands_total"), "writes")],
                     "iops", interval=POLL_RATE_INTERVAL, link=False), 12)
    b.add(timeseries("Controller busy",
                     "Share of time the controller was busy with I/O (NVMe).",
                     [q(_rate("ssd_controller_busy_seconds_total"), "busy")],
                     "percentunit", min_=0, interval=POLL_RATE_INTERVAL, link=False), 12)


def probe(b: Board) -> None:
    b.row("Latency probe")
    b.add(timeseries("Probe latency quantiles and the datasheet limit",
                     "Exact quantiles over the sliding window of 4 KiB QD1 probe I/Os, and "
                     "the datasheet's QoS limit (dashed) for models that publish one.",
                     [q(sel("ssd_probe_latency_quantile_seconds"),
                        "{{block}} {{op}} p{{q}}"),
                      q(sel("ssd_latency_qos_target_seconds"), "{{op}} limit p{{q}}")],
                     "s", log=True, link=False,
                     overrides=[override("byFrameRefID", "B", **DASHED_RED)]), 12, 9)
    reads = _increase("ssd_probe_latency_seconds_bucket", 'op="read"')
    b.add(heatmap("Probe read latency distribution",
                  "Probe reads per latency bucket over time (10 µs to 10 s buckets).",
                  [q(f"sum by (le) ({reads})", "{{le}}", fmt="heatmap")], "s"), 12, 9)
    buckets = f'sum by (le, op) ({_rate("ssd_probe_latency_seconds_bucket")})'
    b.add(timeseries("Probe latency from the histogram",
                     "Percentiles from the histogram buckets: coarser than the window "
                     "quantiles, but over any time range.",
                     [q(f"histogram_quantile({p}, {buckets})", f"{{{{op}}}} p{label}")
                      for p, label in (("0.5", "50"), ("0.99", "99"), ("0.999", "99.9"))],
                     "s", log=True, link=False), 8)
    b.add(timeseries("Probe I/Os by result",
                     "Probe I/Os per second: ok, error, timeout.",
                     [q(f'sum by (op, result) ({_rate("ssd_probe_ios_total")})',
                        "{{op}} {{result}}")],
                     "ops", link=False), 8)
    b.add(timeseries("Skipped probes by reason",
                     "Probes not issued per second: the drive was busy or in standby, or "
                     "could not be opened or read.",
                     [q(f'sum by (reason) ({_rate("ssd_probe_skipped_total")})', "{{reason}}")],
                     "ops", link=False), 8)
    b.add(timeseries("Probe busy ratio",
                     "The probe's own share of the drive's busy time.",
                     [q(sel("ssd_probe_busy_ratio"), "{{block}}")],
                     "percentunit", min_=0, link=False), 12)
    b.add(timeseries("Probe samples in the window",
                     "Probe I/Os behind the window quantiles: a p99.99 needs tens of "
                     "thousands.",
                     [q(sel("ssd_probe_window_samples"), "{{block}} {{op}}")],
                     "none", link=False), 12)


def sata(b: Board) -> None:
    b.row("SATA attributes", collapsed=True)
    names = ("value", "worst", "threshold", "raw")
    b.add(table("SATA SMART attributes",
                "Every attribute as the drive reports it, named as smartctl names it.",
                [q(f'max by (id, name) ({sel("ssd_ata_attribute_" + n)})',
                   instant=True, fmt="table") for n in names],
                transformations=[
                    MERGE,
                    {"id": "convertFieldType", "options": {
                        "conversions": [{"targetField": "id", "destinationType": "number"}],
                        "fields": {}}},
                    organize(order=("id", "name", "Value #A", "Value #B", "Value #C",
                                    "Value #D"),
                             rename={f"Value #{chr(65 + i)}": n
                                     for i, n in enumerate(names)})],
                sort_by=[("id", False)], device_link=False), 14, 14)
    b.add(timeseries("SATA normalized attribute values",
                     "Normalized values over time (100 or 200 is new; the drive fails an "
                     "attribute at its threshold).",
                     [q(sel("ssd_ata_attribute_value"), "{{id}} {{name}}")],
                     "none", link=False), 10, 14)


def scsi(b: Board) -> None:
    b.row("SAS / SCSI", collapsed=True)
    b.add(timeseries("SCSI errors per operation",
                     "Errors the drive corrected and could not correct per interval, by "
                     "operation (log pages 03h read, 02h write, 05h verify). The uncorrected "
                     "ones are also in media errors.",
                     [q(f'sum by (op) ({_increase("ssd_scsi_errors_corrected_total")})',
                        "corrected {{op}}"),
                      q(f'sum by (op) ({_increase("ssd_scsi_errors_uncorrected_total")})',
                        "uncorrected {{op}}")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 9)
    b.add(timeseries("SAS phy errors",
                     "Link errors per interval, by phy and kind (log 18h): the cable, "
                     "backplane, expander or HBA port, not the media.",
                     [q(f'sum by (phy, kind) ({_increase("ssd_sas_phy_errors_total")})',
                        "phy {{phy}} {{kind}}")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 9)
    b.add(stat("SCSI counters",
               "Grown defect list entries (READ DEFECT DATA), non-medium errors (log 06h) "
               "and start-stop cycles (log 0Eh), lifetime.",
               [q(sel("ssd_scsi_grown_defects"), "grown defects", instant=True),
                q(sel("ssd_scsi_non_medium_errors_total"), "non-medium errors", instant=True),
                q(sel("ssd_scsi_start_stop_cycles_total"), "start-stop cycles",
                  instant=True)],
               "none"), 6)


def errors(b: Board) -> None:
    b.row("Errors")
    b.add(timeseries("New errors",
                     "Errors counted per interval: media (NVMe; SATA 187), interface CRC "
                     "(SATA 199), error-log entries, and on OCP drives uncorrectable reads "
                     "and PCIe correctable errors.",
                     [q(_increase("ssd_media_errors_total"), "media"),
                      q(_increase("ssd_crc_errors_total"), "CRC"),
                      q(_increase("ssd_error_log_entries_total"), "error log entries"),
                      q(_increase("ssd_uncorrectable_read_errors_total"), "uncorrectable reads"),
                      q(_increase("ssd_pcie_correctable_errors_total"), "PCIe correctable")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 12)
    lifetime = [("ssd_media_errors_total", "media"), ("ssd_crc_errors_total", "CRC"),
                ("ssd_error_log_entries_total", "error log"),
                ("ssd_uncorrectable_read_errors_total", "uncorrectable reads"),
                ("ssd_soft_ecc_errors_total", "soft ECC"),
                ("ssd_xor_recoveries_total", "XOR recoveries"),
                ("ssd_end_to_end_detected_errors_total", "end-to-end detected"),
                ("ssd_end_to_end_corrected_errors_total", "end-to-end corrected"),
                ("ssd_pcie_correctable_errors_total", "PCIe correctable"),
                ("ssd_pcie_link_retrainings_total", "PCIe link retrainings")]
    b.add(stat("Error counters, lifetime",
               "Every error counter the drive reports, since it was made. An old count is "
               "history; the verdict only flags a rise.",
               [q(sel(m), label, instant=True) for m, label in lifetime]
               + [q(sel("ssd_bad_blocks"), "bad blocks {{area}}", instant=True)],
               "none"), 12)


def pcie(b: Board) -> None:
    b.row("PCIe link")
    speed, width = "ssd_pcie_link_speed_transfers_per_second", "ssd_pcie_link_width_lanes"
    b.add(timeseries("PCIe link speed and width",
                     "An NVMe drive's link now and at most (sysfs current_link_* and "
                     "max_link_*). The verdict's pcie_link_degraded compares now with the "
                     "lower of the drive's and its port's maxima: a drive in a slower slot "
                     "runs as built.",
                     [q(sel(speed, 'link="current"'), "speed now"),
                      q(sel(speed, 'link="max"'), "speed at most"),
                      q(sel(width, 'link="current"'), "lanes now"),
                      q(sel(width, 'link="max"'), "lanes at most")],
                     "si:T/s", min_=0, link=False,
                     overrides=[override("byRegexp", "lanes.*", unit="none",
                                         custom__axisPlacement="right")]), 12)
    b.add(timeseries("PCIe errors (AER)",
                     "AER error messages of the drive's PCI function per interval, by "
                     "severity: correctable ones the link retried; non-fatal (a transaction "
                     "lost) and fatal (the link reset) ones are the verdict's "
                     "pcie_errors_increasing.",
                     [q(f'sum by (severity) ({_increase("ssd_pcie_errors_total")})',
                        "{{severity}}")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 12)


def polling(b: Board) -> None:
    b.row("Polling")
    b.add(state_timeline("Poll state",
                         "Whether each poll read the drive's SMART/Health data.",
                         [q(sel("ssd_device_up"), "poll")],
                         value_map((0, "down", "red"), (1, "up", "green")), link=False), 6, 5)
    b.add(state_timeline("SATA power mode",
                         "The power mode CHECK POWER MODE saw at each poll; a drive in "
                         "standby is not woken, and its poll is skipped.",
                         [q(sel("ssd_power_mode") + " == 1", "{{mode}}")],
                         value_map((1, "current", "blue")), link=False), 6, 5)
    b.add(timeseries("Data age",
                     "Time since the last successful poll: how old the values are.",
                     [q(f'time() - {sel("ssd_last_poll_timestamp_seconds")}', "age")],
                     "s", min_=0, link=False), 12, 5)
    b.add(timeseries("Poll duration",
                     "How long the last poll took (the deadline, if it overran).",
                     [q(sel("ssd_poll_duration_seconds"), "duration")], "s", link=False), 6)
    b.add(timeseries("Poll CPU",
                     "CPU time the polling thread spends on this drive, as a share of one "
                     "core.",
                     [q(_rate("ssd_poll_cpu_seconds_total"), "CPU")], "percentunit",
                     min_=0, interval=POLL_RATE_INTERVAL, link=False), 6)
    b.add(timeseries("Poll errors by source",
                     "Failed reads per second, by page or command.",
                     [q(f'sum by (source) ({_rate("ssd_poll_errors_total")})', "{{source}}")],
                     "none", interval=POLL_RATE_INTERVAL, link=False), 6)
    b.add(timeseries("Polls and skipped polls",
                     "Polls per second, and polls skipped so as not to wake the drive.",
                     [q(_rate("ssd_polls_total"), "polls"),
                      q(f'sum by (reason) ({_rate("ssd_poll_skipped_total")})',
                        "skipped: {{reason}}")],
                     "none", interval=POLL_RATE_INTERVAL, link=False), 6)


def build() -> dict:
    b = Board()
    for section in (identity, wear, temperature, power_loss, io, nvme_depth.drive, probe,
                    errors, pcie, polling, sata, scsi):
        section(b)
    return dashboard(
        DRIVE_UID, "SSD drive",
        "One SSD in detail: identity, verdict, wear, temperature, power loss, I/O, "
        "latency probe, errors, PCIe link, polling, SATA attributes and SAS / SCSI "
        "counters.",
        b, variables(device_multi=False, instance_multi=False),
        links=[{"title": "Fleet", "type": "link",
                "url": FLEET_URL + "?${datasource:queryparam}",
                "icon": "dashboard", "keepTime": True, "includeVars": False,
                "targetBlank": False, "asDropdown": False, "tags": [],
                "tooltip": "Every drive"}])
