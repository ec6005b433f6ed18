#!/usr/bin/env bash
# The web config against real clients, on 127.0.0.1 only:
#   1. promtool check web-config accepts examples/web-config.yml (with a
#      certificate and key generated beside a copy of it: promtool loads them);
#   2. curl over TLS: 401 with WWW-Authenticate: Basic without credentials
#      and with a wrong password, 200 with the right one; the security
#      headers are sent; HTTP/2 by ALPN works; plaintext HTTP on the TLS
#      port gets no HTTP answer;
#   3. RequireAndVerifyClientCert: curl without a client certificate fails
#      the handshake, with a certificate of the CA gets 200;
#   4. a certificate replaced on disk is what the next connection sees,
#      without a restart;
#   5. a password and a header changed in the web config file are in force
#      without a restart, and a broken file then keeps the working config;
#   6. --check-config says TLS and authentication are on; a web config with
#      min_version TLS10 exits 2 with one line naming the key;
#   7. --web.systemd-socket serves on a socket passed by
#      systemd-socket-activate (LISTEN_FDS), and exits 2 with a reason
#      without one.
# Certificates come from openssl. Every wait is bounded.
# Usage: tests/ops/web_tls.sh [path/to/ssd_exporter] (default target/debug).
# Prints PASS/FAIL lines and "N passed, N failed"; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/ops/lib.sh
bin=$(realpath "${1:-target/debug/ssd_exporter}")
[ -x "$bin" ] || { echo "no binary at $bin (cargo build)"; exit 1; }

