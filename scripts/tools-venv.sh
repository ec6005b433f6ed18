#!/usr/bin/env bash
# Prints the path of the virtual environment the Python tools (tools/) run
# in, after making it if needed: every package of tools/requirements.lock,
# installed with --require-hashes. It lives outside the checkout, under
# ${SSD_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-venv}/KEY,
# where KEY is a hash of the lock file and the Python version, so fresh
# clones (CI) and other checkouts with the same lock reuse it, and a changed
# lock gets a new one beside the old. Made under a lock (flock), marked
# complete only once pip succeeded; an incomplete one is made again.
#
#   venv=$(scripts/tools-venv.sh) && "$venv/bin/python" -m tools.grafana validate ...
#   export PATH="$(scripts/tools-venv.sh)/bin:$PATH"   # then python3 is the venv's
#
# Needs python3 with its venv module (Debian: python3-venv). Progress goes
# to stderr, the path alone to stdout.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lock=$repo/tools/requirements.lock
base=${SSD_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ssd_exporter-venv}
python=${PYTHON:-python3}
key=$({ cat "$lock"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)
venv=$base/$key

mkdir -p "$base"
exec 9>"$base/.lock"
flock 9
if [[ ! -f $venv/.complete ]]; then
    started=$SECONDS
    echo "tools venv: installing tools/requirements.lock into $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input \
        --require-hashes --only-binary=:all: -r "$lock" >&2
    touch "$venv/.complete"
    echo "tools venv: ready in $((SECONDS - started)) s" >&2
fi
echo "$venv"
