#!/bin/sh
# Build the guest's initramfs: busybox, kernel modules, nvme-cli and smartctl (the
# reference tools), the exporter under test and the guest scripts.
#
#   build-initramfs.sh <exporter-binary> <out.cpio.gz>
#
# The output is two concatenated gzip'd cpio archives (the kernel unpacks both):
# a "base" part (busybox, modules, tools and their libraries) cached in
# $SSD_VM_CACHE/initramfs-base-<key>.cpio.gz, and a small part rebuilt every time with
# the exporter binary, /init and tests/vm/guest/*.sh.
#
# Environment: SSD_VM_CACHE (default <repo>/.vm-cache); SSD_VM_KERNEL_DIR and
# SSD_VM_KERNEL_VERSION (default: the newest kernel setup.sh extracted into the cache).
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 <exporter-binary> <out.cpio.gz>" >&2
    exit 2
fi
EXPORTER=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${SSD_VM_CACHE:-$REPO/.vm-cache}

[ -x "$EXPORTER" ] || { echo "build-initramfs: $EXPORTER is not an executable" >&2; exit 1; }

if [ -z "${SSD_VM_KERNEL_DIR:-}" ]; then
    d=$(ls -d "$CACHE"/kernel-* 2>/dev/null | grep -v '\.tmp$' | sort -V | tail -n 1 || true)
    [ -n "$d" ] || { echo "build-initramfs: no kernel in $CACHE (run tests/vm/setup.sh)" >&2; exit 1; }
    SSD_VM_KERNEL_DIR=$d
    SSD_VM_KERNEL_VERSION=${d##*/kernel-}
fi
KDIR=$SSD_VM_KERNEL_DIR
KVER=$SSD_VM_KERNEL_VERSION

# Modules the guest loads, in this order; each one's dependencies (soft ones
# included) are taken from modprobe and inserted before it. crc64_rocksoft_generic
# provides the algorithm crc64-rocksoft asks the crypto API for; nothing depends on it
# by symbol, so modprobe would not list it.
MODULES="crc64_rocksoft_generic nvme ahci sd_mod sg virtio_pci 9pnet_virtio 9p"
# Loaded by the scenario (guest/main.sh), not by /init, once the AHCI disk is sda:
# the virtio-scsi HBA (QEMU's scsi-hd) and scsi_debug (a SAS SSD and fault injection).
# Their dependencies already in MODULES are left out of this list.
LATE_MODULES="virtio_scsi scsi_debug"
# The other boots' modules (tools/vm/scenarios.py): guest/scenarios/<name>.modules,
# one module a line, '#' comments; /init loads etc/modules-<name>.order for that boot.
SCENARIOS=$(cd "$HERE/guest/scenarios" && ls *.modules 2>/dev/null | sed 's/\.modules$//' || true)

NVME=$(command -v nvme || echo /usr/sbin/nvme)
SMARTCTL=$(command -v smartctl || echo /usr/sbin/smartctl)
BUSYBOX=$(command -v busybox || echo /bin/busybox)
for f in "$NVME" "$SMARTCTL" "$BUSYBOX"; do
    [ -x "$f" ] || { echo "build-initramfs: missing $f (run tests/vm/setup.sh)" >&2; exit 1; }
done

# Copy a binary and every library ldd names (with the loader) into root $1.
copy_with_libs() {
    root=$1; bin=$2; dest=$3
    mkdir -p "$root$(dirname "$dest")"
    cp -L "$bin" "$root$dest"
    ldd "$bin" 2>/dev/null | awk '
        $2 == "=>" && $3 ~ /^\// { print $3 }
        $1 ~ /^\// { print $1 }' | while read -r lib; do
        if [ ! -e "$root$lib" ]; then
            mkdir -p "$root$(dirname "$lib")"
            cp -L "$lib" "$root$lib"
        fi
    done
}

key=$( { echo "$KVER $MODULES / $LATE_MODULES"; sha256sum "$NVME" "$SMARTCTL" "$BUSYBOX" "$0" \
         "$HERE"/guest/scenarios/*.modules; } | sha256sum | cut -c1-16)
BASE="$CACHE/initramfs-base-$key.cpio.gz"

if [ ! -s "$BASE" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    root=$work/root
    mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/etc" \
             "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/mnt/host" \
             "$root/lib/modules/$KVER"
    cp "$BUSYBOX" "$root/bin/busybox"
    "$BUSYBOX" --list-full | while read -r applet; do
        [ "$applet" = bin/busybox ] && continue
        mkdir -p "$root/$(dirname "$applet")"
        [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
    done

    # insmod order: each module's --show-depends list, first occurrence wins
    : > "$work/order"
    for m in $MODULES; do
        modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++' > "$work/order"
    : > "$root/etc/modules.order"
    while read -r ko; do
        name=${ko##*/}
        cp "$ko" "$root/lib/modules/$KVER/$name"
        echo "/lib/modules/$KVER/$name" >> "$root/etc/modules.order"
    done < "$work/order"
    for m in $LATE_MODULES; do
        modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++' | grep -vxF -f "$work/order" > "$work/late" || true
    : > "$root/etc/modules-late.order"
    while read -r ko; do
        name=${ko##*/}
        cp "$ko" "$root/lib/modules/$KVER/$name"
        echo "/lib/modules/$KVER/$name" >> "$root/etc/modules-late.order"
    done < "$work/late"

    # each scenario's modules and their dependencies, less what /init already loaded
    for name in $SCENARIOS; do
        grep -v '^#' "$HERE/guest/scenarios/$name.modules" | while read -r m; do
            [ -n "$m" ] || continue
            modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
        done | awk '!seen[$0]++' | grep -vxF -f "$work/order" > "$work/scenario" || true
        : > "$root/etc/modules-$name.order"
        while read -r ko; do
            cp "$ko" "$root/lib/modules/$KVER/${ko##*/}"
            echo "/lib/modules/$KVER/${ko##*/}" >> "$root/etc/modules-$name.order"
        done < "$work/scenario"
        [ -s "$root/etc/modules-$name.order" ] ||
            { echo "build-initramfs: no module for scenario $name" >&2; exit 1; }
    done

    copy_with_libs "$root" "$NVME" /usr/sbin/nvme
    copy_with_libs "$root" "$SMARTCTL" /usr/sbin/smartctl

    tmp="$BASE.tmp.$$"
    (cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp"
    mv "$tmp" "$BASE"
    rm -rf "$work"
    trap - EXIT
fi

# The per-build part: exporter, /init, guest scripts.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/guest"
copy_with_libs "$root" "$EXPORTER" /usr/bin/ssd_exporter
if [ -n "${SSD_VM_PEER:-}" ]; then
    # run.sh --peer: the peer exporter and smartmontools' drivedb.h (guest/peer.sh)
    copy_with_libs "$root" "$SSD_VM_PEER" /usr/bin/nvme-exporter
    db=/var/lib/smartmontools/drivedb/drivedb.h
    [ -e "$db" ] || db=/usr/share/smartmontools/drivedb.h
    mkdir -p "$root/peer" && cp "$db" "$root/peer/drivedb.h"
fi
# strace where the host has it: the peer's syscall counts, and the system calls
# of one poll in the bench (guest/bench.sh)
! command -v strace > /dev/null || copy_with_libs "$root" "$(command -v strace)" /usr/bin/strace
cp "$HERE/guest/init" "$root/init"
chmod 755 "$root/init"
# The MegaRAID drop-in's node maker, as the package installs it (megaraid boot).
mkdir -p "$root/usr/lib/ssd_exporter"
cp "$HERE/../../systemd/megaraid/megaraid-node" "$root/usr/lib/ssd_exporter/"
chmod 755 "$root/usr/lib/ssd_exporter/megaraid-node"
cp "$HERE"/guest/*.sh "$root/guest/"
mkdir -p "$root/guest/scenarios"
cp "$HERE"/guest/scenarios/*.sh "$root/guest/scenarios/"
chmod 755 "$root"/guest/*.sh "$root"/guest/scenarios/*.sh
tmp="$OUT.tmp.$$"
cat "$BASE" > "$tmp"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >> "$tmp"
mv "$tmp" "$OUT"
