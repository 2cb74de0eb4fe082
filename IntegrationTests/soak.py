#!/usr/bin/env python3
"""The soak run of IntegrationTests/soak.sh.

On demo data, for --seconds:
- `healthbridge serve` under --clients paired HTTPS clients, MCP calls over HTTP, and an import repeated every few
  seconds (the fixture again with --force, then a small export of fresh samples, so every round adds data);
- an OpenClaw node, `healthbridge node`, connected to `hb-test-gateway` (--gateway: the test gateway of the Swift tests,
  HealthBridgeTesting's TestGateway, as an executable; driven by `SwiftGateway` below over its line-based JSON control
  protocol on stdin/stdout, described in Sources/HBTestGateway/main.swift), approved on its first connect, as an
  operator would, and invoked through it: `health.query`, `health.summary` (both forms) and
  `health.sleep` on the soak's types, while `heartRate` stays subscribed for the whole run and the other types are
  subscribed and unsubscribed over and over, so `health.update` events flow while the imports run.

Fails on any error (HTTP, MCP, import, invoke), any gateway violation, a node that disconnects or exits, RSS or open
files of serve or of the node that keep growing after warm-up, a data read without its audit row, a fresh heartRate
sample the node never reported, or a `health.update` for a type after its unsubscribe returned. Every process (serve,
node, the gateway) is stopped at the end, on failure too.
"""
import argparse
import itertools
import datetime
import json
import os
import random
import secrets
import signal
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
parser.add_argument("--gateway", required=True, help="the hb-test-gateway executable")
parser.add_argument("--home", required=True)
parser.add_argument("--seconds", type=int, default=300)
parser.add_argument("--clients", type=int, default=50)
parser.add_argument("--fixture", required=True)
args = parser.parse_args()

TYPES = ["stepCount", "heartRate", "activeEnergyBurned", "sleepAnalysis"]
# The node's subscriptions: one for the whole run (every fresh sample of it must reach the gateway), the others
# subscribed and unsubscribed over and over (no event for them may follow their unsubscribe).
SUBSCRIBED = "heartRate"
TOGGLED = ["stepCount", "activeEnergyBurned"]
NODE_INVOKERS = 2  # threads invoking the read commands, besides the one toggling subscriptions
INVOKE_TIMEOUT_MS = 20000
IMPORT_TIMEOUT = 60  # seconds: these imports take well under one; a longer one is hung, killed and an error
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

lock = threading.Lock()
stats = {"requests": 0, "errors": 0, "mcp_calls": 0, "imports": 0, "import_errors": 0, "import_seconds_max": 0.0}
node_stats = {"invokes": 0, "errors": 0, "expected_refusals": 0, "subscribes": 0, "unsubscribes": 0,
              "fresh_samples": 0, "by_command": {}}
errors = []
node_errors = []
read_ids = []
samples = []  # (t, serve RSS MB, serve fds, node RSS MB, node fds)
fresh_heart_rates = []  # start times (epoch seconds) of the fresh heartRate samples imported
stop = threading.Event()
# Set up below; the `finally` at the end stops whatever was started.
server = gateway = node = node_log = gateway_log = None
importing = None  # the running `healthbridge import`, killed at the end if still there
host = port = fingerprint = None


def failed(what):
    with lock:
        stats["errors"] += 1
        if len(errors) < 20:
            errors.append(what)


def node_failed(what):
    with lock:
        node_stats["errors"] += 1
        if len(node_errors) < 20:
            node_errors.append(what)


