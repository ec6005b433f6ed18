#!/usr/bin/env bash
# Checks the files under systemd/ with systemd's own tools, without a running
# systemd (CI is a container):
#   1. systemd-analyze verify accepts the unit and prints nothing;
#   2. systemd-analyze security --offline rates its exposure at 2.5 or better;
#   3. systemd-sysusers parses the sysusers file and would create the user;
#      systemd-tmpfiles makes the state directory from the tmpfiles file
#      (owner ssd_exporter, 0700), the one StateDirectory= names and
#      state.path defaults to;
#   4. udev's parser reads 60-ssd-exporter.rules without a complaint;
#   5. the exporter, run under strace while serving replayed drives and
#      probing a loop device, makes only system calls the unit's
#      SystemCallFilter= allows, opens sockets only of the families
#      RestrictAddressFamilies= allows, reads no /proc file that ProcSubset=pid
#      hides and writes files only in the write probe's directory and the
#      state directory (where it saves state.json).
# Step 5 needs the binary: $SSD_EXPORTER_BIN, else `cargo build` (debug).
# Root is needed for steps 4 and 5's mount namespace and loop device; without
# them those parts are skipped with a note, never passed silently.
# Prints PASS/FAIL/SKIP lines and "systemd: N passed, N failed, N skipped";
# exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/ops/lib.sh
repo=$PWD
unit=systemd/ssd_exporter.service
max_exposure=2.5

need=()
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v udevadm >/dev/null || need+=(udev)
command -v strace >/dev/null || need+=(strace)
command -v pgrep >/dev/null || need+=(procps)
command -v losetup >/dev/null || need+=(mount)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
install_missing "${need[@]}"

tmp=$(mktemp -d)
loopdev=
mnt=
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill -TERM $(pgrep -P "$pid") "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "$mnt" ]; then umount "$mnt" 2>/dev/null || true; fi
  if [ -n "$loopdev" ]; then losetup -d "$loopdev" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The exporter binary (step 5, and the ExecStart= stand-in of step 1).
bin=${SSD_EXPORTER_BIN:-}
if [ -z "$bin" ]; then
  cargo build --quiet --locked --bin ssd_exporter
  bin="${CARGO_TARGET_DIR:-$repo/target}/debug/ssd_exporter"
fi
[ -x "$bin" ] || { echo "no executable exporter at $bin"; exit 1; }
bin=$(realpath "$bin")

# --- 1. verify ---------------------------------------------------------------
# systemd-analyze verify wants the binary named by ExecStart= to exist. Where
# /usr/bin/ssd_exporter is not installed, the only change to the unit is that
# path, pointed at the binary just built; every other line is checked as
# shipped. verify exits 0 on unknown keys or bad values (it only warns), so
# any output at all is a failure.
mkdir -p "$tmp/verify"
if [ -x /usr/bin/ssd_exporter ]; then
  cp "$unit" "$tmp/verify/ssd_exporter.service"
else
  sed "s|^ExecStart=/usr/bin/ssd_exporter |ExecStart=$bin |" "$unit" \
    > "$tmp/verify/ssd_exporter.service"
fi
# The copy of $1 at $2 may differ from it in one line at most (2 diff lines),
# and the unit in $tmp/verify, with its drop-ins, must verify silently.
verify_copy() {
  if [ "$(diff "$1" "$2" | grep -c '^[<>]')" -gt 2 ]; then
    fail "the verify copy of $1 differs in more than its one changed line"
  fi
  if out=$(systemd-analyze verify "$tmp/verify/ssd_exporter.service" 2>&1) && [ -z "$out" ]; then
    pass "systemd-analyze verify with $1: no warnings"
  else
    fail "systemd-analyze verify with $1:"
    echo "$out"
  fi
}
verify_copy "$unit" "$tmp/verify/ssd_exporter.service"
# The state file is dated by the wall clock: the unit starts after it is set.
check "the unit starts after time-sync.target" \
  grep -Eq '^After=(.* )?time-sync\.target( |$)' "$unit"