need=()
command -v promtool >/dev/null || need+=(prometheus)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
command -v systemd-socket-activate >/dev/null || need+=(systemd)
install_missing "${need[@]}"

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# ---- a CA, a server certificate for 127.0.0.1, a client certificate
ossl() { openssl "$@" >/dev/null 2>&1; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj "/CN=ssd_exporter test CA" -keyout "$tmp/ca.key" -out "$tmp/ca.crt"
leaf() { # name cn san
  ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
    -keyout "$tmp/$1.key" -out "$tmp/$1.csr"
  printf 'subjectAltName=%s\n' "$3" >"$tmp/$1.ext"
  ossl x509 -req -in "$tmp/$1.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" \
    -CAcreateserial -days 2 -extfile "$tmp/$1.ext" -out "$tmp/$1.crt"
}
leaf server 127.0.0.1 "IP:127.0.0.1,DNS:localhost"
leaf server2 127.0.0.1 "IP:127.0.0.1,DNS:localhost"
leaf client prometheus "DNS:prometheus"

# ---- 1. promtool on the shipped example
# Without basic_auth_excluded_paths, an ssd_exporter extension promtool
# does not know (the example says so).
grep -v '^basic_auth_excluded_paths:' examples/web-config.yml >"$tmp/example.yml"
cp "$tmp/server.crt" "$tmp/ssd_exporter.crt"
cp "$tmp/server.key" "$tmp/ssd_exporter.key"
check "promtool check web-config examples/web-config.yml" \
  promtool check web-config "$tmp/example.yml"

# The example's hash is of "change-me".
hash=$(sed -n 's/^  prometheus: //p' examples/web-config.yml)
cat >"$tmp/web.yml" <<EOF
tls_server_config:
  cert_file: live.crt
  key_file: live.key
http_server_config:
  headers:
    X-Frame-Options: deny
basic_auth_users:
  prometheus: $hash
EOF
cp "$tmp/server.crt" "$tmp/live.crt"
cp "$tmp/server.key" "$tmp/live.key"
check "promtool check web-config accepts the test's web config" \
  promtool check web-config "$tmp/web.yml"

start() { # port args...
  local port=$1; shift
  "$bin" --demo --probe.disable --web.listen-address="127.0.0.1:$port" "$@" \
    >>"$tmp/exporter.log" 2>&1 &
  pids+=($!)
}
wait_tls() { # port [curl args]
  local port=$1; shift
  for _ in $(seq 100); do
    curl -s -o /dev/null --max-time 2 --cacert "$tmp/ca.crt" "$@" \
      "https://127.0.0.1:$port/healthz" && return 0
    sleep 0.1
  done
  return 1
}
status() { # url [curl args] -> HTTP status, 000 on failure
  local url=$1; shift
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$tmp/ca.crt" "$@" "$url" || true
}

# ---- 2. TLS + basic auth
port=$(free_port)
start "$port" --web.config.file="$tmp/web.yml"
url="https://127.0.0.1:$port/metrics"
if wait_tls "$port" -u prometheus:change-me; then
  check "no credentials: 401" test "$(status "$url")" = 401
  check "wrong password: 401" test "$(status "$url" -u prometheus:wrong)" = 401
  check "right password: 200" test "$(status "$url" -u prometheus:change-me)" = 200
  headers=$(curl -s -D - -o /dev/null --max-time 5 --cacert "$tmp/ca.crt" "$url")
  check "401 carries WWW-Authenticate: Basic" grep -qi '^www-authenticate: basic' <<<"$headers"
  check "security header X-Frame-Options sent" grep -qi '^x-frame-options: deny' <<<"$headers"
  body=$(curl -s --max-time 5 -u prometheus:change-me --cacert "$tmp/ca.crt" "$url")
  check "metrics over TLS include process_open_fds" grep -q '^process_open_fds ' <<<"$body"
  h2=$(curl -s -o /dev/null --max-time 5 --http2 -w '%{http_version} %{http_code}' \
    -u prometheus:change-me --cacert "$tmp/ca.crt" "$url" || true)
  check "HTTP/2 over TLS by ALPN: 200 (got $h2)" test "$h2" = "2 200"
  plain=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics" || true)
  check "plaintext on the TLS port gets no HTTP answer (got ${plain:-nothing})" test "${plain:-000}" = 000

  # ---- 4. rotation: the next connection sees the new certificate
  cp "$tmp/server2.key" "$tmp/live.key.new" && cp "$tmp/server2.crt" "$tmp/live.crt.new"
  mv "$tmp/live.key.new" "$tmp/live.key" && mv "$tmp/live.crt.new" "$tmp/live.crt"
  want=$(openssl x509 -in "$tmp/server2.crt" -noout -serial)
  rotated=no
  for _ in $(seq 100); do
    got=$(openssl s_client -connect "127.0.0.1:$port" -CAfile "$tmp/ca.crt" </dev/null 2>/dev/null |
      openssl x509 -noout -serial 2>/dev/null || true)
    if [ "$got" = "$want" ]; then rotated=yes; break; fi
    sleep 0.1
  done
  check "a certificate replaced on disk is served without restart" test "$rotated" = yes
  check "still 200 after the rotation" test "$(status "$url" -u prometheus:change-me)" = 200

  # ---- 5. the web config file itself changes: new password and header,
  # no restart; a broken file afterwards keeps the working config.
  # The hash is bcrypt (cost 10) of "rotated-pw", made with the bcrypt crate.
  sed -e 's|^  prometheus: .*|  prometheus: $2b$10$rfNhMuFUQ5SvYDW/6P/XGeT/AhyAd/pcy8K7OQ09FMIkg9SGlz/Wu|' \
    -e 's|X-Frame-Options: deny|X-Frame-Options: sameorigin|' "$tmp/web.yml" >"$tmp/web.yml.new"
  mv "$tmp/web.yml.new" "$tmp/web.yml"
  changed=no
  for _ in $(seq 100); do
    if [ "$(status "$url" -u prometheus:rotated-pw)" = 200 ]; then changed=yes; break; fi
    sleep 0.1
  done
  check "a password changed in the web config file is accepted without restart" test "$changed" = yes
  check "the old password is refused after the change" \
    test "$(status "$url" -u prometheus:change-me)" = 401
  headers=$(curl -s -D - -o /dev/null --max-time 5 --cacert "$tmp/ca.crt" -u prometheus:rotated-pw "$url")
  check "a header changed in the web config file is sent" \
    grep -qi '^x-frame-options: sameorigin' <<<"$headers"
  cp "$tmp/web.yml" "$tmp/web.yml.good"
  echo "basic_auth_users: [" >"$tmp/web.yml.new" && mv "$tmp/web.yml.new" "$tmp/web.yml"
  logged=no
  for _ in $(seq 100); do
    if grep -q "keeping the previous one" "$tmp/exporter.log"; then logged=yes; break; fi
    sleep 0.1
  done
  check "a broken web config file is logged and refused" test "$logged" = yes
  check "the working config stays after a broken file" \
    test "$(status "$url" -u prometheus:rotated-pw)" = 200
  mv "$tmp/web.yml.good" "$tmp/web.yml"
else
  fail "TLS exporter did not come up: $(tail -3 "$tmp/exporter.log")"
fi

# ---- 3. mutual TLS
cat >"$tmp/mtls.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
EOF
port=$(free_port)
start "$port" --web.config.file="$tmp/mtls.yml"
client=(--cert "$tmp/client.crt" --key "$tmp/client.key")
if wait_tls "$port" "${client[@]}"; then
  check "mTLS: without a client certificate the request fails" \
    test "$(status "https://127.0.0.1:$port/metrics")" = 000
  check "mTLS: with a CA-signed client certificate 200" \
    test "$(status "https://127.0.0.1:$port/metrics" "${client[@]}")" = 200
else
  fail "mTLS exporter did not come up: $(tail -3 "$tmp/exporter.log")"
fi

# ---- 5. --check-config
out=$("$bin" --web.config.file="$tmp/web.yml" --check-config 2>&1)
check "--check-config says TLS and authentication are on ($out)" \
  grep -q 'tls on; authentication basic (1 users)' <<<"$out"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS10\n' >"$tmp/old.yml"
set +e
err=$("$bin" --web.config.file="$tmp/old.yml" --check-config 2>&1)
code=$?
set -e
check "min_version TLS10: exit 2 ($code)" test "$code" = 2
check "min_version TLS10: one line naming the key ($err)" \
  sh -c 'test "$(printf "%s\n" "$1" | wc -l)" = 1 && printf "%s" "$1" | grep -q "tls_server_config.min_version"' sh "$err"

# ---- 6. socket activation
port=$(free_port)
systemd-socket-activate -l "127.0.0.1:$port" "$bin" --demo --probe.disable --web.systemd-socket \
  >>"$tmp/exporter.log" 2>&1 &
pids+=($!)
ok=no
for _ in $(seq 100); do
  if curl -s --max-time 2 "http://127.0.0.1:$port/healthz" | grep -q ok; then ok=yes; break; fi
  sleep 0.1
done
check "--web.systemd-socket serves on the socket systemd-socket-activate passed" test "$ok" = yes
set +e
err=$(timeout 10 "$bin" --demo --probe.disable --web.systemd-socket 2>&1)
code=$?
set -e
check "--web.systemd-socket without a socket exits 2 with a reason (exit $code)" \
  sh -c 'test "$1" = 2 && printf "%s" "$2" | grep -q "LISTEN_PID"' sh "$code" "$err"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
