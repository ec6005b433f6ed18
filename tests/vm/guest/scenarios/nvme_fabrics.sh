# The NVMe over fabrics and multipath boot (busybox sh; the host side is
# tools/vm/nvme_fabrics.py). QEMU gives one NVMe subsystem with two controllers
# (each behind its own pcie-root-port) sharing one namespace: the kernel makes a
# multipath head. The guest adds a Linux nvmet target over TCP on loopback and
# connects to it. Then: the exporter by default (the TCP controller not watched),
# with --discovery.fabrics (watched), and the path it polls deleted (failover).
# This script only collects: sysfs, nvme-cli, scrapes and logs.
. /guest/lib.sh

OUT=$SHARE/fabrics
mkdir -p "$OUT"
ip link set lo up

# The two PCIe controllers of the QEMU subsystem.
_n=100
while [ "$_n" -gt 0 ] && [ "$(ls -d /sys/class/nvme/nvme* 2>/dev/null | wc -l)" -lt 2 ]; do
    usleep 100000
    _n=$((_n - 1))
done

# The NVMe over TCP target (nvmet) on loopback, backed by a tmpfs file.
NQN=nqn.2026-12.io.test:tcp
CFG=/sys/kernel/config/nvmet
mkdir -p /sys/kernel/config /tcp
mount -t configfs none /sys/kernel/config
mount -t tmpfs tmpfs /tcp
dd if=/dev/zero of=/tcp/ns1.img bs=1M count=32 2>/dev/null
mkdir "$CFG/subsystems/$NQN"
echo 1 > "$CFG/subsystems/$NQN/attr_allow_any_host"
echo TCPTARGET0001 > "$CFG/subsystems/$NQN/attr_serial" 2>/dev/null
mkdir "$CFG/subsystems/$NQN/namespaces/1"
echo /tcp/ns1.img > "$CFG/subsystems/$NQN/namespaces/1/device_path"
echo 1 > "$CFG/subsystems/$NQN/namespaces/1/buffered_io"
echo 1 > "$CFG/subsystems/$NQN/namespaces/1/enable"
mkdir "$CFG/ports/1"
echo 127.0.0.1 > "$CFG/ports/1/addr_traddr"
echo tcp > "$CFG/ports/1/addr_trtype"
echo 4420 > "$CFG/ports/1/addr_trsvcid"
echo ipv4 > "$CFG/ports/1/addr_adrfam"
ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$NQN" \
    --hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e1f0000-0000-4000-8000-000000000001 \
    > "$OUT/connect.txt" 2>&1
_n=100
while [ "$_n" -gt 0 ] && ! grep -qx tcp /sys/class/nvme/nvme*/transport 2>/dev/null; do
    usleep 100000
    _n=$((_n - 1))
done

# sysfs as the kernel built it: "<controller> <transport> <state> <subsysnqn> <address>",
# the subsystems' entries and each head's hidden flag, each PCIe function's link.
for c in /sys/class/nvme/nvme*; do
    n=${c##*/}
    echo "$n $(cat "$c/transport") $(cat "$c/state") $(cat "$c/subsysnqn")" \
        "$(tr ' ' , < "$c/address")"
    fn=$(readlink -f "$c/device")
    for f in current_link_speed current_link_width max_link_speed max_link_width; do
        [ -e "$fn/$f" ] && echo "$n $f $(cat "$fn/$f" | tr ' ' _)" >> "$OUT/links.txt"
    done
    [ -e "$fn/current_link_speed" ] && echo "$n ${fn##*/}" >> "$OUT/functions.txt"
    nvme id-ctrl "/dev/$n" -o json > "$OUT/$n-id-ctrl.json" 2> "$OUT/$n-id-ctrl.err"
    nvme smart-log "/dev/$n" -o json > "$OUT/$n-smart-log.json" 2> "$OUT/$n-smart-log.err"
done > "$OUT/controllers.txt" 2>&1
for s in /sys/class/nvme-subsystem/nvme-subsys*; do
    echo "${s##*/} $(cat "$s/subsysnqn") $(ls "$s" | grep -E '^nvme[0-9]+(n[0-9]+)?$' | tr '\n' ' ')"
done > "$OUT/subsystems.txt" 2>&1
for b in /sys/block/nvme*; do
    echo "${b##*/} $(cat "$b/hidden" 2>/dev/null || echo -)"
done > "$OUT/blocks.txt" 2>&1
for s in /sys/bus/pci/slots/*; do
    [ -e "$s/address" ] && echo "${s##*/} $(cat "$s/address")"
