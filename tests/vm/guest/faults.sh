# Stage f (sourced by main.sh): faults injected while the exporter runs (issue 14,
# item 5). Each fault stage takes the exporter's threads and fds before the fault
# (settled_stats), scrapes /metrics every 0.5 s while the host injects and clears the
# fault (watch_metrics: each scrape's duration, threads and fds in its first line),
# and takes threads and fds again after the recovery. tests/vm/faults.py judges.

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
