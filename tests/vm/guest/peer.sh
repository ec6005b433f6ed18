# The side-by-side benchmark of issue 13 (busybox sh), run by /init instead of main.sh
# when the host (tools/vm/peer.py) wrote $SHARE/peer-config. ssd_exporter and
# jpetrucciani/nvme-exporter (/usr/bin/nvme-exporter) run one after the other, never
# together, in the same boot with 8 emulated NVMe controllers and an AHCI disk.
# Only raw files are written here ($SHARE/peer/...): /proc/<pid>/stat and
# /proc/<pid>/task/*/stat, /proc/<pid>/status, /proc/uptime, scrapes. peer.py does the
# arithmetic (100 Hz clock ticks assumed, as in bench.sh).
. /guest/lib.sh

SCRAPES=200        # sequential scrapes per exporter configuration
IDLE=15            # seconds of the same process left alone, for its idle CPU
POLL_WINDOW=60     # seconds of polling every 100 ms per poll configuration
SMARTCTL_RUNS=50
. "$SHARE/peer-config"

B=$SHARE/peer
mkdir -p "$B"
ip link set lo up
uname -a > "$B/uname.txt"

_n=200
while [ "$_n" -gt 0 ] && ! { [ -e /dev/nvme7 ] && [ -b /dev/sda ]; }; do
    usleep 100000
    _n=$((_n - 1))
done
ls /dev > "$B/dev.txt"
# under TCG the kernel may not trust the TSC: then every clock read is a syscall
cat /sys/devices/system/clocksource/clocksource0/current_clocksource \
    /sys/devices/system/clocksource/clocksource0/available_clocksource > "$B/clocksource.txt"
# is smartmontools' drivedb.h where ssd_exporter looks by default? (the initramfs
# carries only smartctl's binary; build-initramfs.sh puts a copy at /peer/drivedb.h)
for f in /var/lib/smartmontools/drivedb/drivedb.h /usr/share/smartmontools/drivedb.h \
         /peer/drivedb.h; do
    if [ -e "$f" ]; then echo "$f present $(wc -c < "$f")"; else echo "$f absent"; fi
done > "$B/drivedb.txt"
ssd_exporter --version > "$B/ours-version.txt" 2>&1

OURS_URL=http://127.0.0.1:10049/metrics
PEER_URL=http://127.0.0.1:9998/metrics

