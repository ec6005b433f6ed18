#!/bin/sh
# The real-kernel test: boot Debian's kernel under QEMU with emulated NVMe controllers
# and an AHCI disk, run ssd_exporter next to nvme-cli, compare.
#
#   tests/vm/run.sh [--bench] [tools/vm/run.py options...]
#   tests/vm/run.sh --peer <nvme-exporter binary> [tools/vm/peer.py options...]   (issue 13)
#
# The host side is the Python package tools (tools/vm), run as python -m tools.vm.run
# (or tools.vm.peer) with the repository root on PYTHONPATH, so that relative paths
# in the options (--keep DIR, --recheck DIR) keep meaning the caller's directory.
#
# Environment: SSD_VM_CACHE (kernel + initramfs cache, default <repo>/.vm-cache),
# CARGO_TARGET_DIR (as cargo uses it).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${SSD_VM_CACHE:-$REPO/.vm-cache}
PEER=
if [ "${1:-}" = --peer ]; then PEER=$(realpath "$2"); shift 2; fi

kernel=$("$HERE/setup.sh" | tail -n 1)
KDIR=${kernel% *}
KVER=${kernel#* }

(cd "$REPO" && cargo build --release --bin ssd_exporter)
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
case $TARGET in /*) ;; *) TARGET=$REPO/$TARGET ;; esac
EXPORTER=$TARGET/release/ssd_exporter

# One initramfs per checkout: two trees' runs sharing a cache must not boot
# each other's exporter.
TREE=$(printf %s "$REPO" | cksum | cut -d' ' -f1)
INITRD=$CACHE/initrd-$TREE${PEER:+-peer}.cpio.gz
SSD_VM_PEER=$PEER SSD_VM_CACHE=$CACHE SSD_VM_KERNEL_DIR=$KDIR SSD_VM_KERNEL_VERSION=$KVER \
    "$HERE/build-initramfs.sh" "$EXPORTER" "$INITRD"

# The tools' virtual environment (prometheus_client, qemu.qmp; scripts/tools-venv.sh).
PYTHON=$("$REPO/scripts/tools-venv.sh")/bin/python
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
[ -z "$PEER" ] || exec "$PYTHON" -m tools.vm.peer --kernel "$KDIR/boot/vmlinuz-$KVER" \
    --initrd "$INITRD" --peer "$PEER" "$@"
exec "$PYTHON" -m tools.vm.run --kernel "$KDIR/boot/vmlinuz-$KVER" --initrd "$INITRD" \
    --exporter "$EXPORTER" "$@"
