#!/usr/bin/env bash
# Loads the paired HTTPS API on a store holding a one-year export (issue 24): TLS with keep-alive on loopback, load
# from wrk in a separate process, the durable audit on (every answer with data waits for its audit entry's commit).
#
#   scripts/api-load-bench.sh                          # release build in .build-release, the typical year imported
#   HB=/tmp/before/.build/release/healthbridge scripts/api-load-bench.sh   # another build, e.g. an older commit's
#   SECONDS_PER_RUN=5 CONNECTIONS="16 64" scripts/api-load-bench.sh
#
# Cases: GET /api/v1/status, GET /api/v1/health/data (a day of DATA_TYPE, default stepCount), POST /api/v1/log/water; each at 16
# connections (req/s, p50, p99), then p99 at every count of $CONNECTIONS. Targets (issue 24, 16 connections):
# status ≥ 5,000 req/s, data ≥ 3,000 req/s, writes ≥ 2,000 req/s. A single address may hold 64 connections
# (`maxConnectionsPerAddress`): at 256 connections from one address the rest are refused by policy, which wrk counts
# as socket errors. Everything stays on 127.0.0.1.
#
# ADDRESSES=N (root, iproute2) adds the same cases from N source addresses: N network namespaces, each with a veth
# into this one (10.231.K.2 → 10.231.K.1), the server listening on all of them, each count of $CONNECTIONS split
# evenly over N wrk processes run at once. req/s is their sum; p50 and p99 are the slowest process's (an upper
# bound: wrk reports percentiles, not its histogram). Everything stays on this machine's own namespaces.
#
#   ADDRESSES=8 scripts/api-load-bench.sh
. "$(dirname "$0")/lib.sh"

SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
CONNECTIONS=${CONNECTIONS:-"16 64 256"}
MCP_PORT=${MCP_PORT:-$(hb_free_port)}
API_PORT=${API_PORT:-$(hb_free_port)}
EXPORT=${EXPORT:-bench-out/typical-year.zip}
# The type of the data case: a day of step counts is about 150 samples (22 KB) on the typical year; heartRate is 500.
DATA_TYPE=${DATA_TYPE:-stepCount}

hb_need wrk wrk
hb_need curl curl

if [ ! -f "$EXPORT" ]; then
  echo "== generating $EXPORT (scripts/generate_corpus.py --profile typical-year)" >&2
  mkdir -p "$(dirname "$EXPORT")"
  python3 scripts/generate_corpus.py --profile typical-year --out "$EXPORT"
fi
HB=${HB:-$(SCRATCH=${SCRATCH:-.build-release} hb_release_binary)}
echo "binary: $HB" >&2
echo "load before: $(uptime)" >&2

ADDRESSES=${ADDRESSES:-1}
BIND=127.0.0.1
if [ "$ADDRESSES" -gt 1 ]; then
  [ "$(id -u)" = 0 ] || { echo "ADDRESSES=$ADDRESSES needs root (ip netns)" >&2; exit 1; }
  hb_need ip iproute2
  BIND=0.0.0.0
fi

hb_server_workspace hb-api-load
remove_namespaces() {
  for k in $(seq 1 "$ADDRESSES"); do ip netns del "hbld$k" 2>/dev/null || true; ip link del "hbld$k-a" 2>/dev/null || true; done
}
if [ "$ADDRESSES" -gt 1 ]; then
  trap 'remove_namespaces; hb_server_cleanup' EXIT
  remove_namespaces
  for k in $(seq 1 "$ADDRESSES"); do
    ip netns add "hbld$k"
    ip -n "hbld$k" link set lo up
    ip link add "hbld$k-a" type veth peer name "hbld$k-b"
    ip link set "hbld$k-b" netns "hbld$k"
    ip addr add "10.231.$k.1/24" dev "hbld$k-a"
    ip link set "hbld$k-a" up
    ip -n "hbld$k" addr add "10.231.$k.2/24" dev "hbld$k-b"
    ip -n "hbld$k" link set "hbld$k-b" up
  done
fi

echo "== importing $EXPORT" >&2
/usr/bin/time -f "import: %e s, peak RSS %M kB" "$HB" import "$EXPORT" --home "$SERVER_HOME" >/dev/null
"$HB" grants 'device:*' --allow-read "heartRate,stepCount,$DATA_TYPE" --allow-write dietaryWater --home "$SERVER_HOME" >/dev/null