# snap <dir> <tag>: the process's and its threads' CPU, the guest's clock
snap() {
    cat /proc/uptime > "$1/uptime-$2"
    cat "/proc/$PID/stat" > "$1/stat-$2"
    cat /proc/$PID/task/*/stat > "$1/tasks-$2" 2>/dev/null
}

# ready <url> <kind>: /tmp/m shows all 8 controllers (60 s at most)
ready() {
    _n=120
    while [ "$_n" -gt 0 ]; do
        timeout 5 wget -q -O /tmp/m "$1" 2>/dev/null || : > /tmp/m
        case $2 in
            ours)
                _ok=1
                for _k in 0 1 2 3 4 5 6 7; do up "nvme$_k" || { _ok=0; break; }; done
                [ "$_ok" = 1 ] && return 0 ;;
            peer)
                [ "$(grep -c '^nvme_info{' /tmp/m)" -ge 8 ] && return 0 ;;
        esac
        kill -0 "$PID" 2>/dev/null || return 1
        usleep 500000
        _n=$((_n - 1))
    done
    return 1
}

# launch <command...>: starts the exporter in the background (PID) with its command line
# and log in $D, and waits until it serves ($_url, $_kind); 1 if it never did.
launch() {
    mkdir -p "$D"
    echo "$*" > "$D/command"
    "$@" > "$D/log" 2>&1 &
    PID=$!
    if ! ready "$_url" "$_kind"; then
        log "$_name: not ready"
        cp /tmp/m "$D/not-ready.txt"
        stop
        return 1
    fi
}

stop() {
    kill "$PID" 2>/dev/null
    _n=50
    while [ "$_n" -gt 0 ] && kill -0 "$PID" 2>/dev/null; do usleep 100000; _n=$((_n - 1)); done
}

# scrape_bench <name> <url> <kind> -- <command...>: start the exporter, wait until it
# serves the 8 controllers, 3 s more, IDLE s left alone, then SCRAPES sequential scrapes
# (busybox wget, plain text: no gzip), then its status (VmRSS, VmHWM)
scrape_bench() {
    _name=$1 _url=$2 _kind=$3
    shift 4
    D=$B/scrape-$_name
    launch "$@" || return 1
    sleep 3
    snap "$D" idle-0
    sleep "$IDLE"
    snap "$D" idle-1
    _i=0
    while [ "$_i" -lt "$SCRAPES" ]; do
        timeout 10 wget -q -O /tmp/s "$_url" 2>/dev/null || echo "$_i" >> "$D/failed"
        _i=$((_i + 1))
    done
    snap "$D" scrapes-1
    echo "$SCRAPES" > "$D/scrapes"
    cp /tmp/s "$D/last-scrape.txt"
    cat "/proc/$PID/status" > "$D/status"
    stop
    log "$_name done"
}

# spaced_bench <name> <url> <kind> <port> <gzip: 0|1> -- <command...>: the scrape as a
# scraper pays it (issue 27): start the exporter, wait until it serves the 8 controllers,
# 3 s more, an idle window of SPACED scrape intervals (1.1 s each) left alone, then
# SPACED scrapes 1.1 s apart on one kept-alive connection (busybox nc), so each scrape
# pays for what changed since the last one. The writer snaps the threads' CPU 1.1 s
# after its last request, before the connection closes. With gzip 1 the requests ask
# `Accept-Encoding: gzip` as Prometheus does (the peer does not compress).
SPACED=60
spaced_bench() {
    _name=$1 _url=$2 _kind=$3 _port=$4 _gzip=$5
    shift 6
    D=$B/spaced-$_name
    launch "$@" || return 1
    _hdr=""
    [ "$_gzip" = 1 ] && _hdr='Accept-Encoding: gzip\r\n'
    sleep 3
    snap "$D" idle-0
    _i=0
    while [ "$_i" -lt "$SPACED" ]; do usleep 1100000; _i=$((_i + 1)); done
    snap "$D" idle-1
    {
        _i=0
        while [ "$_i" -lt "$SPACED" ]; do
            printf "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:$_port\r\n$_hdr\r\n"
            usleep 1100000
            _i=$((_i + 1))
        done
        snap "$D" scrapes-1
    } | timeout $((SPACED * 2 + 30)) nc 127.0.0.1 "$_port" > "$D/responses" 2>/dev/null
    echo "$SPACED" > "$D/scrapes"
    cat "/proc/$PID/status" > "$D/status"
    stop
    log "$_name done"
}

# poll_bench <name> <drive to wait for> <flags...>: ours polling every 100 ms, probe off, discovery and
# logging at their defaults, for POLL_WINDOW s; polls = ssd_polls_total deltas
poll_bench() {
    _name=$1 _dev=$2
    shift 2
    D=$B/poll-$_name
    mkdir -p "$D"
    set -- ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval=100ms \
        --probe.disable "$@"
    echo "$*" > "$D/command"
    "$@" > "$D/log" 2>&1 &
    PID=$!
    _n=120
    while [ "$_n" -gt 0 ]; do
        timeout 5 wget -q -O /tmp/m "$OURS_URL" 2>/dev/null || : > /tmp/m
        up "$_dev" && break
        usleep 500000
        _n=$((_n - 1))
    done
    sleep 2
    echo "$POLL_WINDOW" > "$D/window"
    snap "$D" 0
    timeout 10 wget -q -O "$D/metrics-0.txt" "$OURS_URL"
    sleep "$POLL_WINDOW"
    timeout 10 wget -q -O "$D/metrics-1.txt" "$OURS_URL"
    snap "$D" 1
    cat "/proc/$PID/status" > "$D/status"
    stop
    log "$_name done"
}

# smartctl_bench <device>: SMARTCTL_RUNS runs of smartctl -j -x, no exporter running;
# the subshell's cutime+cstime is its children's CPU
smartctl_bench() {
    D=$B/smartctl-$1
    mkdir -p "$D"
    echo "$SMARTCTL_RUNS" > "$D/runs"
    cat /proc/uptime > "$D/uptime-0"
    sh -c 'i=0
        while [ $i -lt '"$SMARTCTL_RUNS"' ]; do
            smartctl -j -x /dev/'"$1"' > /dev/null 2>&1
            i=$((i + 1))
        done
        cat /proc/$$/stat' > "$D/stat"
    cat /proc/uptime > "$D/uptime-1"
    smartctl -j -x "/dev/$1" > "$D/sample.json" 2>&1
    echo $? > "$D/rc"
}

# strace_scrapes <name> <url> <kind> -- <command...>: after the measurements, a
# syscall count (strace -c -f, if build-initramfs.sh found strace) over STRACE_SCRAPES
# scrapes; ptrace slows everything, so only the counts mean anything
STRACE_SCRAPES=50
strace_scrapes() {
    _name=$1 _url=$2 _kind=$3
    shift 4
    D=$B/strace-$_name
    mkdir -p "$D"
    "$@" > "$D/log" 2>&1 &
    PID=$!
    ready "$_url" "$_kind" || { stop; return 1; }
    sleep 2
    strace -c -f -p "$PID" -o "$D/strace-idle.txt" 2>/dev/null &
    _s=$!
    sleep 5
    kill -TERM "$_s"; wait "$_s"
    strace -c -f -p "$PID" -o "$D/strace.txt" 2>/dev/null &
    _s=$!
    sleep 1
    _i=0
    while [ "$_i" -lt "$STRACE_SCRAPES" ]; do
        timeout 20 wget -q -O /dev/null "$_url" 2>/dev/null
        _i=$((_i + 1))
    done
    kill -TERM "$_s"; wait "$_s"
    echo "$STRACE_SCRAPES" > "$D/scrapes"
    stop
}

# strace_polls: the same over 10 s of ours polling the 8 controllers every 100 ms
strace_polls() {
    D=$B/strace-polls
    mkdir -p "$D"
    ssd_exporter --web.listen-address=127.0.0.1:10049 --poll.interval=100ms --probe.disable \
        '--device.include=^nvme[0-9]+$' > "$D/log" 2>&1 &
    PID=$!
    ready "$OURS_URL" ours || { stop; return 1; }
    sleep 2
    timeout 10 wget -q -O "$D/metrics-0.txt" "$OURS_URL"
    strace -c -f -p "$PID" -o "$D/strace.txt" 2>/dev/null &
    _s=$!
    sleep 10
    kill -TERM "$_s"; wait "$_s"
    timeout 10 wget -q -O "$D/metrics-1.txt" "$OURS_URL"
    stop
}

OURS="ssd_exporter --web.listen-address=127.0.0.1:10049 --device.include=^nvme"
for _z in 0 1; do
    _s=""
    [ "$_z" = 1 ] && _s=-gzip
    spaced_bench "peer$_s" "$PEER_URL" peer 9998 "$_z" -- \
        nvme-exporter --listen-address 127.0.0.1:9998 --devices "/dev/nvme*"
    spaced_bench "ours-probe$_s" "$OURS_URL" ours 10049 "$_z" -- $OURS
    spaced_bench "ours-noprobe$_s" "$OURS_URL" ours 10049 "$_z" -- $OURS --probe.disable
done
if [ "${PEER_PARTS:-all}" = spaced ]; then
    echo done > "$B/done"
    exit 0
fi
scrape_bench peer "$PEER_URL" peer -- \
    nvme-exporter --listen-address 127.0.0.1:9998 --devices "/dev/nvme*"
scrape_bench ours-probe "$OURS_URL" ours -- $OURS
scrape_bench ours-noprobe "$OURS_URL" ours -- $OURS --probe.disable
scrape_bench ours-drivedb "$OURS_URL" ours -- $OURS --path.drivedb=/peer/drivedb.h
scrape_bench ours-nodrivedb "$OURS_URL" ours -- $OURS --path.drivedb=none

poll_bench nvme-all nvme7 '--device.include=^nvme[0-9]+$'
poll_bench one-nvme0 nvme0 '--device.include=^nvme0$'
poll_bench one-sda sda '--device.include=^sda$'
smartctl_bench nvme0
smartctl_bench sda
if command -v strace > /dev/null; then
    strace_scrapes peer "$PEER_URL" peer -- \
        nvme-exporter --listen-address 127.0.0.1:9998 --devices "/dev/nvme*"
    strace_scrapes ours-noprobe "$OURS_URL" ours -- $OURS --probe.disable
    strace_polls
fi
echo done > "$B/done"
