#!/usr/bin/env bash
# Runs a test command (`swift test …`) with a time limit. Swift Testing prints `◇ Test NAME started.` and
# `✔/✘ Test NAME passed/failed …` for every test; when the limit passes, this names the tests that started and never
# finished (the hang), then ends the run (exit 124). The command's output is passed through as it comes.
#
# Usage: scripts/swift-test-watchdog.sh SECONDS COMMAND [ARGUMENTS...]
#   e.g. scripts/swift-test-watchdog.sh 1200 swift test --skip-build --filter HealthStoreTests
set -uo pipefail
limit=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# `timeout` runs the command in a process group of its own and signals the whole group: the test runner's child
# (the test binary) ends with it.
timeout --kill-after=15 "$limit" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
  echo "swift-test-watchdog: \`$*\` did not finish within $limit s; started and never finished:" >&2
  python3 - "$log" >&2 <<'PY'
import re, sys
started, ended = [], set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    match = re.search(r"◇ Test (?:case passing .* to )?(.+?) started\.", line)
    if match:
        started.append(match.group(1))
        continue
    match = re.search(r"[✔✘] Test (.+?)(?: with \d+ test cases?)? (?:passed|failed|recorded|skipped)", line)
    if match:
        ended.add(match.group(1))
hung = [name for name in dict.fromkeys(started) if name not in ended]
print("\n".join("  " + name for name in hung) or "  (none: the hang is outside a test, e.g. the runner's exit)")
PY
  exit 124
fi
exit "$status"
