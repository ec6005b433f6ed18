#!/usr/bin/env bash
# Builds the Debian package with cargo-deb ([package.metadata.deb] in
# Cargo.toml) and checks what is in it: the binary, the unit, the sysusers
# and tmpfiles files (the state directory), the udev rule, the configuration as a conffile, the docs and the
# maintainer scripts; the packaged files equal their sources; and the
# extracted binary runs and accepts the packaged configuration.
# Installs cargo-deb with `cargo install` if it is missing (about a minute).
# The package is left in the target folder's debian/ (cargo-deb's default;
# CARGO_TARGET_DIR is honoured). Prints PASS/FAIL/SKIP lines and
# "deb: N passed, N failed, N skipped"; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

. tests/ops/lib.sh
command -v dpkg-deb >/dev/null || install_missing dpkg
if ! command -v cargo-deb >/dev/null; then
  echo "== cargo install cargo-deb --locked"
  start=$SECONDS
  cargo install --quiet cargo-deb --locked
  echo "== cargo-deb installed in $((SECONDS - start)) s"
fi


tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== cargo deb"
start=$SECONDS
cargo deb --locked > "$tmp/cargo-deb.out"
deb=$(grep '\.deb$' "$tmp/cargo-deb.out" | tail -1)
echo "== built $deb in $((SECONDS - start)) s"
[ -f "$deb" ] || { echo "cargo deb printed no package path:"; cat "$tmp/cargo-deb.out"; exit 1; }

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
dpkg-deb --info "$deb" > "$tmp/info"
dpkg-deb --contents "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' > "$tmp/contents"
dpkg-deb --control "$deb" "$tmp/control"
dpkg-deb --extract "$deb" "$tmp/root"

field() { sed -n "s/^ $1: //p" "$tmp/info"; }
check "Package: ssd-exporter, version $version" \
  test "$(field Package) $(field Version)" = "ssd-exporter $version-1"
check "Section: admin, Priority: optional" \
  test "$(field Section) $(field Priority)" = "admin optional"
check "Depends on the C library (\$auto): $(field Depends)" \
  grep -q '^ Depends: .*libc6' "$tmp/info"
check "Depends on procps (/bin/kill for ExecReload=): $(field Depends)" \
  grep -q '^ Depends: .*procps' "$tmp/info"
check "Maintainer is set: $(field Maintainer)" \
  grep -q '^ Maintainer: .*<.*@.*>' "$tmp/info"
# smartmontools ships drivedb.h, which names the SATA attributes the built-in
# table does not (docs/install.md); recommended, not required.
check "Recommends: smartmontools ($(field Recommends))" \
  grep -q '^ Recommends: .*smartmontools' "$tmp/info"

has() { grep -qxF "$1" "$tmp/contents"; }
same() { cmp -s "$1" "$tmp/root$2"; }
check "binary /usr/bin/ssd_exporter" has /usr/bin/ssd_exporter
unit=$(grep -E '^(/usr)?/lib/systemd/system/ssd_exporter\.service$' "$tmp/contents" || true)
check "unit ${unit:-ssd_exporter.service (missing)}" test -n "$unit"
check "sysusers /usr/lib/sysusers.d/ssd_exporter.conf" has /usr/lib/sysusers.d/ssd_exporter.conf
check "tmpfiles /usr/lib/tmpfiles.d/ssd_exporter.conf" has /usr/lib/tmpfiles.d/ssd_exporter.conf
check "udev rule /usr/lib/udev/rules.d/60-ssd-exporter.rules" has /usr/lib/udev/rules.d/60-ssd-exporter.rules
check "configuration /etc/ssd_exporter/config.yml" has /etc/ssd_exporter/config.yml
for doc in README.md systemd.md copyright; do
  check "doc /usr/share/doc/ssd-exporter/$doc" has "/usr/share/doc/ssd-exporter/$doc"
