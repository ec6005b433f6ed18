# Stage e (sourced by main.sh with --bench): CPU per poll, exporter vs smartctl, for
# nvme0 and for sda, then for each SCSI disk (run_bench_scsi).
# Writes raw /proc/<pid>/stat lines, scrapes and /proc/uptime into $SHARE/bench;
# tools/vm/bench.py does the arithmetic (clock ticks assumed 100 Hz: busybox has no
# getconf, and Debian's kernel uses USER_HZ 100).
BENCH_WINDOW=20
SMARTCTL_RUNS=50

run_bench() {
    B=$SHARE/bench
    mkdir -p "$B"
    kill "$EXPORTER_PID" 2>/dev/null
    sleep 0.5
    start_exporter 100ms
    _n=60
    while [ "$_n" -gt 0 ]; do
        scrape /tmp/m
        up nvme0 && break
        usleep 500000
        _n=$((_n - 1))
    done
    sleep 2
    echo "$BENCH_WINDOW" > "$B/window"
    cat /proc/uptime > "$B/uptime-0"
    cat "/proc/$EXPORTER_PID/stat" > "$B/exporter-stat-0"
    cat /proc/$EXPORTER_PID/task/*/stat > "$B/exporter-tasks-0" 2>/dev/null
    scrape "$B/metrics-0.txt"
    sleep "$BENCH_WINDOW"
    scrape "$B/metrics-1.txt"
    cat "/proc/$EXPORTER_PID/stat" > "$B/exporter-stat-1"
    cat /proc/$EXPORTER_PID/task/*/stat > "$B/exporter-tasks-1" 2>/dev/null
    cat /proc/uptime > "$B/uptime-1"

    # smartctl with the exporter stopped, so the two do not share the CPUs
    kill "$EXPORTER_PID" 2>/dev/null
    sleep 0.5
    echo "$SMARTCTL_RUNS" > "$B/smartctl-runs"
    cat /proc/uptime > "$B/smartctl-uptime-0"
    # the subshell's own stat: cutime/cstime hold its reaped children's CPU
    sh -c 'i=0
        while [ $i -lt '"$SMARTCTL_RUNS"' ]; do
            smartctl -j -x /dev/nvme0 > /dev/null 2>&1
            i=$((i + 1))
        done
        cat /proc/$$/stat' > "$B/smartctl-stat"
    cat /proc/uptime > "$B/smartctl-uptime-1"
    smartctl -j -x /dev/nvme0 > "$B/smartctl-sample.json" 2>&1
    echo $? > "$B/smartctl-rc"

    # the same for the SATA disk (exit status 4 on QEMU's disk: see checks)
    cat /proc/uptime > "$B/smartctl-sda-uptime-0"
    sh -c 'i=0
        while [ $i -lt '"$SMARTCTL_RUNS"' ]; do
            smartctl -j -x /dev/sda > /dev/null 2>&1
            i=$((i + 1))
        done
        cat /proc/$$/stat' > "$B/smartctl-sda-stat"
    cat /proc/uptime > "$B/smartctl-sda-uptime-1"
    smartctl -j -x /dev/sda > "$B/smartctl-sda-sample.json" 2>&1
    echo $? > "$B/smartctl-sda-rc"
}

# The SCSI disks, one at a time: an exporter watching only that disk
# (--device.include), the probe off, discovery and logging as deployed, polling every
# 100 ms for SCSI_WINDOW s; its whole
# process's CPU (/proc/<pid>/stat) over the disk's polls, and its polling thread's
# (ssd_poll_cpu_seconds_total). Then smartctl -j -x of the disk SMARTCTL_RUNS times
# with the exporter stopped. Files: $SHARE/bench/scsi-<disk>/.
SCSI_WINDOW=10

# schedstat <file>: "<tid> <ns on CPU> <ns waiting> <slices>" per exporter thread
# (/proc/<pid>/task/<tid>/schedstat: the scheduler's exact runtime; utime/stime
# are sampled at each 10 ms tick)
schedstat() {
    for _t in /proc/$EXPORTER_PID/task/*; do
        echo "${_t##*/} $(cat "$_t/schedstat" 2>/dev/null)"
    done > "$1"
}

