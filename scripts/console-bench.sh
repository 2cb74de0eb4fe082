#!/usr/bin/env bash
# Data page benchmark (issue 14): a year of demo data, `healthbridge serve` on loopback, the Data page for the whole
# year fetched N times; prints the server's render time (its Server-Timing header) and the time curl saw.
# Usage: scripts/console-bench.sh [path/to/healthbridge] [requests]   (target: median ≤ 200 ms server time)
. "$(dirname "$0")/lib.sh"
binary="${1:-$(hb_binary)}"
runs="${2:-20}"
home="$(mktemp -d)"
port="$(hb_free_port)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$home"' EXIT
"$binary" demo --days 365 --home "$home" --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("store: %s samples, %s workouts over 365 days" % (r.get("samples"), r.get("workouts")))'
HEALTHBRIDGE_LOG_LEVEL=warning "$binary" serve --home "$home" --mcp-port "$port" --no-api >"$home/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "HealthBridge console:" "$home/serve.log" && break; sleep 0.1; done
login="$(grep -o 'http://[^ ]*/login?key=[^ ]*' "$home/serve.log" | head -1)"
origin="${login%%/login*}"   # the console's own loopback address (not 127.0.0.1), on the MCP port's number
curl -s -o /dev/null -c "$home/cookies" "$login"
for i in $(seq 1 "$runs"); do
  curl -s -o /dev/null -b "$home/cookies" -D - -w 'total=%{time_total}\n' "$origin/data?days=365" \
    | tr -d '\r' | grep -E '^(Server-Timing|server-timing|total=)' | sed 's/.*dur=//; s/total=/total /'
done | python3 -c '
import statistics, sys
render, total = [], []
for line in sys.stdin:
    if line.startswith("total "): total.append(float(line.split()[1]) * 1000)
    else: render.append(float(line))
render, total = render[1:], total[1:]   # the first request warms the caches
q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]
print("Data page, 1 year (%d requests after one warm-up):" % len(render))
print("  server render  median %.1f ms  p95 %.1f ms  min %.1f ms  max %.1f ms" % (statistics.median(render), q(render, .95), min(render), max(render)))
print("  curl total     median %.1f ms  p95 %.1f ms" % (statistics.median(total), q(total, .95)))
print("  target ≤ 200 ms server time: %s" % ("met" if statistics.median(render) <= 200 else "NOT met"))
'