done
# The manual README.md links to, every page of it where the links find it.
for doc in docs/*.md docs/landing.png; do
  check "doc /usr/share/doc/ssd-exporter/$doc" same "$doc" "/usr/share/doc/ssd-exporter/$doc"
done
for f in socket-activation/ssd_exporter.socket socket-activation/socket.conf; do
  check "doc /usr/share/doc/ssd-exporter/$f" same "systemd/$f" "/usr/share/doc/ssd-exporter/$f"
done
check "doc /usr/share/doc/ssd-exporter/examples/web-config.yml" \
  same examples/web-config.yml /usr/share/doc/ssd-exporter/examples/web-config.yml
check "doc /usr/share/doc/ssd-exporter/examples/megaraid.conf (the MegaRAID drop-in)" \
  same systemd/megaraid/megaraid.conf /usr/share/doc/ssd-exporter/examples/megaraid.conf
check "the drop-in's node maker /usr/lib/ssd_exporter/megaraid-node, executable" \
  sh -c 'cmp -s "$1" "$2" && test "$(stat -c %a "$2")" = 755' sh systemd/megaraid/megaraid-node \
  "$tmp/root/usr/lib/ssd_exporter/megaraid-node"
check "the drop-in runs the packaged node maker" \
  grep -qxF 'ExecStartPre=+/usr/lib/ssd_exporter/megaraid-node' systemd/megaraid/megaraid.conf
check "the socket unit is not installed as a unit" \
  sh -c '! grep -q "systemd/system/ssd_exporter\.socket" "$1"' sh "$tmp/contents"
for f in dashboards/*.json dashboards/README.md alerts/*.yml alerts/README.md; do
  check "operators' kit /usr/share/ssd-exporter/$f" same "$f" "/usr/share/ssd-exporter/$f"
done
check "conffiles lists /etc/ssd_exporter/config.yml" \
  grep -qxF /etc/ssd_exporter/config.yml "$tmp/control/conffiles"

check "packaged unit is systemd/ssd_exporter.service" same systemd/ssd_exporter.service "$unit"
check "packaged sysusers file is systemd/ssd_exporter.sysusers" \
  same systemd/ssd_exporter.sysusers /usr/lib/sysusers.d/ssd_exporter.conf
check "packaged tmpfiles file is systemd/ssd_exporter.tmpfiles" \
  same systemd/ssd_exporter.tmpfiles /usr/lib/tmpfiles.d/ssd_exporter.conf
check "packaged udev rule is systemd/60-ssd-exporter.rules" \
  same systemd/60-ssd-exporter.rules /usr/lib/udev/rules.d/60-ssd-exporter.rules
check "packaged configuration is examples/config.yml" \
  same examples/config.yml /etc/ssd_exporter/config.yml
check "binary is executable (0755)" \
  test "$(stat -c %a "$tmp/root/usr/bin/ssd_exporter")" = 755

# Maintainer scripts: cargo-deb put its steps where #DEBHELPER# stood.
for s in postinst prerm postrm; do
  check "$s is a valid shell script" sh -n "$tmp/control/$s"
done
check "postinst creates the user (systemd-sysusers ssd_exporter.conf)" \
  grep -q 'systemd-sysusers .*ssd_exporter\.conf' "$tmp/control/postinst"
check "postinst creates the state directory (systemd-tmpfiles ssd_exporter.conf), after the user, before the start" \
  sh -c 'u=$(grep -n "systemd-sysusers .*ssd_exporter\.conf" "$1" | head -1 | cut -d: -f1)
         t=$(grep -n "systemd-tmpfiles --create ssd_exporter\.conf" "$1" | head -1 | cut -d: -f1)
         s=$(grep -n "deb-systemd-invoke" "$1" | head -1 | cut -d: -f1)
         [ -n "$u" ] && [ -n "$t" ] && [ -n "$s" ] && [ "$u" -lt "$t" ] && [ "$t" -lt "$s" ]' \
  sh "$tmp/control/postinst"
check "postrm deletes the state directory on purge only" \
  sh -c 'grep -A2 "\"\$1\" = \"purge\" ]; then" "$1" | grep -q "rm -rf /var/lib/ssd_exporter" &&
         [ "$(grep -c "rm -rf /var/lib/ssd_exporter" "$1")" -eq 1 ]' sh "$tmp/control/postrm"
check "postinst enables and starts ssd_exporter.service" \
  sh -c 'grep -q "deb-systemd-helper enable ssd_exporter.service" "$1" &&
         grep -q "deb-systemd-invoke .*ssd_exporter.service" "$1"' sh "$tmp/control/postinst"
check "postinst applies the udev rule to existing NVMe controllers, before the start" \
  sh -c 'u=$(grep -n "udevadm trigger" "$1" | head -1 | cut -d: -f1)
         s=$(grep -n "deb-systemd-invoke" "$1" | head -1 | cut -d: -f1)
         [ -n "$u" ] && [ -n "$s" ] && [ "$u" -lt "$s" ]' sh "$tmp/control/postinst"
check "no #DEBHELPER# token left" \
  sh -c '! grep -q "#DEBHELPER#" "$@"' sh "$tmp/control/postinst" "$tmp/control/postrm"

# systemd-analyze verify on the unit exactly as packaged, with the packaged
# binary at its ExecStart= path: a root made of the extracted package plus
# this host's own units (sysinit.target and the others a service depends on).
# verify only warns about bad keys (exit 0), so any output fails.
if command -v systemd-analyze >/dev/null && [ -d /usr/lib/systemd/system ]; then
  cp -an /usr/lib/systemd/system/. "$tmp/root/usr/lib/systemd/system/"
  # ExecReload= runs /bin/kill, which the package depends on (procps): from
  # this host, as the units a service depends on are.
  mkdir -p "$tmp/root/bin" && cp -a "$(readlink -f /bin/kill)" "$tmp/root/bin/kill"
  if out=$(systemd-analyze verify --root="$tmp/root" "$unit" 2>&1) && [ -z "$out" ]; then
    pass "systemd-analyze verify: packaged unit with the packaged binary"
  else
    fail "systemd-analyze verify of the packaged unit:"
    echo "$out"
  fi
else
  skip "systemd-analyze verify (no systemd here; tests/ops/systemd.sh needs it too)"
fi

# The packaged binary runs, and accepts the packaged configuration.
out=$("$tmp/root/usr/bin/ssd_exporter" --version 2>&1) || true
check "extracted binary runs: $out" grep -q "$version" <<<"$out"
check "extracted binary accepts /etc/ssd_exporter/config.yml (--check-config)" \
  sh -c '"$1" --check-config --config.file="$2" >/dev/null' sh \
  "$tmp/root/usr/bin/ssd_exporter" "$tmp/root/etc/ssd_exporter/config.yml"

summary deb
