"""What an NVMe drive says about itself beyond SMART, in both dashboards:
write amplification from the drive's own counters, endurance against the
drive's own estimate, firmware waiting for the next reset, and a timeline of
the persistent event log's events (ssd_pel_*), the telemetry captures and the
OCP media dies."""

from __future__ import annotations

from tools.dashboards.panels import (POLL_RATE_INTERVAL, Board, bargauge, organize, q, sel,
                                     stat, state_timeline, table, thresholds, timeseries,
                                     value_map, with_model)

WHO = "{{instance}} {{device}}"
PENDING_MAP = value_map((0, "no", "green"), (1, "at next reset", "orange"))
EVENT_MAP = value_map((0, " ", "transparent"))


def _event_timeline(legend: str, expr_by: str) -> dict:
    """A state timeline with one lane per event type (and drive), lit in each
    interval its ssd_pel_events_total rose (0, no event, is transparent)."""
    expr = (f"sum by ({expr_by}) (increase({sel('ssd_pel_events_total')}"
            f"[$__rate_interval]))")
    return state_timeline(
        "Event timeline",
        "When the drive's persistent event log (NVMe log 0Dh) gained events, per type: "
        "power-on or reset, firmware commit, thermal excursion, hardware error, SMART "
        "snapshot... Each event is counted once; the log is read with every identity "
        "refresh (every 10th poll). The drive page (/) lists the newest events with their "
        "details.",
        [q(expr, legend)], EVENT_MAP,
        steps=thresholds("transparent", ("blue", 0.5), ("orange", 1.5), ("red", 5)))


def drive(b: Board) -> None:
    b.row("NVMe: endurance groups, firmware, events")
    b.add(timeseries("Write amplification (the drive's own counters)",
                     "Media bytes written per host byte written, from the drive's "
                     "endurance group counters (log 09h), else OCP C0h physical media "
                     "writes over SMART host writes (ssd_write_amplification_ratio).",
                     [q(sel("ssd_write_amplification_ratio"), "write amplification")],
                     "none", min_=0, link=False), 8)
    b.add(timeseries("Endurance used against the rated endurance",
                     "Bytes written against the rated endurance: a user's value, the "
                     "datasheet's, else the drive's own endurance group estimate (the "
                     "source is in the legend).",
                     [q(f"{sel('ssd_endurance_used_ratio')} * on(instance, device, serial) "
                        f"group_left(source) ({sel('ssd_rated_endurance_bytes')} * 0 + 1)",
                        "endurance used ({{source}})"),
                      q(sel("ssd_endurance_group_percentage_used_ratio"),
                        "group {{group}} percentage used")],
                     "percentunit", min_=0, link=False), 8)
    b.add(timeseries("Endurance group spare",
                     "Available spare of each endurance group (log 09h) and its threshold.",
                     [q(sel("ssd_endurance_group_available_spare_ratio"),
                        "group {{group}} spare"),
                      q(sel("ssd_endurance_group_available_spare_threshold_ratio"),
                        "group {{group}} threshold")],
                     "percentunit", min_=0, max_=1, link=False), 8)
    b.add(table("Firmware slots",
                "Each firmware slot holding an image (log 03h), the one running marked "
                "active.",
                [q(sel("ssd_firmware_slot_info"), instant=True, fmt="table")],
                transformations=[organize(hide=("Value", "instance", "device", "serial"),
                                          order=("slot", "revision", "active"))],
                sort_by=[("slot", False)], device_link=False), 6, 6)
    b.add(stat("Firmware activation pending",
               "Whether the next controller reset activates another firmware slot "
               "(ssd_firmware_activation_pending).",
               [q(sel("ssd_firmware_activation_pending"), "pending", instant=True)],
               mappings=PENDING_MAP), 4, 6)
    b.add(stat("Telemetry captures",
               "Controller-initiated telemetry (log 08h header): whether the drive holds "
               "internal state it saved on its own, and the capture's generation number. "
               "A change of the generation is the warning drive_reported_internal_error.",
               [q(sel("ssd_telemetry_ctrl_data_available"), "saved state waiting",
                  instant=True),
                q(sel("ssd_telemetry_ctrl_generation"), "generation", instant=True)],
               mappings=value_map((0, "none", "green"))), 6, 6)
    b.add(bargauge("Media dies offline",
                   "OCP C0h: media dies offline against the die failure tolerance (dies "
                   "that may fail with the drive still working); at the tolerance the "
                   "verdict is critical.",
                   [q(sel("ssd_media_dies_offline"), "offline", instant=True),
                    q(sel("ssd_media_die_failure_tolerance"), "tolerance", instant=True)],
                   "none", min_=0, steps=thresholds("green", ("red", 1))), 8, 6)
    b.add(_event_timeline("{{type}}", "type"), 16, 7)
    b.add(table("Newest event of each type",
                "When the newest event of each type happened, for events the drive timed "
                "with a host-set clock (ssd_pel_last_event_timestamp_seconds), and how many "
                "of each the exporter has counted.",
                [q(f"{sel('ssd_pel_last_event_timestamp_seconds')} * 1000", instant=True,
                   fmt="table")],
                transformations=[organize(hide=("instance", "device", "serial"),
                                          order=("type", "Value"),
                                          rename={"Value": "newest"})],
                overrides=[{"matcher": {"id": "byName", "options": "newest"},
                            "properties": [{"id": "unit", "value": "dateTimeAsIso"}]}],
                sort_by=[("newest", True)], device_link=False), 8, 7)


def fleet(b: Board) -> None:
    b.row("NVMe: firmware, events, self-reported wear")
    b.add(table("Firmware activation pending",
                "Drives whose next controller reset activates another firmware slot: they "
                "change firmware on reboot (log 03h).",
                [q(with_model(f"({sel('ssd_firmware_activation_pending')} == 1)"),
                   instant=True, fmt="table")],
                transformations=[organize(hide=("Value", "serial"),
                                          order=("instance", "device", "model",
                                                 "firmware"))]), 8, 7)
    b.add(bargauge("Write amplification (drive-reported)",
                   "Media over host bytes written from each drive's own counters "
                   "(endurance groups, else OCP C0h over SMART), highest first.",
                   [q(f"topk(15, {sel('ssd_write_amplification_ratio')})", WHO,
                      instant=True)],
                   "none", min_=0, steps=thresholds("green", ("yellow", 3), ("red", 5))), 8, 7)
    b.add(table("Saved internal state",
                "Drives holding internal state they captured on their own "
                "(controller-initiated telemetry, log 08h): collect it for the vendor.",
                [q(with_model(f"({sel('ssd_telemetry_ctrl_data_available')} == 1)"),
                   instant=True, fmt="table")],
                transformations=[organize(hide=("Value", "serial"),
                                          order=("instance", "device", "model"))]), 8, 7)
    b.add(timeseries("Persistent log events",
                     "Events the drives' persistent event logs gained, per type, summed over "
                     "the fleet (ssd_pel_events_total).",
                     [q(f"sum by (type) (increase({sel('ssd_pel_events_total')}"
                        f"[$__rate_interval]))", "{{type}}")],
                     "none", bars=True, interval=POLL_RATE_INTERVAL, link=False), 12)
    b.add(_event_timeline(WHO + " {{type}}", "instance, device, type"), 12, 8)
