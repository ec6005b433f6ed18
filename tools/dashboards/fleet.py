"""The fleet dashboard: which drives need attention, across every exporter."""

from __future__ import annotations

from tools.dashboards import nvme_depth
from tools.dashboards.panels import (DASHED_RED, DRIVE_URL, FLEET_UID, HEALTH_MAP, MERGE,
                                     POLL_RATE_INTERVAL, SEVERITY_MAP, Board, bargauge,
                                     dashboard, organize, override, per_drive, q, sel,
                                     sel_instance, stat, state_timeline, table, thresholds,
                                     timeseries, value_map, variables, with_model)

WHO = "{{instance}} {{device}}"
YEAR = 365 * 86400
TOP = 10


def _count(expr: str) -> str:
    """How many series match, 0 rather than no data when none do."""
    return f"count({expr}) or vector(0)"


def temp_vs_warning() -> str:
    """Composite temperature minus the drive's own warning threshold (°C)."""
    temp = sel("ssd_temperature_celsius", 'sensor="composite"')
    warning = sel("ssd_temperature_threshold_celsius", 'level="warning"')
    return f"{temp} - on(instance, device, serial) {warning}"


def write_amplification(window: str) -> str:
    return (f'rate({sel("ssd_nand_written_bytes_total")}[{window}])'
            f' / on(instance, device, serial) '
            f'(rate({sel("ssd_host_written_bytes_total")}[{window}]) > 0)')


