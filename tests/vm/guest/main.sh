# The guest scenario (busybox sh), run by /init with the host share at /mnt/host.
# The host (tools/vm/run.py) evaluates everything written here; this script only
# collects: raw nvme-cli outputs, /metrics scrapes, a device dump, benchmark numbers.
. /guest/lib.sh

BENCH=0
PROBE_RATE=50
[ -f "$SHARE/config" ] && . "$SHARE/config"

ip link set lo up
mkdir -p "$SHARE/env"
load_scsi_disks
uname -a > "$SHARE/env/uname.txt"
nvme version > "$SHARE/env/nvme-version.txt" 2>&1
nvme list -o json > "$SHARE/env/nvme-list.json" 2>&1
ls /dev > "$SHARE/env/dev.txt"
cat /proc/modules > "$SHARE/env/modules.txt"
smartctl -j -x /dev/nvme0 > "$SHARE/env/smartctl-nvme0.json" 2>&1
smartctl -j -x /dev/sda > "$SHARE/env/smartctl-sda.json" 2>&1
for d in $VSCSI $SAS; do smartctl -j -x "/dev/$d" > "$SHARE/env/smartctl-$d.json" 2>&1; done

sync_stage boot || exit 1

# ---- p) checksums before the exporter ever opens a device ---------------------
# The probe only reads: after the run (exporter stopped) they must be the same.
mkdir -p "$SHARE/p"
cat /proc/uptime > "$SHARE/p/md5-uptime-0"
md5sum /dev/nvme0n1 /dev/nvme1n1 /dev/sda ${VSCSI:+/dev/$VSCSI} ${SAS:+/dev/$SAS} \
    > "$SHARE/p/md5-before.txt" 2>&1
cat /proc/uptime > "$SHARE/p/md5-uptime-1"

# ---- the exporter --------------------------------------------------------------
# start_exporter <poll interval> [extra flags...]; DISCOVERY_INTERVAL and LOG_LEVEL
# (default 1s and debug) may be set for one call. Every family is served
# (--metrics.diagnostics): the checks read ssd_page_supported.
start_exporter() {
    _interval=$1
    shift
    ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval="$_interval" \
        --poll.timeout=3s --discovery.interval="${DISCOVERY_INTERVAL:-1s}" \
        --log.level="${LOG_LEVEL:-debug}" --metrics.diagnostics "$@" 2>>"$SHARE/exporter.log" &
    EXPORTER_PID=$!
    echo "$EXPORTER_PID" > "$SHARE/exporter.pid"
}

# wait until /metrics shows ssd_device_up for both controllers, sda and the two SCSI
# disks (30 s at most)
wait_exporter() {
    _n=60
    while [ "$_n" -gt 0 ]; do
        scrape /tmp/m
        if up nvme0 &&
           up nvme1 &&
           up sda &&
           up "$VSCSI" &&
           up "$SAS"; then
            return 0
        fi
        kill -0 "$EXPORTER_PID" 2>/dev/null || { log "exporter exited"; return 1; }
        usleep 500000
        _n=$((_n - 1))
    done
    return 1
}

# the probe at a high rate for the whole run, so it is busy when nvme1 is unplugged;
# QEMU's scsi-hd is a virtual disk, probed only because probe.device names it
start_exporter 1s --probe.rate="$PROBE_RATE" ${VSCSI:+--probe.device=$VSCSI}
if wait_exporter; then
    echo ok > "$SHARE/exporter-ready"
else
    log "exporter did not serve both controllers, sda, $VSCSI and $SAS"
    echo failed > "$SHARE/exporter-ready"
    cp /tmp/m "$SHARE/exporter-last-scrape.txt" 2>/dev/null
    { ps; netstat -ltn; wget -O /dev/null "$METRICS_URL"; } > "$SHARE/exporter-debug.txt" 2>&1
fi

# ---- a) equality: scrape, nvme-cli, scrape after a later poll ------------------
# Order: metrics-1 (snapshot polled before nvme-cli) <= nvme-cli <= metrics-2
# (snapshot polled after nvme-cli): moving counters are checked against both bounds,
# everything else for equality.
mkdir -p "$SHARE/a"
date +%s > "$SHARE/a/t0"
scrape "$SHARE/a/metrics-1.txt"
date +%s > "$SHARE/a/t1"
for c in nvme0 nvme1; do snapshot_nvme "$SHARE/a" "$c"; done
# exits 4 on QEMU's disk (it aborts "Read SMART Log Directory"): compared anyway
smartctl -j -x /dev/sda > "$SHARE/a/sda-smartctl.json" 2> "$SHARE/a/sda-smartctl.err"
echo $? > "$SHARE/a/sda-smartctl.rc"
# the SCSI disks (exit 4 too: pages they lack); -A: the temperature page as smartctl
# reads it (-x shows scsi_debug's environmental subpage instead)
for d in $VSCSI $SAS; do
    smartctl -j -x "/dev/$d" > "$SHARE/a/$d-smartctl.json" 2> "$SHARE/a/$d-smartctl.err"
    smartctl -j -A "/dev/$d" > "$SHARE/a/$d-smartctl-A.json" 2>&1
    # the text names the log pages the disk lacks ("... not supported")
    smartctl -x "/dev/$d" > "$SHARE/a/$d-smartctl-x.txt" 2>&1
done
date +%s > "$SHARE/a/t2"
sleep 3
scrape "$SHARE/a/metrics-2.txt"
date +%s > "$SHARE/a/t3"
sync_stage a

