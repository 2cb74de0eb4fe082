#!/usr/bin/env python3
"""The soak run of scripts/soak.sh."""
import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hbapi import PinnedClient, Server  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--binary", required=True)
parser.add_argument("--home", required=True)
parser.add_argument("--seconds", type=int, default=300)
parser.add_argument("--clients", type=int, default=50)
parser.add_argument("--fixture", required=True)
args = parser.parse_args()

TYPES = ["stepCount", "heartRate", "activeEnergyBurned", "sleepAnalysis"]
if not os.path.exists(args.fixture):
    # No fixtures folder: a small export of our own, re-imported with --force.
    args.fixture = os.path.join(args.home, "soak-export.xml")
    rows = "".join('<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Soak" unit="count" '
                   'startDate="2024-05-01 10:%02d:00 +0200" endDate="2024-05-01 10:%02d:30 +0200" value="%d"/>\n'
                   % (m, m, 10 + m) for m in range(60))
    with open(args.fixture, "w") as handle:
        handle.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n'
                     '<ExportDate value="2024-05-02 08:00:00 +0200"/>\n' + rows + "</HealthData>\n")
MCP_PORT, API_PORT = 18180 + os.getpid() % 500, 18700 + os.getpid() % 500
env = dict(os.environ, HEALTHBRIDGE_LOG_LEVEL="warning")
subprocess.run([args.binary, "demo", "--days", "30", "--home", args.home, "--json"], check=True,
               capture_output=True, env=env)
subprocess.run([args.binary, "sharing", "types", "--home", args.home, "--enable", ",".join(TYPES)], check=True,
               capture_output=True, env=env)
server = Server(args.binary, args.home, ["--port", str(MCP_PORT), "--api-port", str(API_PORT),
                                         "--api-bind", "127.0.0.1", "--rate-limit", "0"])
host, port, fingerprint = "127.0.0.1", server.info["port"], server.info["fingerprint"]

lock = threading.Lock()
stats = {"requests": 0, "errors": 0, "mcp_calls": 0, "imports": 0, "import_errors": 0}
errors = []
read_ids = []
samples = []
stop = threading.Event()


def failed(what):
    with lock:
        stats["errors"] += 1
        if len(errors) < 20:
            errors.append(what)


def client_loop(index, token):
    client = PinnedClient(host, port, fingerprint, token=token)
    rng = random.Random(index)
    while not stop.is_set():
        kind = rng.random()
        days = rng.randint(1, 20)
        end = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - rng.randint(0, 5) * 86400))
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - (days + 5) * 86400))
        types = rng.sample(TYPES, rng.randint(1, 3))
        try:
            if kind < 0.15:
                status, headers, body = client.request("GET", "/api/v1/status")
            elif kind < 0.25:
                status, headers, body = client.request("GET", "/api/v1/health/types")
            elif kind < 0.65:
                status, headers, body = client.request(
                    "GET", "/api/v1/health/data?types=%s&start=%s&end=%s&limit=%d" % (",".join(types), start, end,
                                                                                     rng.randint(1, 500)))
            else:
                status, headers, body = client.request("POST", "/api/v1/health/data",
                                                       {"types": types, "start": start, "end": end, "limit": 200})
        except Exception as error:  # noqa: BLE001 - any failure is an error of the soak
            failed("client %d: %r" % (index, error))
            time.sleep(0.2)
            continue
        with lock:
            stats["requests"] += 1
        if status != 200:
            failed("client %d: HTTP %d %s" % (index, status, (body or {}).get("error")))
        elif "samples" in (body or {}):
            with lock:
                read_ids.append(headers.get("x-request-id"))
    client.close()


