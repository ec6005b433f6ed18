#!/usr/bin/env bash
# Fuzzes every decoder and parser (fuzz/fuzz_targets/, one target each) with
# cargo-fuzz: libFuzzer under AddressSanitizer, on the stable toolchain
# (RUSTC_BOOTSTRAP=1 lets it take cargo-fuzz's -Zsanitizer flag).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   SECONDS per target (default 60),
#                                           every target unless named
#   FUZZ_RUNS=N scripts/fuzz.sh [SECONDS]   at most N inputs per target (and
#                                           at most SECONDS): the smoke test in
#                                           test-all.sh
#   FUZZ_PROFILE=dev                        unoptimised build (quicker to build,
#                                           slower to run)
#   FUZZ_TARGET_DIR=DIR                     build there instead of fuzz/target
#                                           (test-all.sh keeps it outside the
#                                           checkout so CI's fresh clones reuse it)
#
# Corpora start from the device dumps under tests/fixtures, the example
# configs, the host's drivedb.h (if smartmontools is installed) and the tiny
# seeds in fuzz/seeds/, copied into fuzz/corpus/<target>/ (not committed;
# libFuzzer adds what it finds there). A crash, leak, timeout (>10 s for one
# input) or out-of-memory is written to fuzz/artifacts/<target>/ and makes
# the script exit 1. One line per target: executions, executions per
# second, corpus size, crashes.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
profile=${FUZZ_PROFILE:-release}
target_dir=${FUZZ_TARGET_DIR:-fuzz/target}
export RUSTC_BOOTSTRAP=1

if ! command -v cargo-fuzz >/dev/null; then
  echo "== installing cargo-fuzz"
  started=$SECONDS
  cargo install cargo-fuzz --locked --quiet
  echo "cargo-fuzz installed in $((SECONDS - started)) s"
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/fuzz_targets/*.rs; do
    t=${f##*/}
    targets+=("${t%.rs}")
  done
fi

# --- seed corpora ---------------------------------------------------------
corpus=fuzz/corpus
seed() { # seed TARGET FILE...: copies the files that exist
  local t=$1 f
  shift
  mkdir -p "$corpus/$t"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$corpus/$t/$(echo "$f" | tr / _)"
  done
  return 0
}
fx=tests/fixtures
seed nvme_identify $fx/nvme/*/*/id-ctrl.bin
seed nvme_smart_log $fx/nvme/*/*/smart-log.bin
seed nvme_smart_log_roundtrip $fx/nvme/*/*/smart-log.bin
seed nvme_ocp $fx/nvme/*/*/ocp-smart-log.bin
seed nvme_error_log $fx/nvme/*/*/error-log.bin
seed nvme_self_test $fx/nvme/*/*/self-test-log.bin
seed nvme_endurance_group $fx/nvme/*/*/endurance-group-*.bin
seed nvme_fw_slot $fx/nvme/*/*/fw-slot-log.bin
seed nvme_pel $fx/nvme/*/*/persistent-event-log.bin
seed nvme_telemetry $fx/nvme/*/*/telemetry-ctrl-header.bin
seed ata_identify $fx/sata/*/*/identify.bin
seed ata_smart_data $fx/sata/*/*/smart-data.bin
seed ata_smart_roundtrip $fx/sata/*/*/smart-data.bin
seed ata_smart_thresholds $fx/sata/*/*/smart-thresholds.bin
seed ata_self_test $fx/sata/*/*/smart-self-test-log.bin
seed ata_error_log $fx/sata/*/*/smart-error-log.bin
seed config examples/*.yml
seed web_config examples/web-config.yml
# Device Statistics: the target reads the expected page number first.
mkdir -p $corpus/ata_devstat
for f in $fx/sata/*/*/devstat-*.bin; do
  page=${f##*-}
  page=${page%.bin}
  { printf "\\x$page"; cat "$f"; } >"$corpus/ata_devstat/$(echo "$f" | tr / _)"
done
# Identify Namespace and UUID List have no fixture: a page with an NGUID,
# and a list holding the OCP UUID as its second entry.
mkdir -p $corpus/nvme_identify_ns $corpus/nvme_uuid_list
python3 - "$corpus" <<'EOF'
import sys
out = sys.argv[1]
ns = bytearray(4096)
ns[104:120] = bytes(range(1, 17))
open(f"{out}/nvme_identify_ns/nguid", "wb").write(ns)
ocp = bytes.fromhex("c194d55be0944794a21d29998f56be6f")
ul = bytearray(4096)
ul[32 + 16:32 + 32] = bytes(range(16))
ul[64 + 16:64 + 32] = ocp
open(f"{out}/nvme_uuid_list/ocp_second", "wb").write(ul)
EOF
# The host's drivedb.h in 4 KiB pieces cut at line ends (the file whole is
# far past a useful input size).
if [ -r /usr/share/smartmontools/drivedb.h ]; then
  mkdir -p $corpus/drivedb
  split -C 4096 -d -a 3 /usr/share/smartmontools/drivedb.h $corpus/drivedb/host-drivedb-
  find $corpus/drivedb -name 'host-drivedb-*' | sort | tail -n +41 | xargs -r rm -f
  # The start of its USB section (the end of the file), looked up as a
  # JMicron JMS583 (the target reads VID, PID and bcdDevice from the first
  # 6 bytes).
  mkdir -p $corpus/drivedb_usb
  sed -n '/"USB: /,$p' /usr/share/smartmontools/drivedb.h |
    split -C 4096 -d -a 3 - $corpus/drivedb_usb/host-usb-
  find $corpus/drivedb_usb -name 'host-usb-*' | sort | tail -n +11 | xargs -r rm -f
  for f in $corpus/drivedb_usb/host-usb-*; do
    { printf '\x2d\x15\x83\x05\x14\x02'; cat "$f"; } >"$f.in" && mv "$f.in" "$f"
  done
fi
for d in fuzz/seeds/*/; do
  t=${d%/}
  seed "${t##*/}" "$d"*
