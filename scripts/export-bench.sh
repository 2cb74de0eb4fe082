#!/usr/bin/env bash
# Benchmarks the local-network export API over TLS with keep-alive on loopback, load from a separate process (wrk).
#
#   scripts/export-bench.sh            # release build, then: status req/s, health/data latency, 50 × 60 s soak
#   SOAK_SECONDS=10 scripts/export-bench.sh
#
# Targets (issue): /api/v1/status ≥ 3,000 requests/s; health/data with 1,000 samples ≤ 20 ms median;
# 50 concurrent clients for 60 s with zero errors and flat memory. Everything stays on 127.0.0.1.
. "$(dirname "$0")/lib.sh"

SCRATCH=${SCRATCH:-.build-export}
STATUS_SECONDS=${STATUS_SECONDS:-15}
DATA_SECONDS=${DATA_SECONDS:-15}
SOAK_SECONDS=${SOAK_SECONDS:-60}
MCP_PORT=${MCP_PORT:-18480}
API_PORT=${API_PORT:-18443}

hb_need wrk wrk
hb_need curl curl

HB="$(SCRATCH="$SCRATCH" hb_release_binary)"

hb_server_workspace hb-export-bench

echo "== serve --demo on loopback (rate limit off, no advertisement)" >&2
hb_start_server --demo --port "$MCP_PORT" --bind 127.0.0.1 \
  --api-port "$API_PORT" --api-bind 127.0.0.1 --rate-limit 0 --no-advertise

"$HB" sharing types --home "$SERVER_HOME" --enable heartRate,stepCount >/dev/null
"$HB" pair --home "$CLIENT_HOME" --qr "$("$HB" pair-code --home "$SERVER_HOME" --json)" --name bench >/dev/null
TOKEN=$(sed -n 's/.*"token" : "\([^"]*\)".*/\1/p' "$CLIENT_HOME/client/paired-server.json")
export HB_TOKEN="$TOKEN"
cat >"$WORK/auth.lua" <<'LUA'
wrk.headers["Authorization"] = "Bearer " .. os.getenv("HB_TOKEN")
LUA

BASE="https://127.0.0.1:$API_PORT/api/v1"
START=$(date -u -d '-10 days' +%Y-%m-%dT%H:%M:%SZ)
END=$(date -u +%Y-%m-%dT%H:%M:%SZ)
DATA_URL="$BASE/health/data?types=heartRate&start=$START&end=$END&limit=1000"
SAMPLES=$(curl -sk -H "Authorization: Bearer $TOKEN" "$DATA_URL" | grep -o '"dateISO"' | wc -l)
echo "health/data answer: $SAMPLES samples, $(curl -sk -H "Authorization: Bearer $TOKEN" "$DATA_URL" | wc -c) bytes" >&2

rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$SERVER_PID/status"; }

echo "== warm-up" >&2
wrk -t1 -c10 -d3s -s "$WORK/auth.lua" "$BASE/status" >/dev/null

echo
echo "## /api/v1/status, TLS keep-alive, wrk -t1 -c32 -d${STATUS_SECONDS}s"
wrk -t1 -c32 -d"${STATUS_SECONDS}s" --latency -s "$WORK/auth.lua" "$BASE/status" | tee "$WORK/status.txt"

echo
echo "## /api/v1/health/data, $SAMPLES samples per answer, one connection: wrk -t1 -c1 -d${DATA_SECONDS}s"
wrk -t1 -c1 -d"${DATA_SECONDS}s" --latency -s "$WORK/auth.lua" "$DATA_URL" | tee "$WORK/data.txt"

echo
echo "## soak: 50 connections for ${SOAK_SECONDS}s on status and data, wrk -t1 -c50"
BEFORE=$(rss)
echo "server RSS before: $BEFORE"
wrk -t1 -c45 -d"${SOAK_SECONDS}s" -s "$WORK/auth.lua" "$BASE/status" >"$WORK/soak-status.txt" &
WRK1=$!
wrk -t1 -c5 -d"${SOAK_SECONDS}s" -s "$WORK/auth.lua" "$DATA_URL" >"$WORK/soak-data.txt" &
WRK2=$!
for i in $(seq 1 $((SOAK_SECONDS / 10))); do sleep 10; echo "server RSS at ${i}0 s: $(rss)"; done
wait "$WRK1" "$WRK2"
AFTER=$(rss)
echo "server RSS after: $AFTER"
cat "$WORK/soak-status.txt" "$WORK/soak-data.txt"

errors=$(cat "$WORK/soak-status.txt" "$WORK/soak-data.txt" | grep -E "Non-2xx|Socket errors" || true)
echo
echo "## summary"
echo "status requests/s: $(awk '/Requests\/sec/ {print $2}' "$WORK/status.txt")"
echo "health/data ($SAMPLES samples) median latency: $(awk '$1 == "50%" {print $2}' "$WORK/data.txt")"
echo "soak: $(awk '/requests in/ {s += $1} END {print s}' "$WORK/soak-status.txt" "$WORK/soak-data.txt") requests, errors: ${errors:-none}; RSS $BEFORE → $AFTER"
echo "audit entries written: $("$HB" audit --home "$SERVER_HOME" --limit 1 --json | grep -o '"id" : [0-9]*' | grep -o '[0-9]*$')"