# --- 2. security -------------------------------------------------------------
# --threshold is on systemd's internal 0-100 scale (2.5 shown = 25).
threshold=$(awk -v m="$max_exposure" 'BEGIN { printf "%d", m * 10 }')
set +e
report=$(systemd-analyze security --offline=true --threshold="$threshold" --no-pager "$unit" 2>&1)
status=$?
set -e
exposure=$(sed -n 's/.*Overall exposure level for ssd_exporter.service: \([0-9.]*\).*/\1/p' <<<"$report")
if [ -z "$exposure" ]; then
  fail "systemd-analyze security printed no overall exposure level:"
  echo "$report"
elif [ "$status" -ne 0 ] || awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e > m) }'; then
  fail "exposure $exposure is above $max_exposure (exit $status); the items that count:"
  grep '✗' <<<"$report" || true
else
  pass "systemd-analyze security: overall exposure $exposure (at most $max_exposure)"
fi

# --- 2b. the MegaRAID drop-in -------------------------------------------------
# systemd/megaraid/megaraid.conf, over the unit as verified above (its
# ExecStartPre= pointed at the script in the tree, the only change), and the
# script it runs against a made-up /proc/devices, into a scratch directory.
dropin=systemd/megaraid/megaraid.conf
mkdir -p "$tmp/verify/ssd_exporter.service.d"
sed "s|^ExecStartPre=+/usr/lib/ssd_exporter/megaraid-node\$|ExecStartPre=+$repo/systemd/megaraid/megaraid-node|" \
  "$dropin" > "$tmp/verify/ssd_exporter.service.d/megaraid.conf"
verify_copy "$dropin" "$tmp/verify/ssd_exporter.service.d/megaraid.conf"
if [ "$(id -u)" -eq 0 ]; then
  node_script=systemd/megaraid/megaraid-node
  mr=$tmp/megaraid
  mkdir -p "$mr"
  printf 'Character devices:\n  1 mem\n  4 tty\n240 megaraid_sas_ioctl\n241 hidraw\n\nBlock devices:\n  8 sd\n250 megaraid_sas_ioctl\n' > "$mr/devices"
  printf 'Character devices:\n  1 mem\n\nBlock devices:\n  8 sd\n' > "$mr/none"
  # Without the driver: a line, exit 0, nothing made.
  if out=$(sh "$node_script" "$mr/node" "$mr/none" disk 2>&1) && [ ! -e "$mr/node" ] \
    && grep -q "lists no megaraid_sas_ioctl" <<<"$out"; then
    pass "megaraid-node without the driver: says so, exits 0, makes nothing"
  else
    fail "megaraid-node without the driver: '$out'; $(ls -l "$mr/node" 2>&1)"
  fi
  # With it: character 240:0 (the character major, not the block one),
  # root:disk 0660; a stale node (another major) and a regular file in its
  # place are made again.
  node_ok() { [ "$(stat -c '%F %t:%T %U:%G %a' "$mr/node" 2>/dev/null)" = "character special file f0:0 root:disk 660" ]; }
  for before in none stale file; do
    rm -f "$mr/node"
    case $before in
      stale) mknod -m 0600 "$mr/node" c 241 0 ;;
      file) echo x > "$mr/node" ;;
    esac
    if sh "$node_script" "$mr/node" "$mr/devices" disk 2>&1 && node_ok; then
      pass "megaraid-node over $before: character 240:0, root:disk, 0660"
    else
      fail "megaraid-node over $before made: $(stat -c '%F %t:%T %U:%G %a' "$mr/node" 2>&1)"
    fi
  done
else
  skip "megaraid-node into a scratch directory (needs root for mknod and chown)"
fi

# --- 3. sysusers ---------------------------------------------------------------
mkdir -p "$tmp/root/etc"
if out=$(systemd-sysusers --root="$tmp/root" --dry-run "$repo/systemd/ssd_exporter.sysusers" 2>&1) \
  && grep -q "Creating user 'ssd_exporter'" <<<"$out" \
  && ! grep -qi "fail\|unknown\|invalid\|ignoring" <<<"$out"; then
  pass "systemd-sysusers --dry-run would create user ssd_exporter"