# The day before the last day of $DATA_TYPE in the store.
DAY=$("$HB" types --json --home "$SERVER_HOME" | DATA_TYPE="$DATA_TYPE" python3 -c '
import datetime, json, os, sys
doc = json.load(sys.stdin)
types = doc["types"] if isinstance(doc, dict) else doc
last = next(t["last"] for t in types if t["type"] == os.environ["DATA_TYPE"])
day = datetime.date.fromisoformat(last[:10]) - datetime.timedelta(days=1)
print(day.isoformat())')
SAMPLES_IN_STORE=$("$HB" types --json --home "$SERVER_HOME" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
types = doc["types"] if isinstance(doc, dict) else doc
print(sum(t.get("count") or 0 for t in types))')

echo "== serve on loopback (rate limit off, no advertisement)" >&2
hb_start_server --port "$MCP_PORT" --bind 127.0.0.1 \
  --api-port "$API_PORT" --api-bind "$BIND" --rate-limit 0 --no-advertise

"$HB" pair --home "$CLIENT_HOME" --qr "$("$HB" pair-code --home "$SERVER_HOME" --json)" --name bench >/dev/null
TOKEN=$(sed -n 's/.*"token" : "\([^"]*\)".*/\1/p' "$CLIENT_HOME/client/paired-server.json")
export HB_TOKEN="$TOKEN"
cat >"$WORK/get.lua" <<'LUA'
wrk.headers["Authorization"] = "Bearer " .. os.getenv("HB_TOKEN")
LUA
cat >"$WORK/water.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("HB_TOKEN")
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"value": 250, "unit": "mL"}'
LUA

BASE="https://127.0.0.1:$API_PORT/api/v1"
DATA_URL="$BASE/health/data?types=$DATA_TYPE&start=${DAY}T00:00:00Z&end=${DAY}T23:59:59Z&limit=1000"
SAMPLES=$(curl -sk -H "Authorization: Bearer $TOKEN" "$DATA_URL" | grep -o '"dateISO"' | wc -l)
BYTES=$(curl -sk -H "Authorization: Bearer $TOKEN" "$DATA_URL" | wc -c)
WATER=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"value": 250, "unit": "mL"}' "$BASE/log/water")
[ "$WATER" = 200 ] || { echo "POST /log/water answered $WATER" >&2; exit 1; }
echo "store: $SAMPLES_IN_STORE objects; health/data of $DAY: $SAMPLES samples, $BYTES bytes" >&2

echo "== warm-up" >&2
wrk -t1 -c8 -d3s -s "$WORK/get.lua" "$BASE/status" >/dev/null

# One wrk run: CASE CONNECTIONS SCRIPT URL; prints a row and keeps wrk's output.
run() {
  local name=$1 connections=$2 script=$3 url=$4 threads=1
  local out="$WORK/wrk-$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_')-$connections.txt"
  [ "$connections" -ge 64 ] && threads=2
  wrk -t"$threads" -c"$connections" -d"${SECONDS_PER_RUN}s" --timeout 10s --latency -s "$script" "$url" >"$out" 2>&1 || true
  local rps p50 p99 errors non2xx
  rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$out")
  p50=$(awk '$1 == "50%" {print $2}' "$out")
  p99=$(awk '$1 == "99%" {print $2}' "$out")
  errors=$(awk '/Socket errors/ {sub(/^ *Socket errors: */, ""); print}' "$out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$out")
  printf '| %-28s | %5s | %8s | %8s | %8s | %s |\n' "$name" "$connections" "${rps:-?}" "${p50:-?}" "${p99:-?}" \
    "${non2xx:-0} non-2xx${errors:+; $errors}"
}

# The same case from $ADDRESSES source addresses at once: CASE CONNECTIONS SCRIPT PATH (after /api/v1).
run_spread() {
  local name=$1 connections=$2 script=$3 path=$4 per k
  per=$(( (connections + ADDRESSES - 1) / ADDRESSES ))
  local stem="$WORK/spread-$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_')-$connections"
  local pids=()
  for k in $(seq 1 "$ADDRESSES"); do
    ip netns exec "hbld$k" wrk -t1 -c"$per" -d"${SECONDS_PER_RUN}s" --timeout 10s --latency -s "$script" \
      "https://10.231.$k.1:$API_PORT/api/v1$path" >"$stem-$k.txt" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"   # not the server, a background job too
  python3 - "$name" "$connections" "$ADDRESSES" "$stem" <<'PY'
import re, sys
name, connections, addresses, stem = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def ms(text):
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
rps, p50, p99, non2xx, errors = 0.0, 0.0, 0.0, 0, []
for k in range(1, addresses + 1):
    out = open("%s-%d.txt" % (stem, k)).read()
    rps += float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = max(p50, ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)))
    p99 = max(p99, ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)))
    found = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    non2xx += int(found.group(1)) if found else 0
    found = re.search(r"Socket errors: (.*)", out)
    if found: errors.append(found.group(1).strip())
print("| %-28s | %5d | %8.0f | %7.2fms | %7.2fms | %d non-2xx%s |" % (
    name + " (%d addresses)" % addresses, connections, rps, p50, p99, non2xx, "; " + " / ".join(errors) if errors else ""))
PY
}

echo
echo "## paired HTTPS API on a one-year store ($SAMPLES_IN_STORE objects), TLS keep-alive, ${SECONDS_PER_RUN} s per run"
echo
echo "| case                         | conns |    req/s |      p50 |      p99 | errors |"
echo "|---|---|---|---|---|---|"
for connections in $CONNECTIONS; do
  run "GET /api/v1/status" "$connections" "$WORK/get.lua" "$BASE/status"
  run "GET /api/v1/health/data" "$connections" "$WORK/get.lua" "$DATA_URL"
  run "POST /api/v1/log/water" "$connections" "$WORK/water.lua" "$BASE/log/water"
done
if [ "$ADDRESSES" -gt 1 ]; then
  DATA_PATH="${DATA_URL#"$BASE"}"
  for connections in $CONNECTIONS; do
    run_spread "GET /api/v1/status" "$connections" "$WORK/get.lua" "/status"
    run_spread "GET /api/v1/health/data" "$connections" "$WORK/get.lua" "$DATA_PATH"
    run_spread "POST /api/v1/log/water" "$connections" "$WORK/water.lua" "/log/water"
  done
fi
echo
echo "server RSS: $(awk '/VmRSS/ {print $2 " kB"}' "/proc/$SERVER_PID/status"); load after: $(uptime | sed 's/.*load average: //')"
echo "audit entries: $("$HB" audit --home "$SERVER_HOME" --limit 1 --json | grep -o '"id" : [0-9]*' | grep -o '[0-9]*$')"
