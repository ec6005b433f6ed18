# What the shell checks in tests/ops share; sourced, never run:
#   . tests/ops/lib.sh
# The one-off install of missing Debian packages, and the PASS/FAIL tally
# (each script prints its own "N passed, N failed" from $passed and $failed).

# install_missing [PACKAGE...]: installs the packages named, quietly; none
# named, nothing happens.
install_missing() {
  [ $# -gt 0 ] || return 0
  echo "== installing: $*"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
skip() { echo "SKIP: $*"; }
# check DESCRIPTION COMMAND...: PASS if the command succeeds, else FAIL.
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
