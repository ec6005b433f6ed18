#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs what it needs
# (Debian packages, the cached Debian kernel for the VM tests), then runs
# formatting and lint checks, unit and integration tests, the fixture
# cross-check and the real-kernel VM tests. Exit status 0 only if all pass.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Debian kernel for the VM tests is downloaded once and kept outside the
# checkout, so fresh clones on the same machine (CI) reuse it.
export SSD_VM_CACHE=${SSD_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-vm}

need=()
command -v promtool >/dev/null || need+=(prometheus)
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -x /bin/busybox ] || need+=(busybox-static)
command -v depmod >/dev/null || need+=(kmod)
command -v cpio >/dev/null || need+=(cpio)
command -v nvme >/dev/null || need+=(nvme-cli)
command -v smartctl >/dev/null || need+=(smartmontools)
command -v losetup >/dev/null || need+=(mount)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v chromium >/dev/null || need+=(chromium)
command -v vmalert >/dev/null || need+=(victoria-metrics)
command -v systemd-analyze >/dev/null || need+=(systemd)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets --quiet -- -D warnings
echo "== cargo doc (broken intra-doc links fail)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
echo "== benchmark referee: tools/syscall_latency.py on a hand-made trace"
python3 -m tools.syscall_latency --selftest
echo "== real kernel: QEMU with emulated NVMe and SATA under the Debian kernel"
tests/vm/run.sh
echo "== operators' kit: rules, dashboards, deployment"
alerts/check.sh
python3 -m tools.grafana selftest
python3 -m tools.grafana validate dashboards/*.json
python3 -m tools.dashboards.generate --check
cargo build --quiet --bin ssd_exporter
python3 -m tools.ops.prometheus_e2e target/debug/ssd_exporter
echo "== scalable pipeline: vmagent -> VictoriaMetrics <- vmalert, three demo exporters"
python3 -m tools.ops.vm_pipeline target/debug/ssd_exporter
tests/ops/k8s.sh
tests/ops/systemd.sh
tests/ops/deb.sh
echo "== fuzz targets build and run (smoke: 500 inputs or 3 s each; scripts/fuzz.sh for a campaign)"
# Built outside the checkout, like the VM kernel, so CI's fresh clones on
# the same machine only rebuild what changed.
FUZZ_TARGET_DIR=${SSD_FUZZ_TARGET:-${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-fuzz-target} \
  FUZZ_PROFILE=dev FUZZ_RUNS=500 scripts/fuzz.sh 3
echo "== web config: TLS, basic auth, mTLS, rotation, socket activation (curl, promtool)"
tests/ops/web_tls.sh target/debug/ssd_exporter
python3 -m tools.ops.prometheus_tls target/debug/ssd_exporter
python3 -m tools.ops.web_limits target/debug/ssd_exporter
echo "== isolation: 100 drives whose every open hangs (FIFOs in a fake sysfs); hostile replay page files"
python3 -m tools.ops.hung_opens target/debug/ssd_exporter
python3 -m tools.ops.bad_replay target/debug/ssd_exporter
echo "== cargo test"
log=$(mktemp)
set +e
cargo test --all-targets 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line for the whole cargo test run (it prints one per binary).
awk '/^test result:/ { p += $4; f += $6 } END { printf "cargo test: %d passed, %d failed\n", p, f }' "$log"
rm -f "$log"
exit "$status"
