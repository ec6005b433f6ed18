# Helpers for the guest scenario (busybox sh). Sourced by main.sh.
#
# Coordination with the host (tools/vm/run.py) goes through files in the 9p share:
#   guest writes $SHARE/stage-<name>.ready, the host acts (QMP) and writes
#   $SHARE/stage-<name>.go; in a watch_metrics the guest scrapes /metrics into
#   $SHARE/<name>/scrape-NNN.txt until the host writes $SHARE/stage-<name>.stop.
# Every wait is bounded: a missing host answer makes the guest give up, never hang.

SHARE=/mnt/host
METRICS_URL=http://127.0.0.1:10049/metrics

log() { echo "guest: $*"; }

# wait_file <path> <timeout-seconds>: 0 when the file appeared in time
wait_file() {
    _n=$(( $2 * 10 ))
    while [ "$_n" -gt 0 ]; do
        [ -e "$1" ] && return 0
        usleep 100000
        _n=$((_n - 1))
    done
    return 1
}

# sync_stage <name> [timeout]: tell the host we are ready, wait for its go
sync_stage() {
    log "stage $1 ready"
    echo "$(date +%s)" > "$SHARE/stage-$1.ready"
    if wait_file "$SHARE/stage-$1.go" "${2:-30}"; then
        log "stage $1 go"
        return 0
    fi
    log "stage $1: no go from the host"
    return 1
}

# scrape <file>: fetch /metrics into a file (empty file on failure).
# Not `wget -T`: busybox 1.35's wget segfaults with it; `timeout` bounds it instead.
scrape() {
    timeout 5 wget -q -O "$1.tmp" "$METRICS_URL" 2>/dev/null || : > "$1.tmp"
    mv "$1.tmp" "$1"
}

# uptime: the guest's /proc/uptime in seconds (10 ms resolution), for scrape timing
uptime() { cut -d' ' -f1 /proc/uptime; }

# proc_stats: "<threads> <open fds>" of the exporter (EXPORTER_PID), "- -" when gone
proc_stats() {
    _t=$(awk '/^Threads:/ { print $2 }' "/proc/$EXPORTER_PID/status" 2>/dev/null)
    if [ -n "$_t" ]; then
        echo "$_t $(ls "/proc/$EXPORTER_PID/fd" 2>/dev/null | wc -l)"
    else
        echo "- -"
    fi
}

# settled_stats <file>: proc_stats three times 0.3 s apart (between scrapes, so the
# scrape's own socket is not counted), one line each
settled_stats() {
    : > "$1"
    for _k in 1 2 3; do
        proc_stats >> "$1"
        usleep 300000
    done
}

# timed_scrape <path without .txt>: one scrape into <path>.txt whose first line is the
# guest's clock, the scrape's start and end (uptime) and the exporter's threads and
# fds; renamed into place so the host never reads a half-written scrape
timed_scrape() {
    _u0=$(uptime)
    scrape "$1.tmp"
    _u1=$(uptime)
    { echo "$(date +%s) $_u0 $_u1 $(proc_stats)"; cat "$1.tmp"; } > "$1.part"
    rm -f "$1.tmp"
    mv "$1.part" "$1.txt"
}

# watch_metrics <name> [timeout]: scrape every 0.5 s into $SHARE/<name>/ until the host says stop.
# First line of each scrape file: "<epoch> <uptime before> <uptime after> <threads> <fds>".
watch_metrics() {
    mkdir -p "$SHARE/$1"
    _i=0
    _n=$(( ${2:-20} * 2 ))
    while [ "$_i" -lt "$_n" ]; do
        [ -e "$SHARE/stage-$1.stop" ] && return 0
        timed_scrape "$(printf '%s/%s/scrape-%03d' "$SHARE" "$1" "$_i")"
        _i=$((_i + 1))
        usleep 500000
    done
    log "watch $1: no stop from the host"
    return 1
}

