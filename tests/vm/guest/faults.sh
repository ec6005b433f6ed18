# Stage f (sourced by main.sh): faults injected while the exporter runs (issue 14,
# item 5). Each fault stage takes the exporter's threads and fds before the fault
# (settled_stats), scrapes /metrics every 0.5 s while the host injects and clears the
# fault (watch_metrics: each scrape's duration, threads and fds in its first line),
# and takes threads and fds again after the recovery. tools/vm/faults.py judges.

# The blocking pool's threads outlive their work by tokio's keep-alive (10 s): the
# "after" figures are taken once the thread count is back to the "before" one, or
# after FAULT_SETTLE seconds (a leaked thread never goes).
FAULT_SETTLE=12

# settle_after <before-file> <after-file>
settle_after() {
    _want=$(awk '$1 != "-" { print $1 }' "$1" | sort -n | head -n 1)
    _n=$FAULT_SETTLE
    while [ "$_n" -gt 0 ]; do
        _now=$(proc_stats | cut -d' ' -f1)
        [ "$_now" = - ] && break
        [ -n "$_want" ] && [ "$_now" -le "$_want" ] && break
        sleep 1
        _n=$((_n - 1))
    done
    settled_stats "$2"
}

# f-nvme: the hot-plugged controller (serial NVME0002) made slow by a QEMU throttle
# until a probe read is stuck in it, then hot-unplugged with that read in flight;
# f-replug: the same controller plugged back.
fault_nvme() {
    mkdir -p "$SHARE/f-nvme" "$SHARE/f-replug"
    settled_stats "$SHARE/f-nvme/stats-before"
    sync_stage f-nvme && watch_metrics f-nvme 40
    ls /dev > "$SHARE/f-nvme/dev.txt"
    kill -0 "$EXPORTER_PID" 2>/dev/null && echo alive > "$SHARE/f-nvme/exporter-alive"
    sync_stage f-replug && watch_metrics f-replug 30
    settle_after "$SHARE/f-nvme/stats-before" "$SHARE/f-replug/stats-after"
    scrape "$SHARE/f-replug/metrics-after.txt"
    kill -0 "$EXPORTER_PID" 2>/dev/null && echo alive > "$SHARE/f-replug/exporter-alive"
}

# scsi_debug's fault knobs (module-wide: they act on its one disk, $SAS)
SDEBUG=/sys/bus/pseudo/drivers/scsi_debug

# sdebug <opts> <every_nth>
sdebug() {
    echo "$2" > "$SDEBUG/every_nth" && echo "$1" > "$SDEBUG/opts" ||
        log "setting scsi_debug opts=$1 every_nth=$2 failed"
    echo "opts=$(cat "$SDEBUG/opts") every_nth=$(cat "$SDEBUG/every_nth")" >> "$SHARE/f-sdebug.log"
}

# fault_scsi <name> <opts> <every_nth>: the fault on while the host watches <name>,
# off while it watches <name>-after (until the disk recovered)
fault_scsi() {
    mkdir -p "$SHARE/$1" "$SHARE/$1-after"
    settled_stats "$SHARE/$1/stats-before"
    dmesg > "$SHARE/$1/dmesg-before.txt"
    sdebug "$2" "$3"
    sync_stage "$1" && watch_metrics "$1" 40
    sdebug 0 0
    # the kernel's own account of what the disk answered (sense keys it printed)
    dmesg > "$SHARE/$1/dmesg-after.txt"
    sync_stage "$1-after" && watch_metrics "$1-after" 40
    settle_after "$SHARE/$1/stats-before" "$SHARE/$1-after/stats-after"
    kill -0 "$EXPORTER_PID" 2>/dev/null && echo alive > "$SHARE/$1-after/exporter-alive"
}

# the three scsi_debug faults: every read a medium error (opts 2, sectors from
# medium_error_start), every command a recovered error (opts 8), every command
# ignored so that it times out (opts 4). Reads time out after 2 s (the block
# layer's timeout for the disk, default 30 s), then the kernel retries them.
fault_scsi_debug() {
    [ -n "${SAS:-}" ] || { log "no scsi_debug disk: no SCSI faults"; return 0; }
    echo 2 > "/sys/block/$SAS/device/timeout"
    fault_scsi f-medium 2 0
    fault_scsi f-recovered 8 1
    fault_scsi f-timeout 4 1
}
