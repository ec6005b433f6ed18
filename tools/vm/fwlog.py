"""The firmware slot log (NVMe log 03h) in the VM: the exporter's
ssd_firmware_slot_info / ssd_firmware_activation_pending against `nvme fw-log
-o json` run in the same guest on the same controller (stage a).

nvme-cli 2.3's JSON (nvme-print.c json_fw_log): {"<dev>": {"Active Firmware
Slot (afi)": N, "Firmware Rev Slot K": "U64 (text)"}}, a slot listed when its
first byte is not zero; U64 is the slot's 8 bytes read as a little-endian
integer. The revision the exporter should show is worked out from those 8
bytes here (NUL reads as a space, other bytes outside 20h-7Eh as "?", then
trimmed), not from nvme-cli's own text, which prints every byte outside
21h-7Eh as ".". QEMU 7.2 reports one slot and no pending activation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tools.vm.prom import Sample, one, select, series_key

_SLOT = re.compile(r"Firmware Rev Slot (\d+)")


def revision(raw: int) -> str:
    """The exporter's label for a slot's 8 bytes (decode::printable)."""
    text = "".join(" " if b == 0 else chr(b) if 0x20 <= b <= 0x7E else "?"
                   for b in raw.to_bytes(8, "little"))
    return text.strip()


def expected(doc: dict) -> tuple[set[tuple[str, str, str]], int]:
    """(slot, revision, active) for every listed slot, and the pending flag."""
    (log,) = doc.values()
    afi = int(log["Active Firmware Slot (afi)"])
    active, nxt = afi & 7, (afi >> 4) & 7
    slots = set()
    for key, value in log.items():
        m = _SLOT.fullmatch(key)
        if m:
            raw = int(str(value).split()[0])
            slot = int(m.group(1))
            slots.add((str(slot), revision(raw), "true" if slot == active else "false"))
    return slots, int(nxt not in (0, active))


def check(r, share: Path, m1: list[Sample], m2: list[Sample], controllers: dict,
          checked: set) -> None:
    for dev, serial in controllers.items():
        path = share / "a" / f"{dev}-fw-log.json"
        try:
            want, pending = expected(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError) as e:
            r.check(f"{dev}.fw_log_nvme_cli_json", False, f"nvme fw-log gave no JSON: {e}")
            continue
        r.check(f"{dev}.fw_log_nvme_cli_lists_a_slot", bool(want), f"nvme-cli: {want}")
        for name, m in (("metrics-1", m1), ("metrics-2", m2)):
            rows = select(m, "ssd_firmware_slot_info", device=dev, serial=serial)
            checked.update(series_key(s) for s in rows)
            got = {(s.labels.get("slot"), s.labels.get("revision"), s.labels.get("active")) for s in rows
                   if s.value == 1}
            r.check(f"{dev}.ssd_firmware_slot_info ({name})", got == want,
                    f"exporter {sorted(got)}, nvme fw-log {sorted(want)}")
            s = one(m, "ssd_firmware_activation_pending", device=dev, serial=serial)
            if s is not None:
                checked.add(series_key(s))
            r.check(f"{dev}.ssd_firmware_activation_pending ({name})",
                    s is not None and s.value == pending,
                    f"exporter {s}, from nvme-cli's afi {pending}")
        page = one(m2, "ssd_page_supported", device=dev, page="fw_slot_log")
        errors = one(m2, "ssd_poll_errors_total", device=dev, source="fw_slot_log")
        r.check(f"{dev}.fw_slot_log_supported_without_errors",
                page is not None and page.value == 1 and errors is not None
                and errors.value == 0, f"{page}; {errors}")
