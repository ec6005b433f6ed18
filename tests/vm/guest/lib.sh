# Helpers for the guest scenario (busybox sh). Sourced by main.sh.
#
# Coordination with the host (tests/vm/run.py) goes through files in the 9p share:
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

# watch_metrics <name> [timeout]: scrape every 0.5 s into $SHARE/<name>/ until the host says stop
watch_metrics() {
    mkdir -p "$SHARE/$1"
    _i=0
    _n=$(( ${2:-20} * 2 ))
    while [ "$_i" -lt "$_n" ]; do
        [ -e "$SHARE/stage-$1.stop" ] && return 0
        _f=$(printf '%s/%s/scrape-%03d' "$SHARE" "$1" "$_i")
        scrape "$_f.tmp"
        # first line: the guest's clock; renamed into place so the host never
        # reads a half-written scrape
        { date +%s; cat "$_f.tmp"; } > "$_f.part"
        rm -f "$_f.tmp"
        mv "$_f.part" "$_f.txt"
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
}

# up <device>: /tmp/m (the last scrape) has ssd_device_up 1 for the device. The value
# matters: before its first poll the exporter serves a placeholder with up 0.
up() {
    grep -Eq '^ssd_device_up\{([^}]*,)?device="'"$1"'"[,}].* 1(\.0)?$' /tmp/m
}
