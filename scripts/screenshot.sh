#!/usr/bin/env bash
# Makes docs/landing.png, the README's picture of the landing page: the
# demo (`--demo`) served on loopback, left to run a while so that its drives
# have problems and their probes a window of samples, then photographed by
# Debian's headless Chromium at a laptop's width.
#
#   scripts/screenshot.sh [target/debug/ssd_exporter] [seconds to wait, default 90]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/ssd_exporter}
wait=${2:-90}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" --demo --web.listen-address "127.0.0.1:$port" --log.level warn &
pid=$!
profile=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$profile"' EXIT
sleep "$wait"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size=1400,1150 \
  --screenshot="$PWD/docs/landing.png" "http://127.0.0.1:$port/" 2>/dev/null
echo "wrote docs/landing.png"
