#!/usr/bin/env bash
# Check the alerting and recording rules: promtool's syntax check and unit
# tests, plus what promtool cannot know about this project:
#   - every rule uses only metrics listed in docs/metrics.md,
#   - every problem a rule names (to leave out a muted one) is documented,
#   - every alert's runbook_url points at its own heading in docs/runbooks.md,
#   - every alert has a test case where it fires and one where it does not,
#   - every recording rule is queried by a test.
# Runs from any directory. Needs promtool (PROMTOOL=... to choose one) and
# python3; the Python checks run in the tools' virtual environment
# (scripts/tools-venv.sh makes it once). Exit status 0 only if every check
# passed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
promtool="${PROMTOOL:-promtool}"

if ! command -v "$promtool" >/dev/null 2>&1; then
    echo "FAIL: promtool not found (install Prometheus' promtool, e.g. Debian's" \
        "prometheus package, or set PROMTOOL=/path/to/promtool)" >&2
    exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL: python3 not found (needed for the runbook and test coverage checks)" >&2
    exit 2
fi
python="$("$root/scripts/tools-venv.sh")/bin/python"

cd "$root"
rule_files=(alerts/ssd_exporter.rules.yml alerts/fleet.rules.yml)
test_files=(alerts/tests/*.yml)

passed=0
failed=()

# run NAME CMD...: run one check, show its output only when it fails.
run() {
    local name="$1"
    shift
    local out
    if out="$("$@" 2>&1)"; then
        echo "PASS  $name"
        passed=$((passed + 1))
    else
        echo "FAIL  $name"
        printf '%s\n' "$out" | sed 's/^/      /'
        failed+=("$name")
    fi
}

for f in "${rule_files[@]}"; do
    run "promtool check rules $f" "$promtool" check rules "$f"
done
run "promtool test rules alerts/tests/*.yml (${#test_files[@]} files)" \
    "$promtool" test rules "${test_files[@]}"
run "rules use only metrics in docs/metrics.md" \
    "$python" -m tools.alerts_lint metrics "${rule_files[@]}"
run "rules name only problems in docs/metrics.md" \
    "$python" -m tools.alerts_lint problems "${rule_files[@]}"
for f in "${rule_files[@]}"; do
    run "every runbook_url anchor in $f is the alert's heading in docs/runbooks.md" \
        "$python" -m tools.alerts_lint runbooks "$f"
    run "every alert in $f has a firing and a non-firing test case" \
        "$python" -m tools.alerts_lint alert-tests "$f" "${test_files[@]}"
done
run "every recording rule is queried by a test" \
    "$python" -m tools.alerts_lint record-tests alerts/fleet.rules.yml "${test_files[@]}"

echo
if ((${#failed[@]} == 0)); then
    echo "PASS: all $passed checks passed"
else
    echo "FAIL: ${#failed[@]} of $((passed + ${#failed[@]})) checks failed:"
    printf '  - %s\n' "${failed[@]}"
fi
echo "alerts: $passed passed, ${#failed[@]} failed"
((${#failed[@]} == 0))
