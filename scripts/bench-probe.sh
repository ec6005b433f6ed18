#!/usr/bin/env bash
# Benchmarks the latency probe on a direct-I/O loop device, in one run, and
# prints one JSON object:
#
#  accuracy  the probe and fio (psync, iodepth 1, O_DIRECT, 4 KiB random
#            reads, Poisson arrivals, fresh random offsets each run) at the
#            SAME rate, ACC_ROUNDS rounds of ACC_SECONDS: p50 and p99 of
#            every run, the median over rounds per method, and the median
#            of the per-round probe/fio ratios. ACC_MODE=concurrent (the
#            default) runs the two side by side on the device, so both see
#            the same moment of this VM; each one's I/O occasionally waits
#            behind the other's, which touches both alike. ACC_MODE=
#            sequential runs them back to back (order rotating), plus a bare
#            timed loop (sleep a Poisson gap, time one pread: the probe's
#            reader without its runner); on this VM two processes run one
#            after the other see latencies 15-30 % apart, in either
#            direction, so that mode measures the VM more than the probe.
#            Rate changes latency (host wake-up per isolated I/O), so only
#            same-rate figures are comparable.
#  referee   (needs perf and the raw_syscalls tracepoints; REF_ROUNDS, 2)
#            rounds like the concurrent ones, recorded system-wide by `perf
#            record` of pread64 enter/exit; tools/syscall_latency.py then
#            times every 4 KiB read of each program from the kernel's own
#            tracepoints. Per round: each tool's p50/p99 over the kernel's
#            for the very same I/Os (what the measuring adds), and the
#            kernel's probe/fio ratio (how far the I/Os themselves differ).
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
# Needs root (losetup). Environment knobs: ACC_RATE (100 reads/s),
# ACC_SECONDS (40), ACC_ROUNDS (6), ACC_MODE (concurrent|sequential),
# REF_ROUNDS (2), CPU_PAIRS (5), CPU_SECONDS (15), PAIRS (10), PAIR_SECONDS
# (5); ACC_ROUNDS, REF_ROUNDS, CPU_PAIRS or PAIRS at 0 skips that stage.
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
ACC_SECONDS=${ACC_SECONDS:-40}
ACC_ROUNDS=${ACC_ROUNDS:-6}
ACC_MODE=${ACC_MODE:-concurrent}
case $ACC_MODE in concurrent | sequential) ;; *)
  echo "ACC_MODE must be concurrent or sequential, not '$ACC_MODE'" >&2; exit 2 ;;
esac
REF_ROUNDS=${REF_ROUNDS:-2}
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

# --randrepeat=0: fio otherwise replays the same offsets every run, which a
# cache below the loop device (the host's) then serves faster the second time.
fio_qd1() { # rate seconds out
  fio --name=acc --filename="$LOOP" --rw=randread --bs=4k --iodepth=1 --direct=1 \
    --ioengine=psync --rate_iops="$1" --rate_process=poisson --time_based --randrepeat=0 \
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
[ "$ACC_ROUNDS" -gt 0 ] && echo "== accuracy ($ACC_MODE): probe and fio at $ACC_RATE/s, ${ACC_SECONDS}s, $ACC_ROUNDS rounds" >&2
for i in $(seq 1 "$ACC_ROUNDS"); do
  if [ "$ACC_MODE" = concurrent ]; then
    "$BENCH" probe "$DEV" "$ACC_RATE" "$ACC_SECONDS" >"$WORK/acc-probe-$i.json" &
    pid=$!
    fio_qd1 "$ACC_RATE" "$ACC_SECONDS" "$WORK/acc-fio-$i.json"
    wait "$pid"
    continue
  fi
  case $((i % 3)) in
    1) order="probe fio bare" ;;
    2) order="fio bare probe" ;;
    0) order="bare probe fio" ;;
  esac
  for m in $order; do
    case $m in
      probe) "$BENCH" probe "$DEV" "$ACC_RATE" "$ACC_SECONDS" >"$WORK/acc-probe-$i.json" ;;
      bare) "$BENCH" paced "$DEV" "$ACC_RATE" "$ACC_SECONDS" >"$WORK/acc-bare-$i.json" ;;
      fio) fio_qd1 "$ACC_RATE" "$ACC_SECONDS" "$WORK/acc-fio-$i.json" ;;
    esac
  done