def overview(b: Board) -> None:
    b.row("Overview")
    b.add(stat("Drives by health status",
               "Drives whose verdict (ssd_health_status) is ok, warning, critical or "
               "unknown (no core health data and nothing critical known). "
               "The reasons are in the problem table below.",
               [q(_count(sel("ssd_health_status") + " == 0"), "OK", instant=True),
                q(_count(sel("ssd_health_status") + " == 1"), "Warning", instant=True),
                q(_count(sel("ssd_health_status") + " == 2"), "Critical", instant=True),
                q(_count(sel("ssd_health_status") + " == 3"), "Unknown", instant=True)],
               "none", steps=thresholds("green"),
               overrides=[override("byFrameRefID", "B",
                                   thresholds=thresholds("green", ("yellow", 1))),
                          override("byFrameRefID", "C",
                                   thresholds=thresholds("green", ("red", 1))),
                          override("byFrameRefID", "D",
                                   thresholds=thresholds("green", ("purple", 1)))]), 8, 5)
    b.add(stat("Drives and exporters",
               "Drives known to the selected exporters (ssd_device_info), and exporters "
               "answering (ssd_exporter_build_info).",
               [q(_count(sel("ssd_device_info")), "Drives", instant=True),
                q(_count(sel_instance("ssd_exporter_build_info")), "Exporters", instant=True)],
               "none"), 5, 5)
    b.add(state_timeline("Health status over time",
                         "Each drive's verdict: ok, warning, critical or unknown.",
                         [q(f'max by (instance, device) ({sel("ssd_health_status")})', WHO)],
                         HEALTH_MAP, steps=thresholds("green", ("yellow", 1), ("red", 2))),
          11, 5)
    b.add(table("Active problems",
                "One row per problem the exporter's verdict sees (ssd_health_problem; severity "
                "\"muted\": muted for that drive in the exporter's config, not in its verdict), "
                "with the drive's model and firmware. Click a device for its drive view.",
                [q(with_model(sel("ssd_health_problem")), instant=True, fmt="table")],
                transformations=[organize(hide=("Value",),
                                          order=("instance", "device", "model", "firmware",
                                                 "serial", "severity", "problem"))],
                overrides=[override("byName", "severity", mappings=SEVERITY_MAP,
                                    custom__cellOptions={"type": "color-text"})],
                sort_by=[("severity", False)]), 24, 7)
    drives = [
        q(with_model(sel("ssd_health_status")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_device_up")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_percentage_used_ratio")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_wearout_estimated_seconds")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_temperature_celsius", 'sensor="composite"')),
          instant=True, fmt="table"),
        q(per_drive(temp_vs_warning()), instant=True, fmt="table"),
        q(per_drive(sel("ssd_unsafe_shutdowns_total")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_plp_health_ratio")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_media_errors_total")), instant=True, fmt="table"),
        q(per_drive(sel("ssd_pcie_link_speed_transfers_per_second", 'link="current"')),
          instant=True, fmt="table"),
        q(per_drive(sel("ssd_pcie_link_width_lanes", 'link="current"')),
          instant=True, fmt="table"),
        q(per_drive(sel("ssd_health_problem", 'problem="pcie_link_degraded"')),
          instant=True, fmt="table"),
        # Last: where the drive sits, as labels (its value, 1, is hidden).
        q(f'max by (instance, device, serial, enclosure, slot) ({sel("ssd_device_info")})',
          instant=True, fmt="table"),
    ]
    names = ["Health", "Up", "Used", "Wear-out in", "Temp", "vs warning",
             "Unsafe shutdowns", "PLP health", "Media errors", "PCIe speed", "Lanes",
             "Link"]
    place = f"Value #{chr(65 + len(names))}"
    b.add(table("Drives",
                "Every drive: where it sits (enclosure and slot: the PCI slot of an NVMe "
                "drive, the enclosure bay of a SAS/SATA disk), verdict, whether its last "
                "poll worked, wear, forecast, composite temperature and its distance to the "
                "drive's warning threshold (negative: below), lifetime unsafe shutdowns, PLP "
                "health, media errors, and an NVMe drive's PCIe link now (Link: degraded "
                "below what the drive and its port can do). Empty cells: the drive does not "
                "report it. Click a device for its drive view.",
                drives,
                transformations=[MERGE, organize(
                    hide=(place,),
                    order=("instance", "device", "enclosure", "slot", "model", "firmware",
                           "serial", *[f"Value #{chr(65 + i)}" for i in range(len(names))]),
                    rename={f"Value #{chr(65 + i)}": n for i, n in enumerate(names)})],
                overrides=[
                    override("byName", "Health", mappings=HEALTH_MAP,
                             custom__cellOptions={"type": "color-background"}),
                    override("byName", "Up", mappings=value_map((0, "down", "red"),
                                                                (1, "up", "green")),
                             custom__cellOptions={"type": "color-text"}),
                    override("byName", "Used", unit="percentunit",
                             thresholds=thresholds("green", ("yellow", 0.8), ("red", 1)),
                             custom__cellOptions={"type": "color-text"}),
                    override("byName", "Wear-out in", unit="s"),
                    override("byName", "Temp", unit="celsius"),
                    override("byName", "vs warning", unit="celsius",
                             thresholds=thresholds("green", ("yellow", -5), ("red", 0)),
                             custom__cellOptions={"type": "color-text"}),
                    override("byName", "PLP health", unit="percentunit",
                             thresholds=thresholds("red", ("yellow", 0.5), ("green", 0.8)),
                             custom__cellOptions={"type": "color-text"}),
                    override("byName", "PCIe speed", unit="si:T/s"),
                    override("byName", "Link", mappings=value_map((1, "degraded", "orange")),
                             custom__cellOptions={"type": "color-text"}),
                ],
                sort_by=[("Health", True)]), 24, 10)