def iso(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def parse_iso(text):
    """Epoch seconds of an ISO 8601 date the node sends (`…Z` or with an offset, fractions optional)."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


# MARK: - serve: HTTPS clients, MCP, imports

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


def fresh_export(path, stamp, index):
    """Writes a small export of new samples, all at `stamp` (epoch seconds, never used by an earlier round): one
    heartRate, one stepCount and one activeEnergyBurned sample from the source "Soak". Returns how many."""
    when = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(stamp))
    before = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(stamp - 30))
    rows = [("HKQuantityTypeIdentifierHeartRate", "count/min", when, when, 60 + index % 40),
            ("HKQuantityTypeIdentifierStepCount", "count", before, when, 10 + index % 50),
            ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal", before, when, 1.5)]
    with open(path, "w") as handle:
        handle.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n<ExportDate value="%s"/>\n'
                     % when)
        for kind, unit, start, end, value in rows:
            handle.write('<Record type="%s" sourceName="Soak" unit="%s" startDate="%s" endDate="%s" value="%s"/>\n'
                         % (kind, unit, start, end, value))
        handle.write("</HealthData>\n")
    return len(rows)


def run_import(path, *flags):
    """Runs `healthbridge import PATH FLAGS… --json`: (exit code, stdout). An import still running after
    IMPORT_TIMEOUT is hung: it is described (process state, kernel wait channel), killed, and the exit code is None."""
    global importing
    started = time.time()
    importing = subprocess.Popen([args.binary, "import", path, "--home", args.home, "--json"] + list(flags),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = importing.communicate(timeout=IMPORT_TIMEOUT)
        code = importing.returncode
    except subprocess.TimeoutExpired:
        state = process_state(importing.pid)
        importing.kill()
        out, err = importing.communicate()
        code = None
        err = ("hung for %d s (%s); killed; " % (IMPORT_TIMEOUT, state)).encode() + err
    seconds = time.time() - started
    with lock:
        stats["imports"] += 1
        stats["import_seconds_max"] = max(stats["import_seconds_max"], seconds)
        if code != 0:
            stats["import_errors"] += 1
            if len(errors) < 20:
                errors.append("import %s: exit %s: %s" % (os.path.basename(path), code, err[-300:]))
    return code, out


def process_state(pid):
    """`State` and kernel wait channel of a process, for a report."""
    try:
        with open("/proc/%d/status" % pid) as handle:
            state = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("State:")), "?")
        with open("/proc/%d/wchan" % pid) as handle:
            return "state %s, wchan %s, %d threads" % (state, handle.read() or "-", len(os.listdir(
                "/proc/%d/task" % pid)))
    except OSError as error:
        return repr(error)


def import_loop():
    """Every ~3 s: the fixture again (--force, adds nothing after the first round) and a fresh export (adds 3
    samples, which the node's subscriptions report)."""
    path = os.path.join(args.home, "soak-fresh.xml")
    last_stamp = 0
    index = 0
    while not stop.is_set():
        run_import(args.fixture, "--force")
        stamp = max(last_stamp + 1, int(time.time()) - 5)
        last_stamp = stamp
        count = fresh_export(path, stamp, index)
        index += 1
        code, out = run_import(path)
        inserted = None
        if code == 0:
            try:
                inserted = json.loads(out).get("samplesInserted")
            except ValueError:
                pass
            if inserted == count:
                with lock:
                    node_stats["fresh_samples"] += count
                    fresh_heart_rates.append(stamp)
            else:
                with lock:
                    stats["import_errors"] += 1
                    if len(errors) < 20:
                        errors.append("fresh import: %s samples inserted of %d" % (inserted, count))
        stop.wait(3)


class InvokeFailed(Exception):
    """An invoke the gateway got no answer for: refused by its command policy, no node, no result in time."""


class SwiftGateway:
    """`hb-test-gateway` as a child process, driven over its control protocol: one JSON object a line on its stdin
    (requests with an id) and its stdout (answers with that id, and events without one). A reader thread files the
    answers and keeps the events: `updates` (every well-formed health.update payload, in order of arrival; an event
    is always filed before the answer of an invoke the node answered after it) and `disconnects` ({nodeId,
    closeCode, reason}). The gateway's own log (its stderr) and what is filed here go to the gateway log."""

    def __init__(self, binary, token, log_file, log):
        self.log = log
        self.updates = []
        self.disconnects = []
        self._ids = itertools.count(1)
        self._waiting = {}  # id → [threading.Event, answer]
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self.process = subprocess.Popen([binary, "--token", token, "--tick-ms", "15000", "--ping-seconds", "15"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, text=True,
                                        bufsize=1)
        ready = json.loads(self.process.stdout.readline() or "{}")
        if ready.get("event") != "ready":
            self.process.kill()
            raise RuntimeError("hb-test-gateway did not start (exit %s)" % self.process.wait())
        self.url = ready["url"]
        self._reader = threading.Thread(target=self._read, name="gateway-reader", daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                self.log("not a control line: %.200s" % line)
                continue
            if "id" in message:
                with self._lock:
                    slot = self._waiting.pop(message["id"], None)
                if slot is not None:
                    slot[1] = message
                    slot[0].set()
            elif message.get("event") == "health.update":
                self.updates.append(message["payload"])
                self.log("health.update %s: %d samples" % (message["payload"]["type"],
                                                           len(message["payload"]["latestSamples"])))
            elif message.get("event") == "disconnect":
                self.disconnects.append(message)
                self.log("node %s disconnected: %s" % (message["nodeId"][:12], message["reason"]))
        with self._lock:  # the gateway is gone: nothing more will be answered
            slots, self._waiting = list(self._waiting.values()), {}
        for slot in slots:
            slot[1] = {"ok": False, "error": "hb-test-gateway exited"}
            slot[0].set()

    def request(self, op, timeout, **fields):
        """The result of one request; InvokeFailed with the gateway's reason when it failed, or after `timeout` s."""
        request_id = next(self._ids)
        slot = [threading.Event(), None]
        with self._lock:
            self._waiting[request_id] = slot
        try:
            with self._write_lock:
                self.process.stdin.write(json.dumps(dict(fields, id=request_id, op=op)) + "\n")
                self.process.stdin.flush()
        except (OSError, ValueError) as error:
            with self._lock:
                self._waiting.pop(request_id, None)
            raise InvokeFailed("%s: hb-test-gateway is gone (%r)" % (op, error)) from None
        if not slot[0].wait(timeout):
            with self._lock:
                self._waiting.pop(request_id, None)
            raise InvokeFailed("%s: no answer from hb-test-gateway within %.0f s" % (op, timeout))
        if not slot[1]["ok"]:
            raise InvokeFailed(slot[1]["error"])
        return slot[1]["result"]

    def invoke(self, command, params=None, timeout_ms=30000):
        """`node.invoke`: {ok, payload, error}, the node's answer; InvokeFailed when the gateway's command policy
        refused it, no node is connected or no result came within `timeout_ms`."""
        return self.request("invoke", timeout_ms / 1000 + 10, command=command, params=params, timeoutMs=timeout_ms)

    def wait_for_pairing_request(self, timeout):
        """{requestId: deviceId} once a node asked for pairing."""
        return self.request("wait-pairing", timeout + 5, timeoutMs=int(timeout * 1000))["requests"]

    def approve(self, request_or_device_id):
        """`openclaw nodes approve <requestId | deviceId>`."""
        self.request("approve", 10, request=request_or_device_id)
        self.log("approved %s" % request_or_device_id)

    def wait_for_node(self, timeout):
        """The node id once a node is connected (after hello-ok)."""
        return self.request("wait-node", timeout + 5, timeoutMs=int(timeout * 1000))["nodeId"]

    def stats(self):
        """The gateway's counts; `violations` lists what the node sent that was not well formed."""
        return self.request("stats", 10)

    def stop(self):
        """Closes every connection and ends the process (killed when it has not ended within 10 s)."""
        try:
            self.request("stop", 10)
            self.process.stdin.close()
        except (InvokeFailed, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=5)


def resources(pid):
    """(VmRSS in MB, open file descriptors) of a process."""
    rss = 0
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
    return rss, len(os.listdir("/proc/%d/fd" % pid))


# MARK: - the OpenClaw node, through the gateway emulator

def invoke(command, params):
    """One `node.invoke` through the gateway: (ok, payload, error). A refusal by the gateway or no answer counts as
    (False, None, reason)."""
    try:
        outcome = gateway.invoke(command, params, timeout_ms=INVOKE_TIMEOUT_MS)
    except InvokeFailed as error:
        return False, None, {"code": "INVOKE_FAILED", "message": str(error)}
    with lock:
        node_stats["invokes"] += 1
        node_stats["by_command"][command] = node_stats["by_command"].get(command, 0) + 1
    return outcome["ok"], outcome["payload"], outcome["error"]


def sorted_dates(items, key, descending=False):
    dates = [parse_iso(item[key]) for item in items]
    return dates == sorted(dates, reverse=descending)


def check_query(payload, params):
    """None when a health.query payload is well formed for `params`, else what is wrong."""
    if not isinstance(payload, dict) or payload.get("type") != params["type"]:
        return "not a %s query payload" % params["type"]
    for key in ("startISO", "endISO"):
        if not isinstance(payload.get(key), str):
            return "no %s" % key
    found = payload.get("samples")
    if not isinstance(found, list) or len(found) > params["limit"]:
        return "samples is not a list of at most %d" % params["limit"]
    if "hasMore" in payload and not isinstance(payload["hasMore"], bool):
        return "hasMore is not a boolean"
    for sample in found:
        if not isinstance(sample, dict) or not isinstance(sample.get("dateISO"), str):
            return "a sample without dateISO: %.100s" % sample
        if params["type"] != "sleepAnalysis" and not isinstance(sample.get("value"), (int, float)):
            return "a %s sample without a numeric value: %.100s" % (params["type"], sample)
    if not sorted_dates(found, "dateISO", descending=not params.get("ascending", False)):
        return "samples out of order (ascending=%s)" % params.get("ascending", False)
    return None


def check_summary(payload, params):
    """None when a health.summary payload (the plan's form) is well formed for `params`, else what is wrong."""
    if not isinstance(payload, dict) or payload.get("type") != params["type"]:
        return "not a %s summary payload" % params["type"]
    if payload.get("interval") != params.get("interval", "day"):
        return "interval %r, asked %r" % (payload.get("interval"), params.get("interval", "day"))
    statistics = payload.get("statistics")
    if not isinstance(statistics, list):
        return "statistics is not a list"
    for bucket in statistics:
        if not isinstance(bucket, dict) or not all(isinstance(bucket.get(key), str)
                                                   for key in ("startISO", "endISO", "unit")):
            return "a bucket without startISO, endISO, unit: %.100s" % bucket
        if parse_iso(bucket["startISO"]) >= parse_iso(bucket["endISO"]):
            return "an empty bucket: %.100s" % bucket
    if not sorted_dates(statistics, "startISO"):
        return "buckets out of order"
    return None


def check_today(payload):
    """None when an upstream `{"period":"today"}` summary is well formed."""
    if not isinstance(payload, dict) or payload.get("period") != "today":
        return "not a today summary"
    for key in ("startISO", "endISO", "timeZoneIdentifier"):
        if not isinstance(payload.get(key), str):
            return "no %s" % key
    for key in ("stepCount", "sleepDurationMinutes", "restingHeartRateBpm", "workoutCount", "workoutDurationMinutes"):
        if key in payload and not isinstance(payload[key], (int, float)):
            return "%s is not a number" % key
    return None


def check_sleep(payload):
    """None when a health.sleep payload is well formed."""
    if not isinstance(payload, dict) or not isinstance(payload.get("nights"), list):
        return "no nights"
    for night in payload["nights"]:
        if not isinstance(night, dict) or not isinstance(night.get("date"), str) or not isinstance(
                night.get("asleepMinutes"), (int, float)):
            return "a night without date or asleepMinutes: %.100s" % night
    return None


def node_invoke_loop(index):
    """Reads through the node: query and summary on the soak's types, upstream's today summary, sleep nights, and
    now and then a summary of sleepAnalysis, which must be refused HEALTH_NO_SUMMARY (nights are health.sleep's)."""
    rng = random.Random(1000 + index)
    while not stop.is_set():
        now = time.time()
        kind = rng.random()
        end_epoch = now - rng.randint(0, 2) * 86400
        start, end = iso(end_epoch - rng.randint(1, 20) * 86400), iso(end_epoch)
        if kind < 0.45:
            command = "health.query"
            params = {"type": rng.choice(TYPES), "startISO": start, "endISO": end, "limit": rng.randint(1, 500)}
            if rng.random() < 0.3:
                params["ascending"] = rng.random() < 0.5
            check = check_query
        elif kind < 0.8:
            command = "health.summary"
            params = {"type": rng.choice(TYPES[:3]), "startISO": start, "endISO": end,
                      "interval": rng.choice(["hour", "day", "week"])}
            check = check_summary
        elif kind < 0.88:
            command, params, check = "health.summary", {"period": "today"}, lambda payload, _: check_today(payload)
        elif kind < 0.96:
            command, params, check = "health.sleep", {"startISO": start, "endISO": end}, lambda payload, _: check_sleep(
                payload)
        else:
            command, params, check = "health.summary", {"type": "sleepAnalysis", "startISO": start, "endISO": end}, None
        ok, payload, error = invoke(command, params)
        if check is None:
            if ok or (error or {}).get("code") != "HEALTH_NO_SUMMARY":
                node_failed("%s %s: expected HEALTH_NO_SUMMARY, got ok=%s %s" % (command, params, ok, error))
            else:
                with lock:
                    node_stats["expected_refusals"] += 1
            continue
        if not ok:
            node_failed("%s %s: %s" % (command, json.dumps(params), error))
            time.sleep(0.2)
            continue
        try:
            problem = check(payload, params)
        except (TypeError, ValueError, KeyError) as error:
            problem = "unreadable payload (%r)" % error
        if problem:
            node_failed("%s %s: %s: %.200s" % (command, json.dumps(params), problem, json.dumps(payload)))


def subscription_loop(quiet_since):
    """Subscribes and unsubscribes the TOGGLED types every 1–3 s. `quiet_since[type]` is the number of health.update
    events the gateway had received when that type's unsubscribe returned (None while subscribed): any event for it
    from that index on, until it is subscribed again, arrived after its unsubscribe, which the node must not do."""
    rng = random.Random(7)
    subscribed = set()
    while not stop.wait(rng.uniform(1, 3)):
        types = rng.sample(TOGGLED, rng.randint(1, len(TOGGLED)))
        command = "health.unsubscribe" if rng.random() < len(subscribed) / len(TOGGLED) else "health.subscribe"
        if command == "health.subscribe":
            check_quiet(quiet_since, types)
        ok, payload, error = invoke(command, {"types": types})
        if not ok or payload is not None:
            node_failed("%s %s: ok=%s payload=%.100s error=%s" % (command, types, ok, payload, error))
            continue
        with lock:
            node_stats["subscribes" if command == "health.subscribe" else "unsubscribes"] += 1
        for name in types:
            if command == "health.subscribe":
                subscribed.add(name)
                quiet_since[name] = None
            elif name in subscribed:  # unsubscribing a type already unsubscribed keeps its quiet period going
                subscribed.discard(name)
                quiet_since[name] = len(gateway.updates)


def check_quiet(quiet_since, types):
    """Fails for any health.update of an unsubscribed type in `types` that arrived after its unsubscribe."""
    updates = list(gateway.updates)
    for name in types:
        since = quiet_since.get(name)
        if since is None:
            continue
        late = [update for update in updates[since:] if update["type"] == name]
        if late:
            node_failed("%d health.update for %s after its unsubscribe returned" % (len(late), name))
        quiet_since[name] = len(updates)


def reported_heart_rates():
    """Start times (epoch seconds, whole) of the heartRate samples the node reported in health.update events."""
    seen = set()
    for update in list(gateway.updates):
        if update["type"] == SUBSCRIBED:
            for sample in update["latestSamples"]:
                seen.add(int(round(parse_iso(sample["dateISO"]))))
    return seen


def check_updates():
    """Every health.update: at most 5 samples, newest first, of a type the soak subscribed to."""
    for update in list(gateway.updates):
        latest = update["latestSamples"]
        if update["type"] not in [SUBSCRIBED] + TOGGLED:
            node_failed("health.update for %s, never subscribed" % update["type"])
        elif len(latest) > 5 or not sorted_dates(latest, "dateISO", descending=True):
            node_failed("health.update for %s: %d samples, not the newest 5 newest first" % (update["type"],
                                                                                            len(latest)))


def stop_node():
    """SIGTERM, then SIGKILL after 20 s: (exit code, seconds to exit, killed)."""
    if node is None or node.poll() is not None:
        return (node.returncode if node else None), 0.0, False
    started = time.time()
    node.send_signal(signal.SIGTERM)
    try:
        node.wait(timeout=20)
        return node.returncode, time.time() - started, False
    except subprocess.TimeoutExpired:
        node.kill()
        node.wait()
        return node.returncode, time.time() - started, True


def node_log_tail(lines=15):
    try:
        with open(os.path.join(args.home, "node.log"), errors="replace") as handle:
            return "".join(handle.readlines()[-lines:])
    except OSError:
        return ""


def on_sigterm(number, frame):
    raise SystemExit(128 + number)  # runs the `finally` below: every process is stopped


signal.signal(signal.SIGTERM, on_sigterm)
exit_code = 1
try:
    subprocess.run([args.binary, "demo", "--days", "30", "--home", args.home, "--json"], check=True,
                   capture_output=True, env=env)
    subprocess.run([args.binary, "sharing", "types", "--home", args.home, "--enable", ",".join(TYPES)], check=True,
                   capture_output=True, env=env)
    server = Server(args.binary, args.home, ["--port", str(MCP_PORT), "--api-port", str(API_PORT),
                                             "--api-bind", "127.0.0.1", "--rate-limit", "0"])
    host, port, fingerprint = "127.0.0.1", server.info["port"], server.info["fingerprint"]

    # The gateway (loopback, ephemeral port, a shared token) and the node, approved on its first connect.
    gateway_log = open(os.path.join(args.home, "gateway.log"), "a")
    gateway_log_lock = threading.Lock()

    def log_gateway(text):
        with gateway_log_lock:
            if gateway_log.closed:  # the soak is over
                return
            gateway_log.write(time.strftime("%H:%M:%S ") + text + "\n")
            gateway_log.flush()

    gateway_token = secrets.token_urlsafe(24)
    gateway = SwiftGateway(args.gateway, gateway_token, gateway_log, log_gateway)
    node_log = open(os.path.join(args.home, "node.log"), "ab")
    node = subprocess.Popen([args.binary, "node", "--gateway", gateway.url, "--token", gateway_token,
                             "--home", args.home, "--display-name", "soak"],
                            stdout=node_log, stderr=node_log, env=dict(env, HEALTHBRIDGE_LOG_LEVEL="info"))
    try:
        requests = gateway.wait_for_pairing_request(30)
    except Exception as error:  # noqa: BLE001
        raise RuntimeError("the node did not ask for pairing within 30 s (%r; node log:\n%s)" % (
            error, node_log_tail())) from None
    approved = time.time()
    for request_id in requests:
        gateway.approve(request_id)
    # The node retries 0.5 s after the refusal, but when the gateway's close crosses the node's own close frame
    # (the socket is reset), the node notices only at its next 15 s ping: allow for that.
    try:
        node_id = gateway.wait_for_node(45)
    except Exception as error:  # noqa: BLE001
        raise RuntimeError("the approved node did not connect within 45 s (%r; node log:\n%s)" % (
            error, node_log_tail())) from None
    print("node %s… connected to %s %.1f s after its pairing request %s was approved" % (
        node_id[:12], gateway.url, time.time() - approved, ", ".join(requests)), flush=True)
    ok, payload, error = invoke("health.subscribe", {"types": [SUBSCRIBED]})
    if not ok:
        raise RuntimeError("health.subscribe %s: %s" % (SUBSCRIBED, error))
    node_stats["subscribes"] += 1

    tokens = []
    for index in range(args.clients):
        pairing = PinnedClient(host, port, fingerprint)
        pairing.pair(server.pair_code(), "soak-%d" % index)
        tokens.append(pairing.token)
        pairing.close()

    quiet_since = {name: 0 for name in TOGGLED}  # not subscribed yet: no event for them from the start
    threads = [threading.Thread(target=client_loop, args=(i, t), daemon=True) for i, t in enumerate(tokens)]
    threads += [threading.Thread(target=mcp_loop, daemon=True), threading.Thread(target=import_loop, daemon=True)]
    threads += [threading.Thread(target=node_invoke_loop, args=(i,), daemon=True) for i in range(NODE_INVOKERS)]
    threads += [threading.Thread(target=subscription_loop, args=(quiet_since,), daemon=True)]
    started = time.time()
    for thread in threads:
        thread.start()
    node_gone = None
    while time.time() - started < args.seconds:
        time.sleep(min(5, max(0.1, args.seconds - (time.time() - started))))
        if node.poll() is not None:
            node_gone = "the node exited with %s" % node.returncode
            break
        rss, fds = resources(server.process.pid)
        node_rss, node_fds = resources(node.pid)
        samples.append((round(time.time() - started), rss, fds, node_rss, node_fds))
        print("t=%4ds requests=%d errors=%d mcp=%d imports=%d rss=%d MB fds=%d | node invokes=%d errors=%d "
              "updates=%d rss=%d MB fds=%d" % (
                  samples[-1][0], stats["requests"], stats["errors"], stats["mcp_calls"], stats["imports"], rss, fds,
                  node_stats["invokes"], node_stats["errors"], len(gateway.updates), node_rss, node_fds),
              flush=True)
        if gateway.disconnects:
            node_gone = "the node disconnected: %s" % gateway.disconnects[0]["reason"]
            break
    stop.set()
    join_deadline = time.time() + 60
    for thread in threads:
        thread.join(timeout=max(0.1, join_deadline - time.time()))
    stuck = [thread.name for thread in threads if thread.is_alive()]
    # The last fresh heartRate sample reaches the gateway within a second or so ("within a second", README).
    deadline = time.time() + 10
    while node.poll() is None and time.time() < deadline and not set(fresh_heart_rates) <= reported_heart_rates():
        time.sleep(0.2)
    check_quiet(quiet_since, TOGGLED)
    check_updates()
    time.sleep(1)
    rss_end, fds_end = resources(server.process.pid)
    node_alive = node.poll() is None
    node_rss_end, node_fds_end = resources(node.pid) if node_alive else (None, None)
    gateway_stats = gateway.stats()
    disconnects = list(gateway.disconnects)
    violations = list(gateway_stats["violations"])
    missing_updates = sorted(set(fresh_heart_rates) - reported_heart_rates())
    node_exit = stop_node()
    # How the gateway saw the node go (a clean close sends a WebSocket close frame first).
    deadline = time.time() + 3
    while len(gateway.disconnects) <= len(disconnects) and time.time() < deadline:
        time.sleep(0.05)
    node_close = ([d["reason"] for d in gateway.disconnects[len(disconnects):]] or ["no disconnect seen"])[0]
    server.stop()

    # Every data read answered 200 has its audit row (read straight from the database after serve stopped).
    database = sqlite3.connect(os.path.join(args.home, "export.sqlite"))
    audited = {row[0] for row in database.execute("SELECT request_id FROM audit WHERE event = 'data.read'")}
    database.close()
    missing = [rid for rid in read_ids if rid not in audited]

    empty = (0, rss_end, fds_end, node_rss_end, node_fds_end)
    warm = samples[len(samples) // 4] if samples else empty
    first = samples[0] if samples else empty
    last = samples[-1] if samples else empty
    report = {
        "seconds": args.seconds, "clients": args.clients, "requests": stats["requests"], "errors": stats["errors"],
        "mcp_calls": stats["mcp_calls"], "imports": stats["imports"], "import_errors": stats["import_errors"],
        "import_seconds_max": round(stats["import_seconds_max"], 2),
        "data_reads": len(read_ids), "data_reads_without_audit_row": len(missing),
        "rss_mb": {"first": first[1], "after_warmup": warm[1], "end": last[1],
                   "peak": max([s[1] for s in samples] or [rss_end])},
        "fds": {"first": first[2], "after_warmup": warm[2], "end": last[2], "after_clients_closed": fds_end},
        "requests_per_second": round(stats["requests"] / max(1, args.seconds), 1),
        "node": {
            "invokes": node_stats["invokes"], "invoke_errors": node_stats["errors"],
            "invokes_per_second": round(node_stats["invokes"] / max(1, args.seconds), 1),
            "by_command": node_stats["by_command"], "expected_refusals": node_stats["expected_refusals"],
            "subscribes": node_stats["subscribes"], "unsubscribes": node_stats["unsubscribes"],
            "fresh_samples_imported": node_stats["fresh_samples"],
            "health_updates": gateway_stats["health_updates"],
            "fresh_heart_rates_reported": "%d/%d" % (len(fresh_heart_rates) - len(missing_updates),
                                                     len(fresh_heart_rates)),
            "rss_mb": {"first": first[3], "after_warmup": warm[3], "end": last[3],
                       "peak": max([s[3] for s in samples] or [node_rss_end or 0])},
            "fds": {"first": first[4], "after_warmup": warm[4], "end": last[4], "at_stop": node_fds_end},
            "exit": {"code": node_exit[0], "seconds": round(node_exit[1], 2), "killed": node_exit[2],
                     "gateway_saw": node_close},
        },
        "gateway": dict({key: gateway_stats[key] for key in ("connects", "refused_connects", "disconnects", "invokes",
                                                             "late_results", "events", "ticks_sent",
                                                             "auto_ping_seconds")},
                        violations=len(gateway_stats["violations"])),
    }
    print(json.dumps(report, indent=2))
    problems = []
    if stats["errors"] or stats["import_errors"]:
        problems.append("errors: %s" % errors)
    if missing:
        problems.append("%d data reads without an audit row" % len(missing))
    if last[1] > warm[1] * 1.25 + 20:
        problems.append("RSS grew from %d MB to %d MB after warm-up" % (warm[1], last[1]))
    if last[2] > warm[2] + 20:
        problems.append("open files grew from %d to %d after warm-up" % (warm[2], last[2]))
    if stuck:
        problems.append("threads still running after 60 s: %s" % stuck)
    # The node.
    if node_stats["errors"]:
        problems.append("node: %d invoke errors: %s" % (node_stats["errors"], node_errors[:10]))
    if violations:
        problems.append("gateway: %d violations: %s" % (len(violations), violations[:10]))
    if node_gone or not node_alive:
        problems.append("node: %s" % (node_gone or "the node exited with %s" % node.returncode))
    if disconnects or gateway_stats["connects"] != 1:
        problems.append("node: %d connects, disconnects: %s" % (gateway_stats["connects"], [
            d["reason"] for d in disconnects]))
    if missing_updates:
        problems.append("node: %d fresh heartRate samples never reported in a health.update (at %s)" % (
            len(missing_updates), [iso(t) for t in missing_updates[:5]]))
    if not gateway_stats["health_updates"]:
        problems.append("node: no health.update at all")
    if last[3] is not None and last[3] > warm[3] * 1.25 + 20:
        problems.append("node: RSS grew from %d MB to %d MB after warm-up" % (warm[3], last[3]))
    if last[4] is not None and last[4] > warm[4] + 20:
        problems.append("node: open files grew from %d to %d after warm-up" % (warm[4], last[4]))
    if node_alive and (node_exit[2] or node_exit[0] not in (0, -signal.SIGTERM)):
        problems.append("node: did not stop cleanly on SIGTERM (exit %s, killed %s)" % (node_exit[0], node_exit[2]))
    if node_alive and not node_close.startswith("the node closed the connection (1000"):
        problems.append("node: SIGTERM did not end its session with a close frame (1000); the gateway saw: %s"
                        % node_close)
    for problem in problems:
        print("soak: " + problem, file=sys.stderr)
    if problems and (node_stats["errors"] or violations or node_gone or disconnects or missing_updates):
        print("soak: node log (last lines):\n" + node_log_tail(), file=sys.stderr)
    exit_code = 1 if problems else 0
except Exception as error:  # noqa: BLE001 - reported, then everything is stopped below
    print("soak: %r" % error, file=sys.stderr)
    exit_code = 1
finally:
    stop.set()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # cleaning up: a second SIGTERM must not cut it short
    stop_node()
    if importing is not None and importing.poll() is None:
        importing.kill()
        importing.wait()
    if gateway is not None:
        try:
            gateway.stop()
        except Exception as error:  # noqa: BLE001
            print("soak: stopping the gateway: %r" % error, file=sys.stderr)
    if server is not None:
        server.stop()
    for log_file in (node_log, gateway_log):
        if log_file is not None:
            log_file.close()
sys.exit(exit_code)
