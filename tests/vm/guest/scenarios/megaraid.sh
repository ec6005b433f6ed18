# The MegaRAID boot (busybox sh; the host side is tools/vm/megaraid.py): two scsi-hd
# disks behind QEMU's megasas-gen2 (megaraid_sas, loaded by /init from
# etc/modules-megaraid.order). The guest sees them as the controller's logical
# drives; the exporter, with discovery.megaraid, reaches the physical drives through
# the driver's management node, which it makes itself (it is absent at boot). It runs
# before smartctl, which would make the node too. This script only collects.
. /guest/lib.sh

OUT=$SHARE/megaraid
mkdir -p "$OUT"
ip link set lo up

wait_file /sys/block/sda 30 || log "no logical drive appeared on megaraid_sas"
for h in /sys/class/scsi_host/host*; do
    echo "${h##*/} $(cat "$h/proc_name")"
done > "$OUT/hosts.txt" 2>&1
grep ' megaraid_sas_ioctl$' /proc/devices > "$OUT/proc-devices.txt" 2>&1
if [ -e /dev/megaraid_sas_ioctl_node ]; then echo present; else echo absent; fi \
    > "$OUT/node-at-boot"

ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval=1s --poll.timeout=3s \
    --discovery.interval=1s --discovery.megaraid --probe.disable --log.level=debug \
    --metrics.diagnostics 2>>"$OUT/exporter.log" &
EXPORTER_PID=$!
HOST=$(awk '$2 == "megaraid_sas" { sub("host", "", $1); print $1; exit }' "$OUT/hosts.txt")
# QEMU lists scsi-id 1 as device 256 ((scsi-id << 8) | lun).
wait_up 60 "megaraid${HOST}-pd0" "megaraid${HOST}-pd256" \
    || log "the exporter did not serve megaraid${HOST}-pd0 and -pd256 within 30 s"
scrape "$OUT/metrics-1.txt"
sleep 2
scrape "$OUT/metrics-2.txt"
kill "$EXPORTER_PID" 2>/dev/null
# The node as the exporter left it: "c <major>:<minor>" from busybox stat.
stat -c '%F %t:%T' /dev/megaraid_sas_ioctl_node > "$OUT/node-after" 2>&1

# The oracle: smartctl through the same controller, drive by drive (-d megaraid,N
# with N the scsi-id: QEMU's pass-through target).
for n in 0 1; do
    smartctl -j -x -d "megaraid,$n" /dev/sda > "$OUT/pd$n-smartctl.json" 2> "$OUT/pd$n.err"
    smartctl -j -H -d "megaraid,$n" /dev/sda > "$OUT/pd$n-health.json" 2>> "$OUT/pd$n.err"
done
smartctl --scan-open > "$OUT/scan-open.txt" 2>&1

# The unit's drop-in (systemd/megaraid): its node maker against the real
# /proc/devices, over no node and over a stale one (another major).
# The initramfs has no accounts: the two the script names, as on a host.
grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root:x:0:0:root:/:/bin/sh' >> /etc/passwd
grep -q '^root:' /etc/group 2>/dev/null || echo 'root:x:0:' >> /etc/group
grep -q '^ssd_exporter:' /etc/group 2>/dev/null || echo 'ssd_exporter:x:990:' >> /etc/group
for before in none stale; do
    rm -f /dev/megaraid_sas_ioctl_node
    [ "$before" = stale ] && mknod -m 0600 /dev/megaraid_sas_ioctl_node c 1 3
    sh /usr/lib/ssd_exporter/megaraid-node >> "$OUT/node-maker.log" 2>&1
    echo "$before $(stat -c '%F %t:%T %G %a' /dev/megaraid_sas_ioctl_node 2>&1)"
done > "$OUT/node-maker.txt"
sync_stage done 10
