# The USB boot (busybox sh; the host side is tools/vm/usb.py): two disks behind QEMU's
# xHCI controller, one bulk-only (usb-storage, INQUIRY vendor QEMU: no SAT layer), one
# UAS (uas, a scsi-hd saying vendor ATA, so the exporter tries SAT; QEMU's scsi-hd
# answers no ATA PASS-THROUGH). Neither bridge is in drivedb.h. The script collects
# sysfs, smartctl (-d scsi: the identity oracle; -d sat: that no ATA PASS-THROUGH is
# answered), three scrapes, then the bulk-only disk's hot unplug (the host's
# device_del at stage unplug) and the scrapes after it.
. /guest/lib.sh

OUT=$SHARE/usb
mkdir -p "$OUT"
ip link set lo up

# usb_disk <driver>: the sd* disk whose USB interface is bound to <driver>
usb_disk() {
    for _d in /sys/block/sd*; do
        _p=$(readlink -f "$_d/device")
        while [ -n "$_p" ] && [ "$_p" != /sys ]; do
            if [ -e "$_p/bInterfaceNumber" ]; then
                [ "$(basename "$(readlink -f "$_p/driver")")" = "$1" ] \
                    && { echo "${_d##*/}"; return 0; }
                break
            fi
            _p=${_p%/*}
        done
    done
    return 1
}

# wait_usb_disk <driver> <timeout-seconds>
wait_usb_disk() {
    _n=$(( $2 * 10 ))
    while [ "$_n" -gt 0 ]; do
        _d=$(usb_disk "$1") && [ -b "/dev/$_d" ] && { echo "$_d"; return 0; }
        usleep 100000
        _n=$((_n - 1))
    done
    return 1
}

BOT=$(wait_usb_disk usb-storage 30) || log "no disk appeared on usb-storage"
UAS=$(wait_usb_disk uas 30) || log "no disk appeared on uas"
{ echo "BOT=${BOT:-}"; echo "UAS=${UAS:-}"; } > "$OUT/disks"

# Each disk: its sysfs path and its USB device's ids and serial string (the
# folder holding idVendor above the interface), smartctl as the oracle.
for d in $BOT $UAS; do
    path=$(readlink -f "/sys/block/$d")
    usbdev=$path
    while [ -n "$usbdev" ] && [ ! -e "$usbdev/idVendor" ]; do usbdev=${usbdev%/*}; done
    {
        echo "path $path"
        echo "idVendor $(cat "$usbdev/idVendor" 2>/dev/null)"
        echo "idProduct $(cat "$usbdev/idProduct" 2>/dev/null)"
        echo "serial $(cat "$usbdev/serial" 2>/dev/null)"
        # The kernel's INQUIRY copy: smartctl -d scsi prints no vendor, product
        # or revision for a disk that says vendor ATA (it points to -d sat).
        echo "inquiry_vendor $(sed 's/ *$//' "/sys/block/$d/device/vendor")"
        echo "inquiry_product $(sed 's/ *$//' "/sys/block/$d/device/model")"
        echo "inquiry_revision $(sed 's/ *$//' "/sys/block/$d/device/rev")"
    } > "$OUT/$d-usb.txt"
    smartctl -j -x -d scsi "/dev/$d" > "$OUT/$d-smartctl.json" 2> "$OUT/$d-smartctl.err"
    smartctl -j -i -d sat "/dev/$d" > "$OUT/$d-sat.json" 2> "$OUT/$d-sat.err"
    smartctl -j -i "/dev/$d" > "$OUT/$d-auto.json" 2> "$OUT/$d-auto.err"
done

ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval=1s --poll.timeout=3s \
    --discovery.interval=1s --probe.rate=20 --log.level=debug --metrics.diagnostics \
    2>>"$OUT/exporter.log" &
EXPORTER_PID=$!
wait_up 60 "$BOT" "$UAS" || log "the exporter did not serve both USB disks within 30 s"
scrape "$OUT/metrics-1.txt"
sleep 3
scrape "$OUT/metrics-2.txt"
sleep 3
scrape "$OUT/metrics-3.txt"

# The hot unplug: the host takes the bulk-only disk away; its series must go, the
# other disk and the exporter stay.
if sync_stage unplug 20; then
    wait_file_gone() { _n=$(( $2 * 10 )); while [ -e "$1" ] && [ "$_n" -gt 0 ]; do
        usleep 100000; _n=$((_n - 1)); done; [ ! -e "$1" ]; }
    wait_file_gone "/sys/block/$BOT" 20 || log "/sys/block/$BOT still there 20 s after the unplug"
    gone=0
    _i=0
    while [ "$_i" -lt 40 ]; do
        scrape /tmp/m
        if [ -s /tmp/m ] && ! grep -q "device=\"$BOT\"" /tmp/m; then gone=1; break; fi
        usleep 500000
        _i=$((_i + 1))
    done
    echo "$gone $(uptime)" > "$OUT/unplug-gone"
    scrape "$OUT/metrics-4.txt"
    kill -0 "$EXPORTER_PID" 2>/dev/null && echo alive > "$OUT/exporter-alive"
fi
kill "$EXPORTER_PID" 2>/dev/null
sync_stage done 10