else
  fail "systemd-sysusers rejects systemd/ssd_exporter.sysusers:"
  echo "$out"
fi

# The state directory: the unit's StateDirectory=, the tmpfiles entry and
# state.path's default (src/state/mod.rs) name the same one.
state_dir=$(sed -n 's/^StateDirectory=//p' "$unit")
default_state=$(sed -n 's/^pub const DEFAULT_PATH: &str = "\(.*\)";/\1/p' src/state/mod.rs)
if [ "/var/lib/$state_dir" = "$default_state" ] \
  && grep -qx "d $default_state 0700 ssd_exporter ssd_exporter -" systemd/ssd_exporter.tmpfiles; then
  pass "StateDirectory=$state_dir, the tmpfiles entry and state.path's default agree ($default_state)"
else
  fail "StateDirectory=$state_dir, systemd/ssd_exporter.tmpfiles and state.path's default ($default_state) differ"
fi
if [ "$(id -u)" -eq 0 ]; then
  # For real into a scratch root: the account, then the directory it owns.
  mkdir -p "$tmp/tmpfiles-root/etc"
  if systemd-sysusers --root="$tmp/tmpfiles-root" "$repo/systemd/ssd_exporter.sysusers" >/dev/null 2>&1 \
    && out=$(systemd-tmpfiles --root="$tmp/tmpfiles-root" --create "$repo/systemd/ssd_exporter.tmpfiles" 2>&1); then
    uid=$(awk -F: '$1 == "ssd_exporter" { print $3 }' "$tmp/tmpfiles-root/etc/passwd")
    got=$(stat -c '%u %a' "$tmp/tmpfiles-root$default_state" 2>/dev/null || true)
    if [ -n "$uid" ] && [ "$got" = "$uid 700" ] && [ -z "$out" ]; then
      pass "systemd-tmpfiles creates $default_state, owned by ssd_exporter, mode 0700"
    else
      fail "systemd-tmpfiles made '$got' (want '$uid 700') of $default_state: $out"
    fi
  else
    fail "systemd-tmpfiles rejects systemd/ssd_exporter.tmpfiles: ${out:-systemd-sysusers failed}"
  fi
else
  skip "systemd-tmpfiles --create of the state directory (needs root to chown)"
fi

# --- 4. udev rule -------------------------------------------------------------
# udevadm verify only exists from systemd 254; before that, udevadm test
# parses every rules file, so the rule is shown to it in a private mount
# namespace with an /etc/udev/rules.d of its own (the host's is untouched).
rules=systemd/60-ssd-exporter.rules
if udevadm verify --help >/dev/null 2>&1; then
  if out=$(udevadm verify "$rules" 2>&1); then
    pass "udevadm verify $rules"
  else
    fail "udevadm verify $rules:"
    echo "$out"
  fi
else
  mkdir -p "$tmp/rules.d"
  cp "$rules" "$tmp/rules.d/"
  if out=$(unshare -m sh -c 'mount --bind "$1" /etc/udev/rules.d && udevadm test /sys/class/mem/null' \
    sh "$tmp/rules.d" 2>&1); then
    name=$(basename "$rules")
    complaints=$(grep -F "$name:" <<<"$out" || true)
    if ! grep -q "Reading rules file: /etc/udev/rules.d/$name" <<<"$out"; then
      fail "udevadm test did not read $rules"
    elif [ -n "$complaints" ]; then
      fail "udev's parser complains about $rules:"
      echo "$complaints"
    else
      pass "udevadm test parses $rules without a complaint"
    fi
  else
    skip "udev rule parse check: no private mount namespace here (needs root)"
  fi
fi

