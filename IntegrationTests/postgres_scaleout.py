"""Two `healthbridge serve` app servers on one PostgreSQL database behave as one (issue 27).

- A write through server 1 reaches a long-poll of the change feed on server 2 (LISTEN/NOTIFY), timed.
- Under a stream of writes through server 1 (water logs, each with its own log id), server 1 is killed (SIGKILL) at
  a random moment: every write it acknowledged is in the database exactly once, as server 2 and the CLI see it, and
  a retry of an acknowledged write through server 2 stores nothing new (the log id).
- Server 2 keeps answering throughout.

Both servers share one data directory (identity, pairing, tokens, audit: the access state, on one machine) and the
health data through `--store`: the device paired through server 1 uses its token on server 2. Usage: postgres_scaleout.py --binary healthbridge --url postgres://user@127.0.0.1:PORT/db
"""
import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hbapi import PinnedClient, Server, stop_and_drop  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--url", required=True, help="postgres:// URL of a database (a schema of its own is made)")
    parser.add_argument("--writes", type=int, default=400)
    parser.add_argument("--pg-stop", help="a shell command that stops PostgreSQL (enables the outage phase)")
    parser.add_argument("--pg-start", help="a shell command that starts it again")
    parser.add_argument("--outage", type=float, default=12, help="seconds PostgreSQL stays down")
    args = parser.parse_args()

    schema = "scaleout_%d_%d" % (os.getpid(), random.randrange(1 << 20))
    separator = "&" if "?" in args.url else "?"
    store = args.url + separator + "schema=" + schema
    work = tempfile.mkdtemp(prefix="hb-scaleout-")
    servers = []
    try:
        # One data directory for both app servers: its identity, pairing, tokens and audit are shared (on one machine);
        # the health data is shared through --store. Paired devices may read and write water.
        home = os.path.join(work, "home")
        os.makedirs(home, mode=0o700)
        subprocess.run([args.binary, "grants", "device:*", "--allow-read", "dietaryWater", "--allow-write",
                        "dietaryWater", "--home", home, "--store", store], check=True, capture_output=True)
        for _ in (1, 2):
            servers.append(Server(args.binary, home, args=[
                "--store", store, "--api-port", str(free_port()), "--api-bind", "127.0.0.1", "--mcp-port",
                str(free_port()), "--no-console", "--no-advertise", "--rate-limit", "0"]))
        writer = PinnedClient("127.0.0.1", servers[0].info["port"], servers[0].info["fingerprint"])
        writer.pair(servers[0].pair_code(), "scaleout")
        # The same device, through the other app server: its token is good there too.
        reader = PinnedClient("127.0.0.1", servers[1].info["port"], servers[1].info["fingerprint"], token=writer.token)
        clients = [writer, reader]

        # 1. A write through server 1 wakes a long-poll on server 2.
        status, _, answer = reader.request("GET", "/api/v1/health/changes/anchor")
        if status != 200:
            fail("anchor on server 2: %s %s" % (status, answer))
        anchor = answer["anchor"]
        seen = {}

        def long_poll():
            poller = PinnedClient("127.0.0.1", servers[1].info["port"], servers[1].info["fingerprint"],
                                  token=reader.token, timeout=30)
            got = poller.request("GET", "/api/v1/health/changes?types=dietaryWater&wait=20&anchor=" + anchor)
            seen["at"] = time.time()
            seen["answer"] = got
            poller.close()

        poll = threading.Thread(target=long_poll)
        poll.start()
        time.sleep(1.0)  # the long-poll is waiting on server 2
        written_at = time.time()
        status, _, answer = writer.request("POST", "/api/v1/log/water", {"value": 250, "unit": "mL",
                                                                          "log_id": "probe-" + uuid.uuid4().hex})
        if status != 200:
            fail("water through server 1: %s %s" % (status, answer))
        poll.join(timeout=30)
        status, _, changes = seen.get("answer", (None, None, None))
        if status != 200 or not changes or not changes.get("added"):
            fail("server 2's long-poll did not see server 1's write: %s %s" % (status, changes))
        latency = seen["at"] - written_at
        print("a write through server 1 reached a long-poll on server 2 in %.0f ms" % (latency * 1000), flush=True)
        if latency > 2.0:
            fail("the change took %.1f s to cross app servers (bound 2 s)" % latency)

        # 2. Writes through server 1, killed in the middle: every acknowledged write is kept, once.
        acknowledged = {}
        attempted = []
        refused = []
        kill_after = random.randint(args.writes // 4, args.writes // 2)

        def write_loop():
            for index in range(args.writes):
                log_id = "w-%d-%s" % (index, uuid.uuid4().hex[:8])
                attempted.append(log_id)
                try:
                    status, _, answer = writer.request("POST", "/api/v1/log/water",
                                                       {"value": 100 + index, "unit": "mL", "log_id": log_id})
                except OSError:
                    return  # the server is gone
                if status == 200:
                    acknowledged[log_id] = answer["objects"][0]["uuid"]
                else:
                    refused.append(status)

        thread = threading.Thread(target=write_loop)
        thread.start()
        while len(acknowledged) < kill_after and thread.is_alive():
            time.sleep(0.01)
        servers[0].process.send_signal(signal.SIGKILL)
        servers[0].process.wait()
        thread.join(timeout=60)
        print("server 1 killed after %d acknowledged writes (%d attempted)" % (len(acknowledged), len(attempted)),
              flush=True)
        if len(acknowledged) < kill_after or refused:
            fail("only %d writes were acknowledged before the kill (refused: %s)" % (len(acknowledged), refused[:5]))

        # Server 2 answers, and every acknowledged write is there once.
        out = subprocess.run([args.binary, "query", "--type", "dietaryWater", "--from", "2000-01-01", "--limit", "5000",
                              "--json", "--home", home, "--store", store], check=True, capture_output=True,
                             text=True).stdout
        stored = json.loads(out)["samples"]
        uuids = [sample["uuid"] for sample in stored]
        if len(uuids) != len(set(uuids)):
            fail("a sample is stored twice")
        missing = [log for log, sample in acknowledged.items() if sample not in set(uuids)]
        if missing:
            fail("%d acknowledged writes are missing, e.g. %s" % (len(missing), missing[:3]))
        if len(stored) > len(attempted) + 1:
            fail("%d samples stored for %d attempted writes" % (len(stored), len(attempted) + 1))
        # The phone retries an acknowledged write through the other server: nothing new.
        log_id, sample = next(iter(acknowledged.items()))
        index = int(log_id.split("-")[1])
        status, _, answer = reader.request("POST", "/api/v1/log/water", {"value": 100 + index, "unit": "mL",
                                                                         "log_id": log_id})
        if status != 200 or answer["inserted"] != 0 or answer["objects"][0]["uuid"] != sample:
            fail("a retry through server 2 was not recognised: %s %s" % (status, answer))
        status, _, answer = reader.request("GET", "/api/v1/status")
        if status != 200:
            fail("server 2 stopped answering: %s" % status)
        print("ok: %d acknowledged writes kept once each (%d stored), a retry through server 2 recognised, server 2 "
              "answering" % (len(acknowledged), len(stored)), flush=True)
        if args.pg_stop and args.pg_start:
            outage(args, reader, store, home)
    finally:
        stop_and_drop(servers, work, "psql", args.url, schema)


def outage(args, client, store, home):
    """PostgreSQL stopped under a stream of writes and started again: once it is back the same server writes again
    by itself (within 30 s), and every write acknowledged around the outage is kept. While it is down every request
    answers 503 HEALTH_STORE_UNAVAILABLE, within the acquire timeout (5 s) and at once once the store has found the
    database away; a request caught by the shutdown itself (its connection closed under it) is answered too."""
    acknowledged, unavailable, slow, other = {}, [], [], []
    stop = threading.Event()

    def write_loop():
        index = 0
        while not stop.is_set():
            log_id = "o-%d-%s" % (index, uuid.uuid4().hex[:8])
            index += 1
            started = time.time()
            try:
                status, _, answer = client.request("POST", "/api/v1/log/water",
                                                   {"value": 50 + index % 500, "unit": "mL", "log_id": log_id})
            except OSError as error:
                other.append(repr(error))
                client.close()  # a timed-out connection cannot carry another request
                continue
            took = time.time() - started
            if status == 200:
                acknowledged[log_id] = answer["objects"][0]["uuid"]
            elif status == 503 and (answer or {}).get("error", {}).get("code") == "HEALTH_STORE_UNAVAILABLE":
                unavailable.append(took)
                if took > 6:
                    slow.append(took)
                time.sleep(0.05)
            else:
                other.append("%s %s" % (status, answer))

    thread = threading.Thread(target=write_loop)
    thread.start()
    time.sleep(1.5)
    before = len(acknowledged)
    subprocess.run(args.pg_stop, shell=True, check=True, capture_output=True)
    down_at = time.time()
    time.sleep(args.outage)
    subprocess.run(args.pg_start, shell=True, check=True, capture_output=True)
    up_at = time.time()
    back = None
    while time.time() - up_at < 30:
        count = len(acknowledged)
        time.sleep(0.5)
        if len(acknowledged) > count:
            back = time.time() - up_at
            break
    stop.set()
    thread.join(timeout=60)
    print("outage: %d writes before, %d answered 503 HEALTH_STORE_UNAVAILABLE while down (slowest %.1f s), "
          "writes again %.1f s after PostgreSQL was back; other answers %s" % (
              before, len(unavailable), max(unavailable or [0]), back if back is not None else -1, other[:3]), flush=True)
    hung = [answer for answer in other if "timed out" in answer]
    unexpected = [answer for answer in other if "timed out" not in answer]
    if unexpected:
        fail("unexpected answers during the outage: %s" % unexpected[:3])
    if hung or slow or not unavailable:
        fail("%d requests did not answer within the client's 15 s and %d took over 6 s while the database was down; "
             "%d answered 503 HEALTH_STORE_UNAVAILABLE" % (len(hung), len(slow), len(unavailable)))
    at_once = sum(1 for took in unavailable if took < 0.5)
    print("ok: while down every request was refused, %d of %d at once (< 0.5 s)" % (at_once, len(unavailable)),
          flush=True)
    if back is None:
        fail("the server did not write again within 30 s of PostgreSQL's restart")
    out = subprocess.run([args.binary, "query", "--type", "dietaryWater", "--from", "2000-01-01", "--limit", "5000",
                          "--json", "--home", home, "--store", store], check=True, capture_output=True, text=True).stdout
    stored = {sample["uuid"] for sample in json.loads(out)["samples"]}
    missing = [log for log, sample in acknowledged.items() if sample not in stored]
    if missing:
        fail("%d writes acknowledged around the outage are missing, e.g. %s" % (len(missing), missing[:3]))
    print("ok: all %d writes acknowledged around the outage are kept (%.0f s down)" % (len(acknowledged),
                                                                                      up_at - down_at), flush=True)


if __name__ == "__main__":
    main()
