#!/bin/sh
# Prepare the host for the VM tests: the tools and a cached, extracted Debian kernel.
# Idempotent; with a warm cache it only checks that everything is present.
#
# Environment: SSD_VM_CACHE (default: <repo>/.vm-cache)
# Prints the kernel folder and version as the last line: "<kernel-dir> <version>".
set -eu

REPO=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${SSD_VM_CACHE:-$REPO/.vm-cache}
mkdir -p "$CACHE"

SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

# command -> Debian package that provides it
need=""
for pair in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
            depmod:kmod modprobe:kmod cpio:cpio nvme:nvme-cli smartctl:smartmontools; do
    cmd=${pair%%:*}; pkg=${pair#*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$cmd" ] && ! [ -x "/sbin/$cmd" ]; then
        need="$need $pkg"
    fi
done
# busybox must be the static build (it runs in a guest without libraries)
if command -v busybox >/dev/null 2>&1 && ldd "$(command -v busybox)" >/dev/null 2>&1; then
    need="$need busybox-static"
fi
if [ -n "$need" ]; then
    echo "setup: installing$need" >&2
    $SUDO apt-get update
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y $need
fi

# An extracted kernel already in the cache? (vmlinuz + modules.dep)
find_cached() {
    for d in "$CACHE"/kernel-*; do
        [ -d "$d" ] || continue
        v=${d##*/kernel-}
        if [ -f "$d/boot/vmlinuz-$v" ] && [ -f "$d/lib/modules/$v/modules.dep" ]; then
            echo "$d $v"
        fi
    done | sort -V | tail -n 1
}

found=$(find_cached)
if [ -z "$found" ]; then
    newest() {
        apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' \
            | awk '{print $1}' | sort -V | tail -n 1
    }
    pkg=$(newest)
    if [ -z "$pkg" ]; then
        # a fresh CI image may have empty package lists
        $SUDO apt-get update
        pkg=$(newest)
    fi
    if [ -z "$pkg" ]; then
        echo "setup: no linux-image-6.1.0-N-amd64 in apt's lists (run apt-get update?)" >&2
        exit 1
    fi
    ver=${pkg#linux-image-}
    echo "setup: fetching $pkg" >&2
    dl="$CACHE/download"
    rm -rf "$dl"; mkdir -p "$dl"
    (cd "$dl" && apt-get download "$pkg")
    tmp="$CACHE/kernel-$ver.tmp"
    rm -rf "$tmp"
    dpkg -x "$dl"/"$pkg"_*.deb "$tmp"
    # Debian ships modules under /lib or /usr/lib depending on the release
    if [ ! -d "$tmp/lib/modules/$ver" ] && [ -d "$tmp/usr/lib/modules/$ver" ]; then
        mkdir -p "$tmp/lib/modules"
        mv "$tmp/usr/lib/modules/$ver" "$tmp/lib/modules/$ver"
    fi
    depmod -b "$tmp" "$ver"
    rm -rf "$CACHE/kernel-$ver"
    mv "$tmp" "$CACHE/kernel-$ver"
    rm -rf "$dl"
    found=$(find_cached)
    [ -n "$found" ] || { echo "setup: kernel extraction failed" >&2; exit 1; }
fi
echo "$found"