def mcp_loop():
    url = "http://127.0.0.1:%d/mcp" % MCP_PORT

    def post(message, session=None):
        request = urllib.request.Request(url, data=json.dumps(message).encode(), method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18", **({"Mcp-Session-Id": session} if session else {})})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
            return response.status, response.headers.get("Mcp-Session-Id"), json.loads(body) if body else None

    session = None
    calls = 0
    while not stop.is_set():
        try:
            if session is None or calls % 50 == 0:
                status, session, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}})
                post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            calls += 1
            tool = random.choice([("summarize", {"type": "stepCount", "start": "7d"}),
                                  ("summarize", {"type": "heartRate", "start": "3d"})])
            status, _, answer = post({"jsonrpc": "2.0", "id": calls, "method": "tools/call",
                                      "params": {"name": tool[0], "arguments": tool[1]}}, session)
            if status != 200 or not answer or "error" in answer or answer.get("result", {}).get("isError"):
                failed("mcp: %s %s" % (status, str(answer)[:200]))
            with lock:
                stats["mcp_calls"] += 1
        except Exception as error:  # noqa: BLE001
            failed("mcp: %r" % error)
            session = None
            time.sleep(0.5)


def import_loop():
    while not stop.is_set():
        result = subprocess.run([args.binary, "import", args.fixture, "--home", args.home, "--force", "--json"],
                                capture_output=True, env=env)
        with lock:
            stats["imports"] += 1
            if result.returncode != 0:
                stats["import_errors"] += 1
                if len(errors) < 20:
                    errors.append("import: %s" % result.stderr[-300:])
        stop.wait(3)


def resources():
    pid = server.process.pid
    rss = 0
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
    return rss, len(os.listdir("/proc/%d/fd" % pid))


tokens = []
for index in range(args.clients):
    pairing = PinnedClient(host, port, fingerprint)
    pairing.pair(server.pair_code(), "soak-%d" % index)
    tokens.append(pairing.token)
    pairing.close()

threads = [threading.Thread(target=client_loop, args=(i, t), daemon=True) for i, t in enumerate(tokens)]
threads += [threading.Thread(target=mcp_loop, daemon=True), threading.Thread(target=import_loop, daemon=True)]
started = time.time()
for thread in threads:
    thread.start()
while time.time() - started < args.seconds:
    time.sleep(min(5, max(0.1, args.seconds - (time.time() - started))))
    rss, fds = resources()
    samples.append((round(time.time() - started), rss, fds))
    print("t=%4ds requests=%d errors=%d mcp=%d imports=%d rss=%d MB fds=%d" % (
        samples[-1][0], stats["requests"], stats["errors"], stats["mcp_calls"], stats["imports"], rss, fds), flush=True)
stop.set()
for thread in threads:
    thread.join(timeout=60)
time.sleep(1)
rss_end, fds_end = resources()
server.stop()

# Every data read answered 200 has its audit row (read straight from the database after serve stopped).
database = sqlite3.connect(os.path.join(args.home, "export.sqlite"))
audited = {row[0] for row in database.execute("SELECT request_id FROM audit WHERE event = 'data.read'")}
missing = [rid for rid in read_ids if rid not in audited]

warm = samples[len(samples) // 4] if samples else (0, rss_end, fds_end)
peak_rss = max(s[1] for s in samples) if samples else rss_end
report = {
    "seconds": args.seconds, "clients": args.clients, "requests": stats["requests"], "errors": stats["errors"],
    "mcp_calls": stats["mcp_calls"], "imports": stats["imports"], "import_errors": stats["import_errors"],
    "data_reads": len(read_ids), "data_reads_without_audit_row": len(missing),
    "rss_mb": {"first": samples[0][1] if samples else None, "after_warmup": warm[1], "end": samples[-1][1] if samples else None,
               "peak": peak_rss},
    "fds": {"first": samples[0][2] if samples else None, "after_warmup": warm[2], "end": samples[-1][2] if samples else None,
            "after_clients_closed": fds_end},
    "requests_per_second": round(stats["requests"] / max(1, args.seconds), 1),
}
print(json.dumps(report, indent=2))
problems = []
if stats["errors"] or stats["import_errors"]:
    problems.append("errors: %s" % errors)
if missing:
    problems.append("%d data reads without an audit row" % len(missing))
last = samples[-1] if samples else (0, rss_end, fds_end)
if last[1] > warm[1] * 1.25 + 20:
    problems.append("RSS grew from %d MB to %d MB after warm-up" % (warm[1], last[1]))
if last[2] > warm[2] + 20:
    problems.append("open files grew from %d to %d after warm-up" % (warm[2], last[2]))
for problem in problems:
    print("soak: " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