def wear(b: Board) -> None:
    b.row("Wear and endurance")
    b.add(bargauge("Most worn drives",
                   "Percentage used (NVMe log 02h; SATA Device Statistics or the family's "
                   "life attribute), highest first. 100 % is the rated life; it may go beyond.",
                   [q(f'topk({TOP}, {sel("ssd_percentage_used_ratio")})', WHO, instant=True)],
                   "percentunit", min_=0, max_=1,
                   steps=thresholds("green", ("yellow", 0.8), ("red", 1))), 8)
    b.add(bargauge("Shortest wear-out forecast",
                   "Time until percentage used reaches 100 % at the rate seen so far "
                   "(ssd_wearout_estimated_seconds), shortest first.",
                   [q(f'bottomk({TOP}, {sel("ssd_wearout_estimated_seconds")})', WHO,
                      instant=True)],
                   "s", min_=0,
                   steps=thresholds("red", ("yellow", 30 * 86400), ("green", YEAR))), 8)
    b.add(bargauge("Endurance used against the rated writes",
                   "Host bytes written over the datasheet endurance (TBW or DWPD × warranty), "
                   "for models the exporter knows the rating of.",
                   [q(f'topk({TOP}, {sel("ssd_endurance_used_ratio")})', WHO, instant=True)],
                   "percentunit", min_=0, max_=1,
                   steps=thresholds("green", ("yellow", 0.8), ("red", 1))), 8)
    b.add(timeseries("Percentage used",
                     "Wear of each drive over time, labelled with its model.",
                     [q(with_model(sel("ssd_percentage_used_ratio")),
                        f"{WHO} {{{{model}}}}")],
                     "percentunit", min_=0), 16)
    b.add(bargauge("Spare above its threshold",
                   "Available spare minus the drive's own spare threshold (NVMe), lowest "
                   "first. Below 0 the drive raises its critical warning.",
                   [q(f'bottomk({TOP}, {sel("ssd_available_spare_ratio")}'
                      f' - on(instance, device, serial) '
                      f'{sel("ssd_available_spare_threshold_ratio")})', WHO, instant=True)],
                   "percentunit", min_=0, max_=1,
                   steps=thresholds("red", ("yellow", 0), ("green", 0.1))), 8)


def temperature(b: Board) -> None:
    b.row("Temperature")
    b.add(timeseries("Temperature relative to the drive's warning threshold",
                     "Composite temperature minus the drive's own warning threshold "
                     "(NVMe WCTEMP; SATA maximum operating temperature). Above 0 the drive "
                     "is hotter than it is specified for.",
                     [q(temp_vs_warning(), WHO)], "celsius", line_at=0), 12)
    b.add(bargauge("Closest to the warning threshold",
                   "Composite temperature minus the warning threshold now, hottest first.",
                   [q(f"topk({TOP}, {temp_vs_warning()})", WHO, instant=True)], "celsius",
                   steps=thresholds("green", ("yellow", -5), ("red", 0))), 6)
    b.add(timeseries("Time above the warning temperature",
                     "Share of time each drive spent above its warning temperature, "
                     "as the drive counts it.",
                     [q(f'rate({sel("ssd_temperature_above_warning_seconds_total")}'
                        '[$__rate_interval])', WHO)],
                     "percentunit", min_=0, interval=POLL_RATE_INTERVAL), 6)
    b.add(timeseries("Composite temperature",
                     "The drive's composite temperature (SATA: its one reading).",
                     [q(sel("ssd_temperature_celsius", 'sensor="composite"'), WHO)],
                     "celsius"), 12)
    b.add(timeseries("Hottest sensor",
                     "The highest of each drive's temperature sensors (NVMe sensors 1-8 "
                     "and composite).",
                     [q(f'max by (instance, device) ({sel("ssd_temperature_celsius")})', WHO)],
                     "celsius"), 12)


def throttling(b: Board) -> None:
    b.row("Thermal throttling")
    b.add(stat("Throttling now",
               "Drives that report throttling at their last poll (OCP log C0h).",
               [q(_count(sel("ssd_thermal_throttle_active") + " == 1"), "drives",
                  instant=True)],
               "none", steps=thresholds("green", ("red", 1))), 4, 6)
    b.add(state_timeline("Thermal throttling active",
                         "When each drive said it was throttling (OCP log C0h).",
                         [q(sel("ssd_thermal_throttle_active"), WHO)],
                         value_map((0, "no", "green"), (1, "throttling", "red"))), 10, 6)
    b.add(bargauge("Most throttle events in the time range",
                   "Throttle events counted by the drive during the dashboard's time range "
                   "(OCP C0h; SATA vendor attribute).",
                   [q(f'topk({TOP}, increase({sel("ssd_thermal_throttle_events_total")}'
                      '[$__range]))', WHO, instant=True)],
                   "none", steps=thresholds("green", ("yellow", 1))), 10, 6)
    b.add(timeseries("Throttle events",
                     "New throttle events per interval.",
                     [q(f'increase({sel("ssd_thermal_throttle_events_total")}'
                        '[$__rate_interval])', WHO)],
                     "none", interval=POLL_RATE_INTERVAL), 8)
    b.add(timeseries("Thermal-management transitions",
                     "Transitions into light (TMT1) and heavy (TMT2) host-controlled "
                     "thermal management per interval (NVMe).",
                     [q(f'increase({sel("ssd_thermal_throttle_transitions_total")}'
                        '[$__rate_interval])', f"{WHO} {{{{level}}}}")],
                     "none", interval=POLL_RATE_INTERVAL), 8)
    b.add(timeseries("Share of time throttled",
                     "Share of time in light (TMT1) and heavy (TMT2) thermal management.",
                     [q(f'rate({sel("ssd_thermal_throttle_seconds_total")}'
                        '[$__rate_interval])', f"{WHO} {{{{level}}}}")],
                     "percentunit", min_=0, interval=POLL_RATE_INTERVAL), 8)


