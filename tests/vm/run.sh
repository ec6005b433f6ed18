#!/bin/sh
# The real-kernel test: boot Debian's kernel under QEMU with emulated NVMe controllers
# and an AHCI disk, run ssd_exporter next to nvme-cli, compare.
#
#   tests/vm/run.sh [--bench] [run.py options...]
#
# Environment: SSD_VM_CACHE (kernel + initramfs cache, default <repo>/.vm-cache),
# CARGO_TARGET_DIR (as cargo uses it).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${SSD_VM_CACHE:-$REPO/.vm-cache}

kernel=$("$HERE/setup.sh" | tail -n 1)
KDIR=${kernel% *}
KVER=${kernel#* }

(cd "$REPO" && cargo build --release --bin ssd_exporter)
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
case $TARGET in /*) ;; *) TARGET=$REPO/$TARGET ;; esac
EXPORTER=$TARGET/release/ssd_exporter

INITRD=$CACHE/initrd.cpio.gz
SSD_VM_CACHE=$CACHE SSD_VM_KERNEL_DIR=$KDIR SSD_VM_KERNEL_VERSION=$KVER \
    "$HERE/build-initramfs.sh" "$EXPORTER" "$INITRD"

exec python3 "$HERE/run.py" --kernel "$KDIR/boot/vmlinuz-$KVER" --initrd "$INITRD" \
    --exporter "$EXPORTER" "$@"
