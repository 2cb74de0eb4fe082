#!/usr/bin/env bash
# API property tests: schemathesis (PyPI) against /api/v1/openapi.json of a running `healthbridge serve` on demo
# data, authenticated as a paired client. Fails on any 5xx, any answer that does not match the documented schema
# (status, content type, headers, body — every error's `code` is an enum of the one error vocabulary there).
#
# Usage: IntegrationTests/schemathesis.sh [MAX_EXAMPLES per operation (default 100)]
#   SCHEMATHESIS_BINARY   a healthbridge binary (default: scripts/lib.sh's, $HEALTHBRIDGE_BINARY or built once)
. "$(dirname "$0")/../scripts/lib.sh"
# One worker: with two, hypothesis parses lambda sources on two threads at once, and CPython 3.11 (this machine's
# Python) then fails now and then with "SystemError: AST constructor recursion depth mismatch" (cpython#106905),
# a failure of the tool, not of the API.
examples=${1:-100}
hb_venv .venv-st schemathesis
binary=$(readlink -f "${SCHEMATHESIS_BINARY:-$(hb_binary)}")
home=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$home"
}
trap cleanup EXIT
export HEALTHBRIDGE_LOG_LEVEL=warning
"$binary" demo --days 30 --home "$home" --json >/dev/null
"$binary" sharing types --home "$home" --enable stepCount,heartRate,sleepAnalysis,activeEnergyBurned >/dev/null
ingest_token=$("$binary" ingest-token create schemathesis --home "$home" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
port=$((19000 + $$ % 500))
"$binary" serve --home "$home" --port $((port + 1)) --api-port "$port" --api-bind 127.0.0.1 --rate-limit 0 \
  > "$home/serve.log" 2>&1 &
server_pid=$!
token=$("$venv/bin/python" - "$binary" "$home" <<'PY'
import sys
sys.path.insert(0, "IntegrationTests")
from hbapi import PinnedClient, Server
import json, os, subprocess, time
binary, home = sys.argv[1], sys.argv[2]
path = os.path.join(home, "export-server.json")
for _ in range(600):
    if os.path.exists(path):
        break
    time.sleep(0.2)
info = json.load(open(path))
code = json.loads(subprocess.run([binary, "pair-code", "--home", home, "--json"], check=True,
                                 capture_output=True, text=True).stdout)["code"]
client = PinnedClient("127.0.0.1", info["port"], info["fingerprint"])
print(client.pair(code, "schemathesis")["token"])
PY
)
"$venv/bin/schemathesis" run "https://127.0.0.1:$port/api/v1/openapi.json" \
  -H "Authorization: Bearer $token" --tls-verify false \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
  --max-examples "$examples" --workers 1 --generation-deterministic --no-color \
  --exclude-path /api/v1/ingest/health-auto-export --exclude-path /api/v1/ingest/health-connect
# The receivers (Health Auto Export, Health Connect) take an ingest token, not a paired client's (the document is read
# with the latter).
"$venv/bin/python" - "$token" "$port" "$home/openapi.json" <<'PY'
import ssl, sys, urllib.request
token, port, out = sys.argv[1:]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
request = urllib.request.Request(f"https://127.0.0.1:{port}/api/v1/openapi.json", headers={"Authorization": f"Bearer {token}"})
open(out, "wb").write(urllib.request.urlopen(request, context=context).read())
PY
"$venv/bin/schemathesis" run "$home/openapi.json" --url "https://127.0.0.1:$port" \
  -H "Authorization: Bearer $ingest_token" --tls-verify false --include-path /api/v1/ingest/health-auto-export \
  --include-path /api/v1/ingest/health-connect \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
  --max-examples "$examples" --workers 1 --generation-deterministic --no-color