# --- 5. the exporter inside the unit's system call and socket limits ----------
# The allowed set, as systemd computes it: the names in SystemCallFilter=
# (allow list) minus those in SystemCallFilter=~ (deny list), groups expanded.
expand() {
  local seen=" " todo=("$@") item out=()
  while [ ${#todo[@]} -gt 0 ]; do
    item=${todo[0]}
    todo=("${todo[@]:1}")
    case $seen in *" $item "*) continue ;; esac
    seen+="$item "
    if [[ $item == @* ]]; then
      mapfile -t members < <(systemd-analyze syscall-filter --no-pager "$item" \
        | awk 'NR > 1 && $1 !~ /^#/ && NF { print $1 }')
      todo+=("${members[@]}")
    else
      out+=("$item")
    fi
  done
  printf '%s\n' "${out[@]}" | sort -u
}
filter_values() { # $1 = allow|deny
  sed -n 's/^SystemCallFilter=//p' "$unit" | while read -r v; do
    if [[ $v == "~"* ]]; then
      [ "$1" = deny ] && tr ' ' '\n' <<<"${v#\~}"
    else
      [ "$1" = allow ] && tr ' ' '\n' <<<"$v"
    fi
  done | sed '/^$/d'
}
mapfile -t allow_groups < <(filter_values allow)
mapfile -t deny_groups < <(filter_values deny)
expand "${allow_groups[@]}" > "$tmp/allow"
expand "${deny_groups[@]}" > "$tmp/deny"
comm -23 "$tmp/allow" "$tmp/deny" > "$tmp/allowed"
families=$(sed -n 's/^RestrictAddressFamilies=//p' "$unit")

# A loop device with ext4 stands in for a drive: the read probe reads it and
# the write probe writes into a directory on it, as on a real SSD.
extra=()
workload="replayed NVMe and SATA drives"
if [ "$(id -u)" -eq 0 ] && truncate -s 64M "$tmp/disk.img" \
  && loopdev=$(losetup --find --show "$tmp/disk.img" 2>/dev/null); then
  mnt="$tmp/mnt"
  mkdir -p "$mnt"
  if mkfs.ext4 -q -F "$loopdev" && mount "$loopdev" "$mnt"; then
    mkdir "$mnt/probe"
    extra=(--probe.device "$(basename "$loopdev")" --probe.write.path "$mnt/probe"
      --probe.write.rate 10 --probe.write.max-bytes 4194304)
    workload+=", read and write probes on $(basename "$loopdev")"
  else
    mnt=
    skip "no ext4 on $loopdev: the probes are left out of the system call check"
  fi
else
  loopdev=
  skip "no loop device (needs root): the probes are left out of the system call check"
fi

replay=()
for d in tests/fixtures/nvme/*/nvme* tests/fixtures/sata/*/sd*; do
  [ -d "$d" ] && replay+=(--replay "$d")
done
# The shipped example configuration, so its settings are what runs; flags
# override only the address, the data source and the pace.
# The state directory stands in for StateDirectory=, the one other place
# the unit lets it write.
mkdir -m 0700 "$tmp/state"
strace -f -qq -o "$tmp/strace" "$bin" --config.file=examples/config.yml \
  --web.listen-address=127.0.0.1:0 --web.listen-address=localhost:0 --poll.interval=1s --probe.rate=20 \
  --state.path="$tmp/state" "${replay[@]}" "${extra[@]}" 2>"$tmp/log" &
pid=$!
port=
for _ in $(seq 50); do
  port=$(grep -m1 listening "$tmp/log" | grep -oE '127\.0\.0\.1:[0-9]+' | cut -d: -f2 || true)
  [ -n "$port" ] && break
  sleep 0.2
done
get() { # GET $1 [with header $2], headers and body on stdout
  local header=
  if [ -n "${2:-}" ]; then header="$2"$'\r\n'; fi
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET %s HTTP/1.1\r\nHost: localhost\r\n%sConnection: close\r\n\r\n' "$1" "$header" >&3
  timeout 10 cat <&3
  exec 3<&-
}
if [ -z "$port" ]; then
  fail "the exporter did not start under strace:"
  cat "$tmp/log"
else
  sleep 3
  for path in /metrics / /healthz; do get "$path" 'Accept-Encoding: gzip' >/dev/null; done
  get /metrics 'Accept: application/openmetrics-text' >/dev/null
  get /metrics > "$tmp/metrics"
fi
# strace passes no SIGTERM on to the program it started: stop the exporter
# itself (its graceful shutdown is part of what is traced), then strace ends.
kill -TERM $(pgrep -P "$pid") 2>/dev/null || true
wait "$pid" || true
pid=

if [ -n "$port" ]; then
  if [ -n "$loopdev" ]; then
    if grep -q "^ssd_probe.*device=\"$(basename "$loopdev")\"" "$tmp/metrics"; then
      pass "the traced exporter served probe series for $(basename "$loopdev")"
    else
      fail "the probe of $(basename "$loopdev") produced no series"
    fi
  fi
  sed -n 's/^[0-9]\+ \+\([a-z_0-9]\+\)(.*/\1/p' "$tmp/strace" | sort -u > "$tmp/used"
  denied=$(comm -23 "$tmp/used" "$tmp/allowed" | tr '\n' ' ')
  if [ -n "$denied" ]; then
    fail "system calls outside SystemCallFilter=: $denied"
  else
    pass "all $(wc -l < "$tmp/used") system calls used ($workload) are inside SystemCallFilter="
  fi
  bad_af=$(sed -n 's/^[0-9]\+ \+socket(\(AF_[A-Z0-9]*\).*/\1/p' "$tmp/strace" | sort -u \
    | while read -r af; do [[ " $families " == *" $af "* ]] || echo "$af"; done)
  if [ -n "$bad_af" ]; then
    fail "sockets outside RestrictAddressFamilies=: $bad_af"
  else
    pass "socket families used ($(sed -n 's/^[0-9]\+ \+socket(\(AF_[A-Z0-9]*\).*/\1/p' "$tmp/strace" | sort -u | paste -sd ' ')) are allowed"
  fi
  proc=$(grep -oE 'open(at)?\((AT_FDCWD, )?"/proc/[^"]*"' "$tmp/strace" | grep -oE '"/proc/[^"]*"' \
    | grep -vE '^"/proc/(self|thread-self|[0-9]+)(/|")' | sort -u | tr '\n' ' ' || true)
  if [ -n "$proc" ]; then
    fail "reads /proc files that ProcSubset=pid hides: $proc"
  else
    pass "no /proc file outside the process folders is opened (ProcSubset=pid)"
  fi
  writes=$(grep -E 'open(at)?\(.*(O_WRONLY|O_RDWR|O_CREAT)' "$tmp/strace" | grep -v ' = -1 ' \
    | grep -oE '"/[^"]*"' | sort -u | grep -vF "\"${mnt:-/nonexistent}/probe/" \
    | grep -vF "\"$tmp/state/" | tr '\n' ' ' || true)
  if [ -n "$writes" ]; then
    fail "files opened for writing outside the write probe and state directories (ProtectSystem=strict): $writes"
  else
    pass "no file is opened for writing outside the write probe and state directories"
  fi
  if grep -qE "openat\(.*\"$tmp/state/state\.json\.tmp\".*O_CREAT\|O_EXCL.*O_NOFOLLOW|openat\(.*\"$tmp/state/state\.json\.tmp\".*O_NOFOLLOW.*O_CREAT\|O_EXCL" "$tmp/strace" \
    && grep -qE "rename(at2?)?\(.*\"$tmp/state/state\.json\.tmp\".*\"$tmp/state/state\.json\"" "$tmp/strace" \
    && [ -s "$tmp/state/state.json" ]; then
    pass "state.json saved in the state directory: O_CREAT|O_EXCL|O_NOFOLLOW temp file renamed over it"
  else
    fail "no state.json saved through an O_EXCL|O_NOFOLLOW temp file and rename in $tmp/state"
  fi
fi

summary systemd