def power_loss(b: Board) -> None:
    b.row("Power loss: unsafe shutdowns and PLP")
    b.add(stat("Volatile memory backup failed",
               "Drives whose critical warning says the volatile memory backup (the PLP "
               "capacitors) failed: cached writes are not safe from a power cut.",
               [q(_count(sel("ssd_critical_warning", 'condition="volatile_memory_backup"')
                         + " == 1"), "drives", instant=True)],
               "none", steps=thresholds("green", ("red", 1))), 4, 8)
    b.add(bargauge("Lowest PLP health",
                   "Capacitor health of drives with power-loss protection (OCP C0h; SATA "
                   "attribute 195/175), lowest first. The verdict turns critical below 50 %.",
                   [q(f'bottomk({TOP}, {sel("ssd_plp_health_ratio")})', WHO, instant=True)],
                   "percentunit", min_=0, max_=1,
                   steps=thresholds("red", ("yellow", 0.5), ("green", 0.8))), 6, 8)
    b.add(bargauge("Unsafe shutdowns in the time range",
                   "Power lost without a clean shutdown during the time range, most first.",
                   [q(f'topk({TOP}, increase({sel("ssd_unsafe_shutdowns_total")}[$__range]))',
                      WHO, instant=True)],
                   "none", steps=thresholds("green", ("yellow", 1))), 6, 8)
    b.add(timeseries("Unsafe shutdowns",
                     "New unsafe shutdowns per interval.",
                     [q(f'increase({sel("ssd_unsafe_shutdowns_total")}[$__rate_interval])',
                        WHO)],
                     "none", bars=True, interval=POLL_RATE_INTERVAL), 8, 8)