# snapshot_nvme <dir> <ctrl>: raw nvme-cli outputs for one controller
snapshot_nvme() {
    nvme smart-log "/dev/$2" -o json > "$1/$2-smart-log.json" 2> "$1/$2-smart-log.err"
    nvme id-ctrl "/dev/$2" -o json > "$1/$2-id-ctrl.json" 2> "$1/$2-id-ctrl.err"
    nvme id-ns "/dev/${2}n1" -o json > "$1/$2-id-ns.json" 2> "$1/$2-id-ns.err"
    nvme fw-log "/dev/$2" -o json > "$1/$2-fw-log.json" 2> "$1/$2-fw-log.err"
}

# up <device>: /tmp/m (the last scrape) has ssd_device_up 1 for the device. The value
# matters: before its first poll the exporter serves a placeholder with up 0.
up() {
    grep -Eq '^ssd_device_up\{([^}]*,)?device="'"$1"'"[,}].* 1(\.0)?$' /tmp/m
}

# wait_up <tries> <device>...: scrape every 0.5 s, at most <tries> times, until every
# named device is up in /tmp/m; false if one never was.
wait_up() {
    _tries=$1
    shift
    while [ "$_tries" -gt 0 ]; do
        scrape /tmp/m
        _all=1
        for _wd in "$@"; do up "$_wd" || { _all=0; break; }; done
        [ "$_all" = 1 ] && return 0
        usleep 500000
        _tries=$((_tries - 1))
    done
    return 1
}

# disk_by_vendor <vendor>: the sd* disk whose SCSI vendor (trimmed) is <vendor>
disk_by_vendor() {
    for _d in /sys/block/sd*; do
        [ -e "$_d/device/vendor" ] || continue
        if [ "$(sed 's/ *$//' "$_d/device/vendor")" = "$1" ]; then
            echo "${_d##*/}"
            return 0
        fi
    done
    return 1
}

# wait_disk <vendor> <timeout-seconds>: the disk's name once it appeared, within the time
wait_disk() {
    _n=$(( $2 * 10 ))
    while [ "$_n" -gt 0 ]; do
        if _d=$(disk_by_vendor "$1") && [ -b "/dev/$_d" ]; then
            echo "$_d"
            return 0
        fi
        usleep 100000
        _n=$((_n - 1))
    done
    return 1
}

# load_scsi_disks: the virtio-scsi HBA (QEMU's scsi-hd) and scsi_debug, after the AHCI
# disk is sda, so the existing names hold; writes $SHARE/env/scsi-disks (VSCSI=sdX,
# SAS=sdY) and sets VSCSI and SAS. The scsi_debug disk is RAM, zeros when loaded:
# filled with random bytes so that a write of any content changes its checksum.
# medium_error_*: with opts=2 (stage f-medium) every sector reads as a medium error
SCSI_DEBUG_ARGS="dev_size_mb=64 inq_vendor=SEAGATE inq_product=XS800LE10003
    medium_error_start=0 medium_error_count=131072"
load_scsi_disks() {
    wait_disk ATA 20 > /dev/null || log "no ATA disk before loading the SCSI HBAs"
    while read -r _ko; do
        case $_ko in
            */scsi_debug.ko)
                VSCSI=$(wait_disk QEMU 20) || log "virtio-scsi disk did not appear"
                # shellcheck disable=SC2086
                insmod "$_ko" $SCSI_DEBUG_ARGS || log "insmod $_ko failed" ;;
            *) insmod "$_ko" || log "insmod $_ko failed" ;;
        esac
    done < /etc/modules-late.order
    SAS=$(wait_disk SEAGATE 20) || log "scsi_debug disk did not appear"
    [ -n "${VSCSI:-}" ] || VSCSI=$(wait_disk QEMU 1)
    echo "VSCSI=${VSCSI:-}" > "$SHARE/env/scsi-disks"
    echo "SAS=${SAS:-}" >> "$SHARE/env/scsi-disks"
    if [ -n "${SAS:-}" ]; then
        dd if=/dev/urandom of="/dev/$SAS" bs=1M count=64 conv=fsync 2>/dev/null ||
            log "filling /dev/$SAS failed"
    fi
}
