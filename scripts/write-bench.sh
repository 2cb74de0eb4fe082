#!/usr/bin/env bash
# Benchmarks writes: through HealthService (WriteBench: p50/p99, long-poll delivery) and through the HTTPS API with
# TLS keep-alive on loopback, load from a separate process (wrk POSTing /api/v1/log/water as a paired device with a
# write grant).
#
#   scripts/write-bench.sh                 # release build, 10,000 service writes, 15 s of HTTPS writes (16 connections)
#   WRITE_SECONDS=30 CONNECTIONS=8 scripts/write-bench.sh
#
# Targets (issue): ≥ 2,000 writes/s through HTTPS on a 2-core machine with the WAL store; change-feed delivery to a
# long-poll waiter ≤ 50 ms p99 after the commit. Everything stays on 127.0.0.1.
. "$(dirname "$0")/lib.sh"

SCRATCH=${SCRATCH:-.build-export}
WRITE_SECONDS=${WRITE_SECONDS:-15}
CONNECTIONS=${CONNECTIONS:-16}
MCP_PORT=${MCP_PORT:-18481}
API_PORT=${API_PORT:-18444}

hb_need wrk wrk

HB="$(SCRATCH="$SCRATCH" hb_release_binary)"
WRITEBENCH="$(hb_benchmark WriteBench)"

echo "## HealthService (WriteBench)"
"$WRITEBENCH" --writes "${WRITES:-10000}" --polls 200

hb_server_workspace hb-write-bench

hb_start_server --mcp-port "$MCP_PORT" --mcp-bind 127.0.0.1 \
  --api-port "$API_PORT" --api-bind 127.0.0.1 --rate-limit 0 --no-advertise
"$HB" pair --home "$CLIENT_HOME" --qr "$("$HB" pair-code --home "$SERVER_HOME" --json)" --name bench >/dev/null
TOKEN=$(sed -n 's/.*"token" : "\([^"]*\)".*/\1/p' "$CLIENT_HOME/client/paired-server.json")
CLIENT_ID=$(sed -n 's/.*"clientId" : "\([^"]*\)".*/\1/p' "$CLIENT_HOME/client/paired-server.json")
"$HB" grants --home "$SERVER_HOME" "device:$CLIENT_ID" --allow-write dietaryWater >/dev/null
export HB_TOKEN="$TOKEN"
cat >"$WORK/write.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("HB_TOKEN")
wrk.headers["Content-Type"] = "application/json"
counter = 0
request = function()
  counter = counter + 1
  -- A distinct instant per request (one a second back from 2026-01-01), so that every POST is a new sample.
  local t = 1767225600 - counter * 1000 - math.random(0, 999)
  local body = string.format('{"value":250,"at":"%s"}', os.date("!%Y-%m-%dT%H:%M:%SZ", t))
  return wrk.format(nil, nil, nil, body)
end
LUA

BASE="https://127.0.0.1:$API_PORT/api/v1"
echo
echo "## POST /api/v1/log/water, TLS keep-alive, wrk -t1 -c$CONNECTIONS -d${WRITE_SECONDS}s"
wrk -t1 -c"$CONNECTIONS" -d"${WRITE_SECONDS}s" --latency -s "$WORK/write.lua" "$BASE/log/water" | tee "$WORK/write.txt"
errors=$(grep -E "Non-2xx|Socket errors" "$WORK/write.txt" || true)
stored=$("$HB" types --home "$SERVER_HOME" --json | tr -d ' \n' | grep -o '"count":[0-9]*,"display_name":"Water"' | grep -o '[0-9]*' | head -1)
echo
echo "## summary"
echo "HTTPS writes/s: $(awk '/Requests\/sec/ {print $2}' "$WORK/write.txt"), errors: ${errors:-none}, water samples stored: ${stored:-?}"