def latency(b: Board) -> None:
    b.row("Latency probe")
    p9999 = sel("ssd_probe_latency_quantile_seconds", 'q="0.9999"')
    limit = sel("ssd_latency_qos_target_seconds", 'q="0.99999"')
    read_p9999 = sel("ssd_probe_latency_quantile_seconds", 'op="read"', 'q="0.9999"')
    buckets = (f'sum by (le, op) (rate({sel("ssd_probe_latency_seconds_bucket")}'
               '[$__rate_interval]))')
    b.add(timeseries("Fleet probe latency",
                     "Percentiles of every 4 KiB QD1 probe I/O of the selected drives, from "
                     "the shared histogram buckets (resolution: the bucket bounds).",
                     [q(f"histogram_quantile({p}, {buckets})", f"{{{{op}}}} p{label}")
                      for p, label in (("0.5", "50"), ("0.99", "99"), ("0.999", "99.9"))],
                     "s", log=True, link=False), 8)
    b.add(timeseries("Worst drive per quantile against the tightest limit",
                     "For each quantile q, the highest sliding-window value of any selected "
                     "drive (ssd_probe_latency_quantile_seconds), and dashed the tightest "
                     "datasheet limit among them (ssd_latency_qos_target_seconds).",
                     [q(f'max by (op, q) ({sel("ssd_probe_latency_quantile_seconds")})',
                        "{{op}} p{{q}} worst drive"),
                      q(f'min by (op, q) ({sel("ssd_latency_qos_target_seconds")})',
                        "{{op}} p{{q}} limit")],
                     "s", log=True, link=False,
                     overrides=[override("byFrameRefID", "B", **DASHED_RED)]), 8)
    b.add(timeseries("Window p99.99 against the datasheet QoS limit",
                     "Each drive's sliding-window p99.99 over its datasheet's p99.999 limit "
                     "(ssd_latency_qos_target_seconds), for models with a published limit. "
                     "Above 1 the drive misses its QoS, as the latency_above_qos problem says.",
                     [q(f"max by (instance, device, serial, op) ({p9999})"
                        f" / on(instance, device, serial, op) {limit}",
                        f"{WHO} {{{{op}}}}")],
                     "percentunit", min_=0, line_at=1), 8)
    b.add(timeseries("Window p99 per drive",
                     "Exact read p99 over each probed block device's sliding window.",
                     [q(sel("ssd_probe_latency_quantile_seconds", 'op="read"', 'q="0.99"'),
                        f"{WHO} {{{{block}}}}")],
                     "s", log=True), 12)
    b.add(bargauge("Worst window p99.99",
                   "Highest read p99.99 over the sliding window, worst first.",
                   [q(f"topk({TOP}, {read_p9999})",
                      f"{WHO} {{{{block}}}}", instant=True)], "s"), 6)
    b.add(table("Datasheet QoS limits by model",
                "The 4 KiB QD1 latency limits the exporter knows for the models present.",
                [q(f'max by (model, op, q) ({with_model(sel("ssd_latency_qos_target_seconds"))})',
                   instant=True, fmt="table")],
                transformations=[organize(order=("model", "op", "q", "Value"),
                                          rename={"Value": "limit"})],
                overrides=[override("byName", "limit", unit="s")],
                device_link=False), 6)
    vs_peers = "model_firmware_instance_device:ssd_probe_latency_seconds:p99_rate2m_vs_peers"
    b.add(timeseries("Fail-slow: read p99 against the peers' median",
                     "Each drive's read p99 over 2 minutes (probe histogram) over the median of "
                     "the drives of its model and firmware: on its host where the host has "
                     "three or more, else across the fleet. Dashed: the factor SsdFailSlow "
                     "fires at (held for 4 minutes, then 15). Needs the rules of "
                     "alerts/fleet.rules.yml.",
                     [q(sel(vs_peers), f"{WHO} ({{{{peers}}}} peers)"),
                      q("max(ssd_exporter:fail_slow_factor)", "SsdFailSlow factor")],
                     "none", log=True,
                     overrides=[override("byFrameRefID", "B", **DASHED_RED)]), 24)


def writes(b: Board) -> None:
    b.row("Writes")
    b.add(timeseries("Write amplification",
                     "NAND bytes written over host bytes written in the past hour (drives "
                     "that report NAND writes: OCP C0h, SATA vendor attribute). SATA counters "
                     "step in GiB, so an hour is the shortest window that reads well.",
                     [q(write_amplification("1h"), WHO)], "none", min_=0), 8)
    b.add(bargauge("Lifetime write amplification",
                   "NAND bytes over host bytes written since the drive was made, highest first.",
                   [q(f'topk({TOP}, {sel("ssd_nand_written_bytes_total")}'
                      f' / on(instance, device, serial) '
                      f'({sel("ssd_host_written_bytes_total")} > 0))', WHO, instant=True)],
                   "none", min_=0), 4)
    b.add(timeseries("Host writes",
                     "Bytes the host wrote to each drive, per second.",
                     [q(f'rate({sel("ssd_host_written_bytes_total")}[$__rate_interval])', WHO)],
                     "Bps", interval=POLL_RATE_INTERVAL), 6)
    b.add(timeseries("Host reads",
                     "Bytes the host read from each drive, per second.",
                     [q(f'rate({sel("ssd_host_read_bytes_total")}[$__rate_interval])', WHO)],
                     "Bps", interval=POLL_RATE_INTERVAL), 6)


