#!/usr/bin/env bash
# The DietSync example as the README shows it, in a temporary data directory: serve on loopback, pair, authorize (the
# owner approves), log a meal, water and a weight, delete a meal, today's calories in vs TDEE, and a weight written
# with `healthbridge log weight` picked up by `diet-sync watch`. Exits non-zero when a step does not show what it should.
. "$(dirname "$0")/../scripts/lib.sh"
hb="$(hb_binary)"
swift build --product diet-sync >/dev/null
export PATH="$(dirname "$hb"):$(swift build --show-bin-path):$PATH" HEALTHBRIDGE_LOG_LEVEL=critical
WORK="$(mktemp -d)"
export HEALTHBRIDGE_HOME="$WORK/healthbridge" DIETSYNC_HOME="$WORK/diet"
PORT="$(hb_free_port)"
healthbridge serve --demo --mcp-port 0 --api-bind 127.0.0.1 --api-port "$PORT" --no-advertise >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do grep -q "$PORT" "$WORK/serve.log" 2>/dev/null && break; sleep 0.2; done
sleep 1

expect() { grep -q -- "$1" <<<"$2" || { echo "FAILED: expected '$1' in:"; echo "$2"; exit 1; }; echo "$2"; }

# The owner issues the code for the app: only a client with such a code acts as app:org.example.dietsync.
expect "paired with 127.0.0.1" "$(diet-sync pair --qr "$(healthbridge pair-code --json --app org.example.dietsync)")"
expect "acts as" "$(healthbridge clients list)"
expect "app:org.example.dietsync" "$(healthbridge clients list)"
expect "is pending" "$(diet-sync authorize)"
healthbridge access approve "$(healthbridge access list --status pending --json \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"][0]["id"])')"
expect "sharingAuthorized" "$(diet-sync authorize)"
expect "synced with HealthBridge" "$(diet-sync meal --id porridge --name Porridge --calories 320 --protein 11 --carbs 54 --fat 6)"
expect "synced with HealthBridge" "$(diet-sync meal --id cake --name Cake --calories 450)"
expect "synced with HealthBridge" "$(diet-sync water 250)"
expect "synced with HealthBridge" "$(diet-sync weight 72.4)"
expect "synced with HealthBridge" "$(diet-sync delete-meal cake)"
expect "calories in: 320 kcal" "$(diet-sync today)"
(sleep 2; healthbridge log weight 71.8 >/dev/null) &
expect "new weight: 71.8 kg" "$(diet-sync watch --seconds 10)"
expect "weight: 71.8 kg" "$(diet-sync today)"
echo "DietSync end to end: ok"
