#!/usr/bin/env bash
# Benchmarks the latency probe on a direct-I/O loop device, in one run, and
# prints one JSON object:
#
#  accuracy  the probe and fio (psync, iodepth 1, O_DIRECT, 4 KiB random
#            reads, Poisson arrivals) at the SAME rate, back to back, twice
#            each (probe, fio, probe, fio): p50 and p99 of each and the
#            probe/fio ratios. Rate changes latency (host wake-up per isolated
#            I/O), so only same-rate figures are comparable.
#  cpu       the probe thread's CPU per I/O (schedstat) minus (a) a tight
#            pread loop's CPU per call and (b) a bare paced loop's (sleep a
#            Poisson gap, pread, at the probe's rate), CPU_PAIRS interleaved
#            pairs, median of the differences: (b) is what the probe's own
#            work (busy check, stats) costs beyond the syscall and the
#            wake-up any rate-limited reader pays; (a) also counts that
#            wake-up. Also the CPU of one read of the stat file.
#  impact    a foreground fio random-read job (iodepth 4) with and without
#            the probe at its default 5/s, PAIRS interleaved pairs (order
#            alternating), the median with/without IOPS ratio. 10 pairs is a
#            quick look; claiming "< 1 % impact" takes about 50.
#
# Needs root (losetup). Environment knobs: PAIRS (10), PAIR_SECONDS (5),
# ACC_RATE (100 reads/s), ACC_SECONDS (20), CPU_PAIRS (5), CPU_SECONDS (15),
# SIZE_MIB (1024), WORK (a temp dir), BACKING=disk|ram: `disk` (default) backs
# the loop device with a file on disk opened with direct I/O, so the backing
# disk's own tail shows; `ram` backs it with a file in /dev/shm (no direct
# I/O on tmpfs), a stable device that compares the measuring methods
# rather than the disk's moods.
set -euo pipefail
cd "$(dirname "$0")/.."

PAIRS=${PAIRS:-10}
PAIR_SECONDS=${PAIR_SECONDS:-5}
ACC_RATE=${ACC_RATE:-100}
ACC_SECONDS=${ACC_SECONDS:-20}
CPU_PAIRS=${CPU_PAIRS:-5}
CPU_SECONDS=${CPU_SECONDS:-15}
SIZE_MIB=${SIZE_MIB:-1024}
DEFAULT_RATE=5

if ! command -v fio >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq fio >/dev/null
fi
command -v python3 >/dev/null || { echo "python3 is needed for the JSON summary" >&2; exit 1; }

cargo build -q --release --example probe_bench
BENCH="${CARGO_TARGET_DIR:-target}/release/examples/probe_bench"

BACKING=${BACKING:-disk}
if [ "$BACKING" = ram ]; then
  WORK=${WORK:-$(mktemp -d /dev/shm/bench-probe.XXXXXX)}
  DIRECT=off
else
  WORK=${WORK:-$(mktemp -d /var/tmp/bench-probe.XXXXXX)}
  DIRECT=on