run_bench_scsi() {
    # the same exporter watching no drive: its idle CPU over the same window
    B=$SHARE/bench/idle
    mkdir -p "$B"
    DISCOVERY_INTERVAL=30s LOG_LEVEL=info \
        start_exporter 100ms --device.include='^no-such-drive$' --probe.disable
    sleep 2
    cat /proc/uptime > "$B/uptime-0"
    cat "/proc/$EXPORTER_PID/stat" > "$B/exporter-stat-0"
    schedstat "$B/schedstat-0"
    sleep "$SCSI_WINDOW"
    cat "/proc/$EXPORTER_PID/stat" > "$B/exporter-stat-1"
    schedstat "$B/schedstat-1"
    cat /proc/uptime > "$B/uptime-1"
    kill "$EXPORTER_PID" 2>/dev/null
    sleep 0.5
    # nvme0 and sda the same way (their smartctl runs are run_bench's), to tell the
    # SCSI poller's cost from the process's per-poll overhead
    for _d in $VSCSI $SAS nvme0 sda; do
        case $_d in nvme*|sda) B=$SHARE/bench/single-$_d ;; *) B=$SHARE/bench/scsi-$_d ;; esac
        mkdir -p "$B"
        # as deployed: discovery every 30 s (the default), info logging (debug logs
        # every poll, here into the 9p share)
        DISCOVERY_INTERVAL=30s LOG_LEVEL=info \
            start_exporter 100ms --device.include="^$_d\$" --probe.disable
        _n=60
        while [ "$_n" -gt 0 ]; do
            scrape /tmp/m
            up "$_d" && break
            usleep 500000
            _n=$((_n - 1))
        done
        sleep 1
        echo "$SCSI_WINDOW" > "$B/window"
        cat /proc/uptime > "$B/uptime-0"
        cat "/proc/$EXPORTER_PID/stat" > "$B/exporter-stat-0"
        cat /proc/$EXPORTER_PID/task/*/stat > "$B/exporter-tasks-0" 2>/dev/null
        schedstat "$B/schedstat-0"
        scrape "$B/metrics-0.txt"
        sleep "$SCSI_WINDOW"
        scrape "$B/metrics-1.txt"
        cat "/proc/$EXPORTER_PID/stat" > "$B/exporter-stat-1"
        cat /proc/$EXPORTER_PID/task/*/stat > "$B/exporter-tasks-1" 2>/dev/null
        schedstat "$B/schedstat-1"
        cat /proc/uptime > "$B/uptime-1"
        # what the process does per NVMe poll (after the measurement, which
        # the tracer would slow): every system call of every thread for 3 s
        if [ "$_d" = nvme0 ] && command -v strace > /dev/null; then
            scrape "$B/strace-metrics-0.txt"
            timeout 3 strace -f -tt -p "$EXPORTER_PID" -o "$B/strace.txt" 2>/dev/null
            scrape "$B/strace-metrics-1.txt"
        fi
        kill "$EXPORTER_PID" 2>/dev/null
        sleep 0.5
        case $_d in nvme*|sda) continue ;; esac
        echo "$SMARTCTL_RUNS" > "$B/smartctl-runs"
        cat /proc/uptime > "$B/smartctl-uptime-0"
        sh -c 'i=0
            while [ $i -lt '"$SMARTCTL_RUNS"' ]; do
                smartctl -j -x /dev/'"$_d"' > /dev/null 2>&1
                i=$((i + 1))
            done
            cat /proc/$$/stat' > "$B/smartctl-stat"
        cat /proc/uptime > "$B/smartctl-uptime-1"
        smartctl -j -x "/dev/$_d" > "$B/smartctl-sample.json" 2>&1
        echo $? > "$B/smartctl-rc"
    done
}
