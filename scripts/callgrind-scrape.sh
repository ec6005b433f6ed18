#!/usr/bin/env bash
# Instructions per scrape of the whole server, every thread, by callgrind:
# the binary replays N copies of the DC2000B fixture (no probes), is left
# alone until it has polled them, then its counters are zeroed, S plain
# scrapes are made with curl (a new connection each), and the counts are
# dumped. Prints each thread's instructions per scrape and the total.
#   scripts/callgrind-scrape.sh target/release/ssd_exporter [drives=8] [scrapes=200] [curl args...]
# e.g. add `-H 'Accept-Encoding: gzip'` for the gzip path.
# DEMO=1 serves the demo's six simulated drives instead (their probes on,
# polled once: --poll.interval=1h); SPACE=1.1 waits that many seconds
# between scrapes, so each finds the probes republished, as a scraper
# spaced like Prometheus does; KEEP_CALLGRIND=dir keeps the profiles.
set -euo pipefail
bin=$(realpath "$1")
drives=${2:-8}
scrapes=${3:-200}
shift $(( $# < 3 ? $# : 3 ))
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; [ -n "${KEEP_CALLGRIND:-}" ] && cp "$work"/callgrind.out.* "$KEEP_CALLGRIND"/; rm -rf "$work"' EXIT
args=()
for i in $(seq 0 $((drives - 1))); do
    mkdir -p "$work/drives/nvme$i"
    cp "$root"/tests/fixtures/nvme/kingston-dc2000b/nvme0/*.bin "$work/drives/nvme$i/"
    args+=("--replay=$work/drives/nvme$i")
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cd "$work"
if [ "${DEMO:-0}" = 1 ]; then args=(--demo); fi
valgrind --tool=callgrind --separate-threads=yes \
    "$bin" --web.listen-address="127.0.0.1:$port" --poll.interval=1h "${args[@]}" \
    >"$work/exporter.log" 2>&1 &
pid=$!
for _ in $(seq 60); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break
    sleep 1
done
sleep 5
bytes=$(curl -s "$@" "http://127.0.0.1:$port/metrics" | wc -c)
callgrind_control -z "$pid" >/dev/null
for _ in $(seq "$scrapes"); do
    curl -s -o /dev/null "$@" "http://127.0.0.1:$port/metrics"
    if [ -n "${SPACE:-}" ]; then sleep "$SPACE"; fi
done
callgrind_control -d "$pid" >/dev/null
sleep 1
total=0
for f in callgrind.out."$pid".1-*; do
    ir=$(awk '/^totals:/ {print $2; exit}' "$f")
    if [ "${ir:-0}" -gt 0 ]; then
        echo "thread ${f##*-}: $((ir / scrapes)) instructions per scrape"
        total=$((total + ir))
    fi
done
what="$drives drives"
if [ "${DEMO:-0}" = 1 ]; then what="the demo's drives, probes on"; fi
echo "body: $bytes bytes; all threads: $((total / scrapes)) instructions per scrape ($what, $scrapes scrapes${SPACE:+ ${SPACE} s apart})"