fi
LOOP=""
cleanup() {
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# Real data, not a sparse file: reads of holes never reach the disk.
dd if=/dev/zero of="$WORK/disk.img" bs=1M count="$SIZE_MIB" conv=fsync status=none
LOOP=$(losetup --find --show --direct-io="$DIRECT" "$WORK/disk.img") || {
  echo "cannot create a loop device (needs root and loop support)" >&2; exit 1; }
DEV=$(basename "$LOOP")
echo "bench on $LOOP ($SIZE_MIB MiB, $BACKING-backed, loop direct I/O $DIRECT)" >&2

fio_qd1() { # rate seconds out
  fio --name=acc --filename="$LOOP" --rw=randread --bs=4k --iodepth=1 --direct=1 \
    --ioengine=psync --rate_iops="$1" --rate_process=poisson --time_based \
    --runtime="$2" --lat_percentiles=1 --percentile_list=50:90:99 \
    --output-format=json >"$3"
}
fio_fg() { # out
  fio --name=fg --filename="$LOOP" --rw=randread --bs=4k --iodepth=4 --direct=1 \
    --ioengine=libaio --time_based --runtime="$PAIR_SECONDS" --output-format=json >"$1"
}

# Warm the device and the page cache of the tools' binaries first: the first
# timed run of a series was consistently slower here.
fio --name=warm --filename="$LOOP" --rw=randread --bs=4k --direct=1 --ioengine=psync \
  --time_based --runtime=3 --output-format=json >/dev/null
echo "== accuracy: probe vs fio at $ACC_RATE/s, ${ACC_SECONDS}s each, twice" >&2
for i in 1 2; do
  "$BENCH" probe "$DEV" "$ACC_RATE" "$ACC_SECONDS" >"$WORK/acc-probe-$i.json"
  fio_qd1 "$ACC_RATE" "$ACC_SECONDS" "$WORK/acc-fio-$i.json"
done

echo "== cpu: tight pread loop; $CPU_PAIRS interleaved pairs of paced preads and the probe at $ACC_RATE/s" >&2
"$BENCH" pread "$DEV" 20000 >"$WORK/pread.json"
"$BENCH" stat "$DEV" 20000 >"$WORK/stat.json"
for i in $(seq 1 "$CPU_PAIRS"); do
  "$BENCH" paced "$DEV" "$ACC_RATE" "$CPU_SECONDS" >"$WORK/paced-$i.json"
  "$BENCH" probe "$DEV" "$ACC_RATE" "$CPU_SECONDS" >"$WORK/cpu-probe-$i.json"
done

echo "== impact: $PAIRS pairs of ${PAIR_SECONDS}s, probe at $DEFAULT_RATE/s" >&2
for i in $(seq 1 "$PAIRS"); do
  for order in $([ $((i % 2)) -eq 0 ] && echo "with without" || echo "without with"); do
    if [ "$order" = with ]; then
      "$BENCH" probe "$DEV" "$DEFAULT_RATE" "$((PAIR_SECONDS + 1))" >"$WORK/imp-probe-$i.json" &
      pid=$!
      sleep 0.5
      fio_fg "$WORK/imp-with-$i.json"
      wait "$pid"
    else
      fio_fg "$WORK/imp-without-$i.json"
    fi
  done
done

python3 - "$WORK" "$PAIRS" "$ACC_RATE" "$CPU_PAIRS" <<'EOF'
import json, statistics, sys, glob
work, pairs, rate, cpu_pairs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
load = lambda p: json.load(open(p))
def fio_pct(j, key="lat_ns"):
    r = j["jobs"][0]["read"]
    p = r[key]["percentile"]
    return {"p50_s": p["50.000000"] / 1e9, "p99_s": p["99.000000"] / 1e9,
            "samples": r["total_ios"], "iops": r["iops"]}
acc = []
for i in (1, 2):
    pr, fi = load(f"{work}/acc-probe-{i}.json"), fio_pct(load(f"{work}/acc-fio-{i}.json"))
    acc.append({"probe": {k: pr[k] for k in ("samples", "p50_s", "p90_s", "p99_s", "ios", "skipped")},
                "fio": fi,
                "p50_ratio_probe_over_fio": pr["p50_s"] / fi["p50_s"],
                "p99_ratio_probe_over_fio": pr["p99_s"] / fi["p99_s"]})
pread = load(f"{work}/pread.json")
stat = load(f"{work}/stat.json")
paced = [load(f"{work}/paced-{i}.json")["cpu_ns_per_call"] for i in range(1, cpu_pairs + 1)]
probe_cpu = [load(f"{work}/cpu-probe-{i}.json")["thread_cpu_ns_per_io"] for i in range(1, cpu_pairs + 1)]
beyond = [c - pread["cpu_ns_per_call"] for c in probe_cpu]
beyond_paced = [c - p for c, p in zip(probe_cpu, paced)]
ratios, probe_ios, skipped = [], [], {}
for i in range(1, pairs + 1):
    w = load(f"{work}/imp-with-{i}.json")["jobs"][0]["read"]["iops"]
    wo = load(f"{work}/imp-without-{i}.json")["jobs"][0]["read"]["iops"]
    ratios.append(w / wo)
    p = load(f"{work}/imp-probe-{i}.json")
    probe_ios.append(p["ios"].get("ok", 0))
    for k, v in p["skipped"].items():
        skipped[k] = skipped.get(k, 0) + v
print(json.dumps({
    "accuracy": {"rate_per_s": rate, "runs": acc},
    "cpu": {"probe_thread_cpu_ns_per_io": probe_cpu,
            "pread_cpu_ns_per_call": pread["cpu_ns_per_call"],
            "pread_wall_ns_per_call": pread["wall_ns_per_call"],
            "paced_pread_cpu_ns_per_call": paced,
            "busy_check_stat_read_cpu_ns": stat["cpu_ns_per_read"],
            "beyond_paced_pread_ns_per_io_median": statistics.median(beyond_paced),
            "beyond_tight_pread_ns_per_io": beyond,
            "beyond_paced_pread_ns_per_io": beyond_paced,
            },
    "impact": {"pairs": pairs, "probe_rate_per_s": 5,
               "iops_ratio_with_over_without_median": statistics.median(ratios),
               "iops_ratio_min": min(ratios), "iops_ratio_max": max(ratios),
               "probe_reads_per_with_run": probe_ios, "probe_skipped_total": skipped,
               "note": "about 50 pairs are needed before a < 1 % impact claim"},
}, indent=2))
EOF
