#!/usr/bin/env bash
# RSS of the exporter 3 s after start and one scrape, replaying the given
# dump folders with the probe off.
#   scripts/rss.sh target/release/ssd_exporter --replay=tests/fixtures/nvme/kingston-dc2000b/nvme0 [--path.drivedb=none]
set -euo pipefail
bin=$1; shift
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" --web.listen-address="127.0.0.1:$port" --probe.disable "$@" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 3
curl -s -o /dev/null "http://127.0.0.1:$port/metrics"
grep VmRSS "/proc/$pid/status"
