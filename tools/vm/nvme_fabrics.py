"""The NVMe over fabrics and multipath boot: one QEMU NVMe subsystem with two
controllers, each behind its own `pcie-root-port`, sharing one namespace (the kernel
makes a multipath head `nvmeXn1` and hidden paths `nvmeXcYn1`), and a Linux nvmet
target over TCP on loopback inside the guest, connected with nvme-cli.

The guest (tests/vm/guest/scenarios/nvme_fabrics.sh) writes sysfs, nvme-cli's
id-ctrl and smart-log, and scrapes of three exporter runs into the share's
`fabrics/` folder: by default (the TCP controller is a remote target, not watched),
with `--discovery.fabrics` (watched with `fabric="tcp"`, neither temperature nor
spare served), and after the controller the exporter polls is deleted (it fails
over to the other path under the same name). sysfs and nvme-cli are the oracle.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.vm.prom import one, select, show
from tools.vm.boot import Scenario, until_done
from tools.vm.work import read_json, read_scrape, read_text

MP_NQN = "nqn.2026-12.io.test:mp"
# QEMU 7.2 serves an nvme-subsys's nqn= after its own prefix.
QEMU_NQN_PREFIX = "nqn.2019-08.org.qemu:"
MP_SERIAL = "MPATH0001"
TCP_NQN = "nqn.2026-12.io.test:tcp"
IMAGES = ("mp0",)


def devices(work: Path) -> list[str]:
    return [
        "-device", "pcie-root-port,id=rp0,chassis=1,slot=1,bus=pcie.0",
        "-device", "pcie-root-port,id=rp1,chassis=2,slot=2,bus=pcie.0",
        "-device", f"nvme-subsys,id=subsys0,nqn={MP_NQN}",
        "-device", f"nvme,id=ctrl0,serial={MP_SERIAL},subsys=subsys0,bus=rp0",
        "-device", f"nvme,id=ctrl1,serial={MP_SERIAL},subsys=subsys0,bus=rp1",
        "-blockdev", f"driver=raw,node-name=mp0,file.driver=file,"
        f"file.filename={work / 'mp0.img'}",
        "-device", "nvme-ns,drive=mp0,nsid=1,bus=ctrl0,shared=on",
    ]


def drive(vm, drv) -> None:
    until_done(vm, drv, 150)


def _rows(path: Path) -> list[list[str]]:
    return [line.split() for line in read_text(path).splitlines() if line.strip()]


def _gts(text: str) -> float | None:
    """sysfs `16.0_GT/s_PCIe` (spaces made `_` by the guest) → transfers per second."""
    m = re.match(r"([0-9.]+)_GT/s", text)
    return float(m.group(1)) * 1e9 if m else None


class Sysfs:
    """What the guest wrote of sysfs."""

    def __init__(self, out: Path):
        # controller -> (transport, state, subsysnqn)
        self.ctrls = {r[0]: (r[1], r[2], r[3]) for r in _rows(out / "controllers.txt")
                      if len(r) >= 4}
        # subsystem -> (nqn, controllers, heads)
        self.subsystems = {}
        for r in _rows(out / "subsystems.txt"):
            if len(r) >= 2:
                ctrls = [e for e in r[2:] if re.fullmatch(r"nvme\d+", e)]
                heads = [e for e in r[2:] if re.fullmatch(r"nvme\d+n\d+", e)]
                self.subsystems[r[0]] = (r[1], ctrls, heads)
        self.hidden = {r[0]: r[1] for r in _rows(out / "blocks.txt") if len(r) == 2}
        self.links = {(r[0], r[1]): r[2] for r in _rows(out / "links.txt") if len(r) == 3}
        self.functions = {r[0]: r[1] for r in _rows(out / "functions.txt") if len(r) == 2}
        self.slots = {r[1]: r[0] for r in _rows(out / "slots.txt") if len(r) == 2}

    def subsystem(self, nqn: str) -> tuple[str, list[str], list[str]] | None:
        for name, (n, ctrls, heads) in self.subsystems.items():
            if n == nqn:
                return name, ctrls, heads
        return None


def check(r, share: Path) -> None:
    out = share / "fabrics"
    fs = Sysfs(out)
    mp = fs.subsystem(QEMU_NQN_PREFIX + MP_NQN)
    if not r.check("nvme_fabrics.sysfs_multipath",
                   mp is not None and len(mp[1]) == 2 and len(mp[2]) == 1
                   and all(fs.ctrls.get(c, ("",))[0] == "pcie" for c in mp[1])
                   and fs.hidden.get(mp[2][0]) == "0"
                   and any(re.fullmatch(r"nvme\d+c\d+n\d+", b) and h == "1"
                           for b, h in fs.hidden.items()),
                   f"subsystems {fs.subsystems}, controllers {fs.ctrls}, blocks "
                   f"{fs.hidden} (want two pcie controllers, one head hidden=0, hidden paths)"):
        return
    runs = {m: read_scrape(out / f"metrics-{m}.txt")
            for m in ("default", "fabrics", "failover-1", "failover-2", "unprivileged")}
    if not r.check("nvme_fabrics.scrapes", all(runs.values()),
                   f"empty scrapes: {[m for m, s in runs.items() if not s]} "
                   "(see fabrics/exporter-*.log, guest.log)"):
        return
    _multipath(r, out, fs, mp, runs)
    _failover(r, out, fs, mp, runs)
    _tcp(r, out, fs, runs)
    _unprivileged(r, out, mp, runs)


def _id(out: Path, ctrl: str) -> dict:
    js = read_json(out / f"{ctrl}-id-ctrl.json")
    return {k: str(js.get(k, "")).strip() for k in ("sn", "mn", "fr")}


def _multipath(r, out: Path, fs: Sysfs, mp, runs) -> None:
    name, ctrls, heads = mp
    ident = _id(out, ctrls[0])
    for m in ("default", "fabrics"):
        s = runs[m]
        infos = select(s, "ssd_device_info", serial=MP_SERIAL)
        r.check(f"nvme_fabrics.multipath.one_drive.{m}",
                [i.labels.get("device") for i in infos] == [name]
                and infos[0].labels.get("model") == ident["mn"]
                and infos[0].labels.get("firmware") == ident["fr"],
                f"want one ssd_device_info{{device={name!r}, serial={MP_SERIAL!r}, "
                f"model={ident['mn']!r}, firmware={ident['fr']!r}}}; the exporter serves "
                f"{[str(i) for i in infos]}")
        up = one(s, "ssd_device_up", device=name)
        r.check(f"nvme_fabrics.multipath.up.{m}", up is not None and up.value == 1,
                f"ssd_device_up {up}")
    s = runs["fabrics"]
    probed = {x.labels.get("block") for x in select(s, "ssd_probe_ios_total", result="ok")
              if x.value > 0 and x.labels.get("device") == name}
    paths = [show(x) for x in select(s, "ssd_probe_ios_total")
             if re.fullmatch(r"nvme\d+c\d+n\d+", x.labels.get("block") or "")]
    r.check("nvme_fabrics.multipath.probed_on_the_head", probed == set(heads) and not paths,
            f"probed blocks {sorted(probed)} (want the head {heads}); on hidden paths {paths[:2]}")
    info = one(s, "ssd_device_info", device=name)
    addr = info.labels.get("pci_address") if info else None
    ctrl = next((c for c in ctrls if fs.functions.get(c) == addr), None)
    r.check("nvme_fabrics.multipath.pci_address_as_sysfs", ctrl is not None,
            f"pci_address {addr!r}; the subsystem's functions "
            f"{ {c: fs.functions.get(c) for c in ctrls} }")
    if ctrl is None:
        return
    want_slot = fs.slots.get(addr.rsplit(".", 1)[0])
    r.check("nvme_fabrics.multipath.slot_as_sysfs", info.labels.get("slot") == want_slot,
            f"slot label {info.labels.get('slot')!r}; /fs/bus/pci/slots gives {want_slot!r} "
            f"for {addr} ({fs.slots})")
    for metric, attr, parse in (
            ("ssd_pcie_link_speed_transfers_per_second", "link_speed", _gts),
            ("ssd_pcie_link_width_lanes", "link_width", lambda t: float(t) if t.isdigit()
             else None)):
        for link in ("current", "max"):
            raw = fs.links.get((ctrl, f"{link}_{attr}"), "")
            want = parse(raw)
            got = one(s, metric, device=name, link=link)
            r.check(f"nvme_fabrics.multipath.{metric.removeprefix('ssd_pcie_')}.{link}",
                    want is not None and got is not None and got.value == want,
                    f"{ctrl} sysfs {link}_{attr} {raw!r} -> {want}; the exporter serves {got}")


def _failover(r, out: Path, fs: Sysfs, mp, runs) -> None:
    name, ctrls, _ = mp
    rows = _rows(out / "deleted.txt")
    gone = rows[0][0] if rows and len(rows[0]) == 2 else ""
    after = read_text(out / "controllers-after.txt").split()
    if not r.check("nvme_fabrics.failover.path_deleted",
                   gone in ctrls and gone not in after and len(rows) == 2,
                   f"deleted.txt {rows} (the polled controller, from the exporter's log); "
                   f"controllers after {after}"):
        return
    deleted_at = float(rows[0][1])
    other = next(c for c in ctrls if c != gone)
    for m in ("failover-1", "failover-2"):
        s = runs[m]
        up = one(s, "ssd_device_up", device=name)
        last = one(s, "ssd_last_poll_timestamp_seconds", device=name)
        r.check(f"nvme_fabrics.failover.up.{m}",
                up is not None and up.value == 1 and last is not None
                and last.value > deleted_at + 1,
                f"after deleting {gone} at {deleted_at:.0f}: ssd_device_up {up}, "
                f"last poll {last}")
    s = runs["failover-2"]
    infos = select(s, "ssd_device_info", serial=MP_SERIAL)
    r.check("nvme_fabrics.failover.same_drive",
            [i.labels.get("device") for i in infos] == [name]
            and infos[0].labels.get("pci_address") == fs.functions.get(other),
            f"want one drive {name} at {other}'s {fs.functions.get(other)}; "
            f"the exporter serves {[str(i) for i in infos]}")


def _tcp(r, out: Path, fs: Sysfs, runs) -> None:
    tcp = [c for c, (t, state, nqn) in fs.ctrls.items() if t == "tcp" and nqn == TCP_NQN]
    if not r.check("nvme_fabrics.tcp.connected",
                   len(tcp) == 1 and fs.ctrls[tcp[0]][1] == "live",
                   f"controllers {fs.ctrls} (want one live tcp controller); "
                   f"nvme connect said {read_text(out / 'connect.txt')[:200]!r}"):
        return
    ctrl = tcp[0]
    ident = _id(out, ctrl)
    smart = read_json(out / f"{ctrl}-smart-log.json")
    r.check("nvme_fabrics.tcp.nvmet_reports_0K_and_0_spare",
            smart.get("temperature") == 0 and smart.get("avail_spare") == 0,
            f"nvme smart-log of {ctrl}: temperature {smart.get('temperature')!r}, "
            f"avail_spare {smart.get('avail_spare')!r} (what would be a false critical)")
    sub = fs.subsystem(TCP_NQN)
    names = {ctrl} | ({sub[0]} if sub else set())
    default = runs["default"]
    seen = [str(i) for i in select(default, "ssd_device_info")
            if i.labels.get("serial") == ident["sn"] or i.labels.get("fabric")]
    log = read_text(out / "exporter-default.log")
    said = [line for line in log.splitlines() if "a remote target, not watched" in line]
    r.check("nvme_fabrics.tcp.not_watched_by_default", not seen and len(said) == 1
            and ctrl in said[0],
            f"served {seen}; log lines {said[:2]} (want one naming {ctrl})")
    s = runs["fabrics"]
    infos = select(s, "ssd_device_info", fabric="tcp")
    if not r.check("nvme_fabrics.tcp.watched_with_fabrics",
                   len(infos) == 1 and infos[0].labels.get("device") in names
                   and infos[0].labels.get("serial") == ident["sn"]
                   and infos[0].labels.get("model") == ident["mn"]
                   and infos[0].labels.get("transport") == "nvme",
                   f"want one ssd_device_info{{fabric='tcp', serial={ident['sn']!r}, "
                   f"model={ident['mn']!r}}} named one of {sorted(names)}; served "
                   f"{[str(i) for i in select(s, 'ssd_device_info')]}"):
        return
    dev = infos[0].labels.get("device")
    up = one(s, "ssd_device_up", device=dev)
    r.check("nvme_fabrics.tcp.up", up is not None and up.value == 1, f"ssd_device_up {up}")
    unjudged = [show(x) for x in s if x.labels.get("device") == dev and (
        x.name in ("ssd_temperature_celsius", "ssd_available_spare_ratio")
        or (x.name == "ssd_health_problem"
            and re.search("spare|temperature", x.labels.get("problem") or "")))]
    r.check("nvme_fabrics.tcp.no_temperature_or_spare", not unjudged,
            f"served for {dev}: {unjudged[:3]}")
    probed = [show(x) for x in select(s, "ssd_probe_ios_total", device=dev)]
    r.check("nvme_fabrics.tcp.not_probed", not probed, f"probe series {probed[:2]}")


def _unprivileged(r, out: Path, mp, runs) -> None:
    """As nobody (no access to /dev/nvme*): identity from sysfs, the temperature from
    hwmon equal to the SMART log's (nvme-cli, read as root before), up, the refused
    pages unsupported rather than failed, said once."""
    name, ctrls, _ = mp
    s = runs["unprivileged"]
    ident = _id(out, ctrls[0])
    info = one(s, "ssd_device_info", device=name)
    r.check("nvme_fabrics.unprivileged.identity_from_sysfs",
            info is not None and info.labels.get("serial") == MP_SERIAL
            and info.labels.get("model") == ident["mn"] and info.labels.get("firmware") == ident["fr"],
            f"want {name} {ident}; served {info}")
    up = one(s, "ssd_device_up", device=name)
    r.check("nvme_fabrics.unprivileged.up", up is not None and up.value == 1,
            f"ssd_device_up {up}")
    smart = read_json(out / f"{ctrls[0]}-smart-log.json")
    kelvin = smart.get("temperature")
    temp = one(s, "ssd_temperature_celsius", device=name, sensor="composite")
    r.check("nvme_fabrics.unprivileged.temperature_from_hwmon",
            isinstance(kelvin, int) and kelvin > 0 and temp is not None
            and temp.value == kelvin - 273,
            f"nvme smart-log (root) {kelvin} K; served {temp}; hwmon "
            f"{read_text(out / 'hwmon.txt').split()[:4]}")
    refused = {x.labels.get("page"): x.value for x in select(s, "ssd_page_supported", device=name)}
    failed = [show(x) for x in select(s, "ssd_poll_errors_total", device=name) if x.value > 0]
    r.check("nvme_fabrics.unprivileged.pages_unsupported_not_failed",
            refused.get("smart_log") == 0 and refused.get("identify") == 0 and not failed,
            f"ssd_page_supported {refused}; poll errors {failed}")
    link = one(s, "ssd_pcie_link_width_lanes", device=name, link="current")
    r.check("nvme_fabrics.unprivileged.pcie_link", link is not None and link.value >= 1,
            f"ssd_pcie_link_width_lanes {link}")
    log = read_text(out / "exporter-unprivileged.log")
    said = [line for line in log.splitlines() if "serving what sysfs gives instead" in line]
    r.check("nvme_fabrics.unprivileged.said_once", len(said) == 1,
            f"{len(said)} log lines 'serving what sysfs gives instead': {said[:2]}")


SCENARIO = Scenario(name="nvme_fabrics", images=IMAGES, devices=devices, drive=drive,
                    check=check, timeout=180)
