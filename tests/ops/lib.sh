# What the shell checks in tests/ops share; sourced, never run:
#   . tests/ops/lib.sh
# The one-off install of missing Debian packages, and the PASS/FAIL/SKIP
# tally: each script ends with `summary NAME`, which prints
# "NAME: N passed, N failed, N skipped" (the line scripts/test-all.sh reads).

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
skipped=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# A check that could not run here: counted and printed, never a pass.
skip() { echo "SKIP: $*"; skipped=$((skipped + 1)); }
# summary NAME: the closing line; the exit status is 1 if anything failed.
summary() { echo "$1: $passed passed, $failed failed, $skipped skipped"; [ "$failed" -eq 0 ]; }
# check DESCRIPTION COMMAND...: PASS if the command succeeds, else FAIL.
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