# ---- p) the latency probe on the real devices -------------------------------------
# Two scrapes 2 s apart, each with the guest's /proc/uptime just before it.
cat /proc/uptime > "$SHARE/p/uptime-1"
scrape "$SHARE/p/metrics-1.txt"
sleep 2
cat /proc/uptime > "$SHARE/p/uptime-2"
scrape "$SHARE/p/metrics-2.txt"

# ---- b) critical warning injection ---------------------------------------------
sync_stage b-set && watch_metrics b-set 20  # >= the host's watch, CRITICAL_LIMIT + 2
nvme smart-log /dev/nvme0 -o json > "$SHARE/b-set/nvme0-smart-log.json" 2>&1
sync_stage b-clear && watch_metrics b-clear 20
nvme smart-log /dev/nvme0 -o json > "$SHARE/b-clear/nvme0-smart-log.json" 2>&1

# ---- c) hot-unplug, hot-plug -----------------------------------------------------
# the probes are running right before the unplug (metrics-before), the exporter log
# is cut there and before the hot-plug (log-lines-*: line counts)
mkdir -p "$SHARE/c-unplug"
scrape "$SHARE/c-unplug/metrics-before.txt"
wc -l < "$SHARE/exporter.log" > "$SHARE/c-unplug/log-lines-before"
sync_stage c-unplug && watch_metrics c-unplug 20  # >= UNPLUG_LIMIT + 2
# after the series are gone: do the other drives' probes go on?
cat /proc/uptime > "$SHARE/c-unplug/uptime-after-1"
scrape "$SHARE/c-unplug/metrics-after-1.txt"
sleep 2
cat /proc/uptime > "$SHARE/c-unplug/uptime-after-2"
scrape "$SHARE/c-unplug/metrics-after-2.txt"
ls /dev > "$SHARE/c-unplug/dev.txt"
kill -0 "$EXPORTER_PID" 2>/dev/null && echo alive > "$SHARE/c-unplug/exporter-alive"
wc -l < "$SHARE/exporter.log" > "$SHARE/c-unplug/log-lines-after"
sync_stage c-plug && watch_metrics c-plug 25  # >= PLUG_LIMIT + 2
ls /dev > "$SHARE/c-plug/dev.txt"
nvme list -o json > "$SHARE/c-plug/nvme-list.json" 2>&1
kill -0 "$EXPORTER_PID" 2>/dev/null && echo alive > "$SHARE/c-plug/exporter-alive"

# ---- s) SATA self-test: QEMU completes a short test at once ----------------------
# No host action: metrics-1 is scraped >= 2 polls after the test, then smartctl
# reads the self-test log; metrics-2 (another 2 polls on) also serves the
# "poll errors do not keep rising" check against a/metrics-1.
mkdir -p "$SHARE/s"
scrape "$SHARE/s/metrics-0.txt"
smartctl -t short /dev/sda > "$SHARE/s/selftest.out" 2>&1
echo $? > "$SHARE/s/selftest.rc"
sleep 3
scrape "$SHARE/s/metrics-1.txt"
smartctl -j -x /dev/sda > "$SHARE/s/sda-smartctl.json" 2> "$SHARE/s/sda-smartctl.err"
echo $? > "$SHARE/s/sda-smartctl.rc"
sleep 2
scrape "$SHARE/s/metrics-2.txt"

# ---- d) dump, and the scrape it is compared with ---------------------------------
mkdir -p "$SHARE/d" "$SHARE/dump"
scrape "$SHARE/d/metrics-before.txt"
ssd_exporter dump /dev/nvme0 "$SHARE/dump/nvme0" > "$SHARE/d/dump.out" 2>&1
echo $? > "$SHARE/d/dump.rc"
ssd_exporter dump /dev/sda "$SHARE/dump/sda" > "$SHARE/d/dump-sda.out" 2>&1
echo $? > "$SHARE/d/dump-sda.rc"
for d in $VSCSI $SAS; do
    ssd_exporter dump "/dev/$d" "$SHARE/dump/$d" > "$SHARE/d/dump-$d.out" 2>&1
    echo $? > "$SHARE/d/dump-$d.rc"
done
sleep 2
scrape "$SHARE/d/metrics-after.txt"
sync_stage d

# ---- f) faults injected while the exporter runs ----------------------------------
. /guest/faults.sh
fault_nvme
fault_scsi_debug

# ---- e) benchmark (only with run.py --bench) -------------------------------------
if [ "$BENCH" = 1 ]; then
    . /guest/bench.sh
    run_bench
    run_bench_scsi
    sync_stage bench
fi

kill "$EXPORTER_PID" 2>/dev/null
_n=30
while [ "$_n" -gt 0 ] && kill -0 "$EXPORTER_PID" 2>/dev/null; do
    usleep 100000
    _n=$((_n - 1))
done
kill -0 "$EXPORTER_PID" 2>/dev/null && echo running > "$SHARE/p/exporter-still-running"

# ---- p) checksums after the probes (exporter stopped, page cache dropped) ----------
# nvme1 was unplugged in stage c: run.py compares its image file on the host.
sync
echo 3 > /proc/sys/vm/drop_caches
md5sum /dev/nvme0n1 /dev/sda ${VSCSI:+/dev/$VSCSI} ${SAS:+/dev/$SAS} \
    > "$SHARE/p/md5-after.txt" 2>&1
sync_stage done 5