def errors(b: Board) -> None:
    b.row("Errors")
    b.add(timeseries("New media errors",
                     "Unrecovered data integrity errors per interval (NVMe media errors; "
                     "SATA attribute 187). A rise, not an old count, is what matters.",
                     [q(f'increase({sel("ssd_media_errors_total")}[$__rate_interval])', WHO)],
                     "none", bars=True, interval=POLL_RATE_INTERVAL), 9)
    b.add(timeseries("New interface CRC errors",
                     "SATA link CRC errors per interval (attribute 199): usually a cable or "
                     "backplane, not the drive.",
                     [q(f'increase({sel("ssd_crc_errors_total")}[$__rate_interval])', WHO)],
                     "none", bars=True, interval=POLL_RATE_INTERVAL), 9)
    b.add(bargauge("New errors in the time range",
                   "Media and CRC errors counted during the time range, most first.",
                   [q(f'topk({TOP}, increase({sel("ssd_media_errors_total")}[$__range]))',
                      f"{WHO} media", instant=True),
                    q(f'topk({TOP}, increase({sel("ssd_crc_errors_total")}[$__range]))',
                      f"{WHO} CRC", instant=True)],
                   "none", steps=thresholds("green", ("red", 1))), 6)
    b.add(timeseries("New SAS phy errors",
                     "SAS link errors per interval and phy (log 18h: invalid dwords, running "
                     "disparity, loss of dword sync, phy reset problems): a cable, backplane, "
                     "expander or HBA port, not the drive's media.",
                     [q(f'sum by (instance, device, phy) (increase('
                        f'{sel("ssd_sas_phy_errors_total")}[$__rate_interval]))',
                        WHO + " phy {{phy}}")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL), 12)
    b.add(timeseries("SCSI grown defects",
                     "Entries in each SAS / SCSI drive's grown defect list (blocks it retired "
                     "in the field). A step up is what matters.",
                     [q(sel("ssd_scsi_grown_defects"), WHO)], "none"), 12)


def polling(b: Board) -> None:
    b.row("Polling")
    b.add(stat("Drives not answering",
               "Drives whose last poll failed (ssd_device_up = 0); their other series "
               "keep the last good values.",
               [q(_count(sel("ssd_device_up") + " == 0"), "drives", instant=True)],
               "none", steps=thresholds("green", ("red", 1))), 4, 7)
    b.add(state_timeline("Drive answering polls",
                         "Whether each drive's last poll read its SMART/Health data.",
                         [q(sel("ssd_device_up"), WHO)],
                         value_map((0, "down", "red"), (1, "up", "green"))), 8, 7)
    b.add(timeseries("Poll errors",
                     "Failed reads per second, by page or command (source).",
                     [q(f'sum by (instance, device, source) '
                        f'(rate({sel("ssd_poll_errors_total")}[$__rate_interval]))',
                        f"{WHO} {{{{source}}}}")],
                     "none", interval=POLL_RATE_INTERVAL), 6, 7)
    b.add(timeseries("Data age",
                     "Time since each drive's last successful poll: how old its values are.",
                     [q(f'time() - {sel("ssd_last_poll_timestamp_seconds")}', WHO)],
                     "s", min_=0), 6, 7)
    b.add(table("Exporters",
                "Build and drive count of each selected exporter.",
                [q(f'max by (instance, version, revision) '
                   f'({sel_instance("ssd_exporter_build_info")})', instant=True, fmt="table"),
                 q(f'sum by (instance) ({sel_instance("ssd_exporter_devices")})',
                   instant=True, fmt="table")],
                transformations=[MERGE, organize(hide=("Value #A",),
                                                 order=("instance", "version", "revision"),
                                                 rename={"Value #B": "drives"})],
                device_link=False), 24, 6)


def build() -> dict:
    b = Board()
    for section in (overview, wear, temperature, throttling, power_loss, latency, writes,
                    nvme_depth.fleet, errors, polling):
        section(b)
    return dashboard(
        FLEET_UID, "SSD fleet",
        "Health, wear, temperature, power loss, latency and polling of every SSD that "
        "ssd_exporter watches. Click a drive for its own view.",
        b, variables(device_multi=True),
        links=[{"title": "Drive view", "type": "link",
                "url": DRIVE_URL + "?${datasource:queryparam}",
                "icon": "dashboard", "keepTime": True, "includeVars": False,
                "targetBlank": False, "asDropdown": False, "tags": [],
                "tooltip": "One drive in detail"}])