done > "$OUT/slots.txt" 2>&1
nvme list-subsys -o json > "$OUT/list-subsys.json" 2> "$OUT/list-subsys.err"

# run_exporter <log> [flags...]: start the exporter, wait until every drive it serves is up
run_exporter() {
    _log=$1
    shift
    ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval=1s --poll.timeout=3s \
        --discovery.interval=1s --probe.rate=20 --log.level=debug --metrics.diagnostics "$@" 2>>"$_log" &
    EXPORTER_PID=$!
    _n=60
    while [ "$_n" -gt 0 ]; do
        scrape /tmp/m
        if grep -q '^ssd_device_up' /tmp/m && ! grep -Eq '^ssd_device_up\{.*\} 0(\.0)?$' /tmp/m \
            && grep -q '^ssd_probe_ios_total{.*result="ok"} [1-9]' /tmp/m; then
            return 0
        fi
        usleep 500000
        _n=$((_n - 1))
    done
    log "the exporter's drives were not all up within 30 s"
}

# By default: the TCP controller is a remote target, not watched.
run_exporter "$OUT/exporter-default.log"
sleep 2
scrape "$OUT/metrics-default.txt"
kill "$EXPORTER_PID" 2>/dev/null
wait "$EXPORTER_PID" 2>/dev/null

# With --discovery.fabrics: watched, with fabric="tcp", not judged on spare/temperature.
run_exporter "$OUT/exporter-fabrics.log" --discovery.fabrics
sleep 3
scrape "$OUT/metrics-fabrics.txt"

# Failover: remove the PCI function of the controller the exporter polls (the first
# live one of the subsystem, as its log says; a PCIe controller has no
# delete_controller) and let it poll through the other.
POLLED=$(grep -o 'polled through nvme[0-9]*' "$OUT/exporter-fabrics.log" | head -n 1)
POLLED=${POLLED#polled through }
echo "$POLLED $(date +%s)" > "$OUT/deleted.txt"
[ -n "$POLLED" ] && echo 1 > "$(readlink -f "/sys/class/nvme/$POLLED/device")/remove"
sleep 5
date +%s >> "$OUT/deleted.txt"
scrape "$OUT/metrics-failover-1.txt"
sleep 2
scrape "$OUT/metrics-failover-2.txt"
ls /sys/class/nvme > "$OUT/controllers-after.txt" 2>&1
kill "$EXPORTER_PID" 2>/dev/null
wait "$EXPORTER_PID" 2>/dev/null
nvme disconnect -n "$NQN" > /dev/null 2>&1

# Without privileges: as nobody, which may not open /dev/nvme* (root's, mode 600),
# the exporter serves what sysfs and hwmon give. hwmon's nvme chip as the oracle.
for h in /sys/class/nvme/nvme*/hwmon*/temp*_input /sys/class/nvme/nvme*/device/hwmon/hwmon*/temp*_input; do
    [ -e "$h" ] && echo "$h $(cat "$h")"
done > "$OUT/hwmon.txt" 2>&1
ls -l /dev/nvme* > "$OUT/nodes.txt" 2>&1
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >> /etc/group
su -s /bin/sh nobody -c "exec ssd_exporter --web.listen-address=127.0.0.1:10049 \
    --poll.interval=1s --poll.timeout=3s --discovery.interval=1s --probe.disable \
    --log.level=debug --metrics.diagnostics" 2>>"$OUT/exporter-unprivileged.log" &
EXPORTER_PID=$!
_n=40
while [ "$_n" -gt 0 ]; do
    scrape /tmp/m
    grep -q '^ssd_device_up{.*} 1' /tmp/m && break
    usleep 500000
    _n=$((_n - 1))
done
sleep 3
scrape "$OUT/metrics-unprivileged.txt"
kill "$EXPORTER_PID" 2>/dev/null
sync_stage done 10