done

# --- build and run --------------------------------------------------------
build_flags=(--target-dir "$target_dir")
[ "$profile" = dev ] && build_flags+=(--dev)
started=$SECONDS
log=$(mktemp)
if ! cargo fuzz build "${build_flags[@]}" >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
rm -f "$log"
echo "== fuzz targets built in $((SECONDS - started)) s ($profile)"
triple=$(rustc -vV | awk '/^host:/ { print $2 }')
bin=$target_dir/$triple/$profile
[ "$profile" = dev ] && bin=$target_dir/$triple/debug

if [ -n "${FUZZ_RUNS:-}" ]; then
  limit=(-runs="$FUZZ_RUNS" -max_total_time="$secs")
  what="$FUZZ_RUNS inputs or $secs s, whichever comes first,"
else
  limit=(-max_total_time="$secs")
  what="$secs s"
fi
echo "== fuzzing ${#targets[@]} targets, $what each"
printf '%-26s %12s %9s %7s %8s\n' target executions exec/s corpus crashes
failed=0
total=0
for t in "${targets[@]}"; do
  mkdir -p "$corpus/$t" "fuzz/artifacts/$t"
  log=$(mktemp)
  set +e
  ASAN_OPTIONS=detect_odr_violation=0 "$bin/$t" "$corpus/$t" "${limit[@]}" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1
  status=$?
  set -e
  execs=$(awk '/stat::number_of_executed_units/ { print $NF }' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ { print $NF }' "$log")
  crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) -newer "$log" | wc -l)
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then
    crashes=1 # died without an artifact (e.g. the binary would not start)
  fi
  printf '%-26s %12s %9s %7s %8s\n' "$t" "${execs:-?}" "${rate:-?}" \
    "$(find "$corpus/$t" -type f | wc -l)" "$crashes"
  if [ "$crashes" -gt 0 ]; then
    failed=$((failed + 1))
    echo "--- $t: exit $status; artifacts in fuzz/artifacts/$t/; last lines of its log:"
    tail -n 30 "$log"
  fi
  total=$((total + ${execs:-0}))
  rm -f "$log"
done
echo "fuzz: $((${#targets[@]} - failed)) passed, $failed failed ($total executions)"
[ "$failed" -eq 0 ]