done

# The referee needs perf and the raw_syscalls tracepoints (root, tracefs).
if [ "$REF_ROUNDS" -gt 0 ] && ! { command -v perf >/dev/null &&
  perf record -q -o "$WORK/perf-check.data" -e raw_syscalls:sys_enter --filter 'id == 17' -- true 2>/dev/null; }; then
  echo "== referee: skipped (needs perf and the raw_syscalls tracepoints)" >&2
  REF_ROUNDS=0
fi
[ "$REF_ROUNDS" -gt 0 ] && echo "== referee: $REF_ROUNDS concurrent rounds under perf's syscall tracepoints" >&2
export LOOP
export -f fio_qd1
for i in $(seq 1 "$REF_ROUNDS"); do
  perf record -q -a -o "$WORK/ref-$i.data" -e raw_syscalls:sys_enter --filter 'id == 17' \
    -e raw_syscalls:sys_exit --filter 'id == 17' -- bash -c \
    '"$1" probe "$2" "$3" "$4" >"$5" & pid=$!; fio_qd1 "$3" "$4" "$6"; wait "$pid"' _ \
    "$BENCH" "$DEV" "$ACC_RATE" "$ACC_SECONDS" "$WORK/ref-probe-$i.json" "$WORK/ref-fio-$i.json" 2>/dev/null
  perf script --ns -i "$WORK/ref-$i.data" 2>/dev/null | python3 -m tools.syscall_latency >"$WORK/ref-$i.kernel.json"
done

if [ "$CPU_PAIRS" -gt 0 ]; then
  echo "== cpu: tight pread loop; $CPU_PAIRS interleaved pairs of paced preads and the probe at $ACC_RATE/s" >&2
  "$BENCH" pread "$DEV" 20000 >"$WORK/pread.json"
  "$BENCH" stat "$DEV" 20000 >"$WORK/stat.json"
fi
for i in $(seq 1 "$CPU_PAIRS"); do
  "$BENCH" paced "$DEV" "$ACC_RATE" "$CPU_SECONDS" >"$WORK/paced-$i.json"
  "$BENCH" probe "$DEV" "$ACC_RATE" "$CPU_SECONDS" >"$WORK/cpu-probe-$i.json"
done

[ "$PAIRS" -gt 0 ] && echo "== impact: $PAIRS pairs of ${PAIR_SECONDS}s, probe at $DEFAULT_RATE/s" >&2
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

python3 - "$WORK" "$PAIRS" "$ACC_RATE" "$CPU_PAIRS" "$ACC_ROUNDS" "$BACKING" "$REF_ROUNDS" "$ACC_MODE" <<'EOF'
import json, statistics, sys, glob
work, pairs, rate, cpu_pairs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rounds, backing, ref_rounds, mode = int(sys.argv[5]), sys.argv[6], int(sys.argv[7]), sys.argv[8]
load = lambda p: json.load(open(p))
def fio_pct(j, key="lat_ns"):
    r = j["jobs"][0]["read"]
    p = r[key]["percentile"]
    return {"p50_s": p["50.000000"] / 1e9, "p99_s": p["99.000000"] / 1e9,
            "samples": r["total_ios"]}
def fig(j):
    return {"samples": j["samples"], "p50_us": round(j["p50_s"] * 1e6, 1),
            "p99_us": round(j["p99_s"] * 1e6, 1)}
acc = None
if rounds:
    runs = {"probe": [], "fio": []} if mode == "concurrent" else {"probe": [], "fio": [], "bare": []}
    for i in range(1, rounds + 1):
        runs["probe"].append(fig(load(f"{work}/acc-probe-{i}.json")))
        runs["fio"].append(fig(fio_pct(load(f"{work}/acc-fio-{i}.json"))))
        if "bare" in runs:
            ba = load(f"{work}/acc-bare-{i}.json")
            runs["bare"].append(fig({"samples": ba["calls"], **ba}))
    med = {m: {q: statistics.median(r[q] for r in rs) for q in ("p50_us", "p99_us")}
           for m, rs in runs.items()}
    spread = lambda m, q: round(max(r[q] for r in runs[m]) / min(r[q] for r in runs[m]), 2)
    per_round = lambda q: [round(p[q] / f[q], 3) for p, f in zip(runs["probe"], runs["fio"])]
    acc = {"mode": mode, "rate_per_s": rate, "backing": backing, "rounds": rounds,
           "median_over_rounds": med,
           "p50_ratio_probe_over_fio_per_round": per_round("p50_us"),
           "p99_ratio_probe_over_fio_per_round": per_round("p99_us"),
           "p50_ratio_probe_over_fio_median": statistics.median(per_round("p50_us")),
           "p99_ratio_probe_over_fio_median": statistics.median(per_round("p99_us")),
           "fio_max_over_min_across_rounds": {"p50": spread("fio", "p50_us"), "p99": spread("fio", "p99_us")},
           "runs": runs}
    if "bare" in runs:
        acc["p50_ratio_probe_over_bare"] = round(med["probe"]["p50_us"] / med["bare"]["p50_us"], 3)
        acc["p99_ratio_probe_over_bare"] = round(med["probe"]["p99_us"] / med["bare"]["p99_us"], 3)
