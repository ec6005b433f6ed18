# The SAS HBA boot (busybox sh; the host side is tools/vm/sas_hba.py): two scsi-hd
# disks on QEMU's LSI SAS 1068 (mptsas, loaded by /init from etc/modules-sas_hba.order),
# attached through the kernel's SAS transport class. One reports itself as a SAS
# SSD (vendor SEAGATE), the other is QEMU's default disk (vendor QEMU: a virtual disk
# to the exporter). This script only collects: sysfs, smartctl, two scrapes.
. /guest/lib.sh

OUT=$SHARE/sas
mkdir -p "$OUT"
ip link set lo up

PHYSICAL=$(wait_disk SEAGATE 30) || log "the SEAGATE disk did not appear on mptsas"
VIRTUAL=$(wait_disk QEMU 30) || log "the QEMU disk did not appear on mptsas"
{ echo "PHYSICAL=${PHYSICAL:-}"; echo "VIRTUAL=${VIRTUAL:-}"; } > "$OUT/disks"

# The SAS transport class as the kernel built it, and each disk's link as sysfs shows
# it: "<end device> <its phy_identifier> <the port's first phy> <negotiated_linkrate>"
ls /sys/class/sas_host /sys/class/sas_phy /sys/class/sas_port /sys/class/sas_device \
    /sys/class/sas_end_device > "$OUT/sas-classes.txt" 2>&1
for p in /sys/class/sas_phy/*; do
    echo "${p##*/} $(cat "$p/negotiated_linkrate")"
done > "$OUT/sas-phys.txt" 2>&1
cat /sys/class/scsi_host/host*/proc_name > "$OUT/proc-names.txt" 2>&1
for d in $PHYSICAL $VIRTUAL; do
    path=$(readlink -f "/sys/block/$d")
    echo "$path" > "$OUT/$d-path"
    end=${path%%/target*}
    phy=$(ls -d "${end%/*}"/phy-* 2>/dev/null | head -n 1)
    echo "${end##*/} $(cat "$end/sas_device/${end##*/}/phy_identifier") ${phy##*/}" \
        "$(cat "$phy/sas_phy/${phy##*/}/negotiated_linkrate")" > "$OUT/$d-link" 2>&1
    smartctl -j -x "/dev/$d" > "$OUT/$d-smartctl.json" 2> "$OUT/$d-smartctl.err"
done

ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval=1s --poll.timeout=3s \
    --discovery.interval=1s --probe.rate=20 --log.level=debug --metrics.diagnostics 2>>"$OUT/exporter.log" &
EXPORTER_PID=$!
wait_up 60 "$PHYSICAL" "$VIRTUAL" || log "the exporter did not serve both SAS disks within 30 s"
scrape "$OUT/metrics-1.txt"
sleep 2
scrape "$OUT/metrics-2.txt"
kill "$EXPORTER_PID" 2>/dev/null
sync_stage done 10