pread = load(f"{work}/pread.json") if cpu_pairs else {}
stat = load(f"{work}/stat.json") if cpu_pairs else {}
paced = [load(f"{work}/paced-{i}.json")["cpu_ns_per_call"] for i in range(1, cpu_pairs + 1)]
probe_cpu = [load(f"{work}/cpu-probe-{i}.json")["thread_cpu_ns_per_io"] for i in range(1, cpu_pairs + 1)]
beyond_paced = [c - p for c, p in zip(probe_cpu, paced)]
ratios, probe_ios, skipped = [], [], {}
beyond = [c - pread["cpu_ns_per_call"] for c in probe_cpu] if cpu_pairs else []
for i in range(1, pairs + 1):
    w = load(f"{work}/imp-with-{i}.json")["jobs"][0]["read"]["iops"]
    wo = load(f"{work}/imp-without-{i}.json")["jobs"][0]["read"]["iops"]
    ratios.append(w / wo)
    p = load(f"{work}/imp-probe-{i}.json")
    probe_ios.append(p["ios"].get("ok", 0))
    for k, v in p["skipped"].items():
        skipped[k] = skipped.get(k, 0) + v
out = {"accuracy": acc} if acc else {}
if ref_rounds:
    ref = []
    for i in range(1, ref_rounds + 1):
        kernel = load(f"{work}/ref-{i}.kernel.json")
        own = {"probe": fig(load(f"{work}/ref-probe-{i}.json")),
               "fio": fig(fio_pct(load(f"{work}/ref-fio-{i}.json")))}
        # The probe's thread is named "probe <dev>"; fio's job keeps "fio".
        k = {m: next(v for c, v in kernel.items() if c.split()[0] == m) for m in own}
        r = {"own": own, "kernel": k}
        for q in ("p50", "p99"):
            for m in own:
                r[f"{m}_{q}_own_over_kernel"] = round(own[m][q + "_us"] / k[m][q + "_us"], 3)
            r[f"{q}_probe_over_fio_own"] = round(own["probe"][q + "_us"] / own["fio"][q + "_us"], 3)
            r[f"{q}_probe_over_fio_kernel"] = round(k["probe"][q + "_us"] / k["fio"][q + "_us"], 3)
        ref.append(r)
    out["referee"] = ref
if cpu_pairs:
    out["cpu"] = {"probe_thread_cpu_ns_per_io": probe_cpu,
            "pread_cpu_ns_per_call": pread["cpu_ns_per_call"],
            "pread_wall_ns_per_call": pread["wall_ns_per_call"],
            "paced_pread_cpu_ns_per_call": paced,
            "busy_check_stat_read_cpu_ns": stat["cpu_ns_per_read"],
            "beyond_paced_pread_ns_per_io_median": statistics.median(beyond_paced),
            "beyond_tight_pread_ns_per_io": beyond,
            "beyond_paced_pread_ns_per_io": beyond_paced,
            }
if pairs:
    out["impact"] = {"pairs": pairs, "probe_rate_per_s": 5,
               "iops_ratio_with_over_without_median": statistics.median(ratios),
               "iops_ratio_min": min(ratios), "iops_ratio_max": max(ratios),
               "probe_reads_per_with_run": probe_ios, "probe_skipped_total": skipped,
               "note": "about 50 pairs are needed before a < 1 % impact claim"}
print(json.dumps(out, indent=2))
EOF
