#!/usr/bin/env python3
"""Many phones pushing Health Auto Export data to two app servers on one PostgreSQL database (issue 27's load figure).

Two `healthbridge serve` processes share one data directory (its identity, tokens and audit, on one machine) and one
PostgreSQL store. `--phones` simulated phones, each with an ingest token of its own, push an hour of HAE data each
(minute-level step count, active energy, walking + running distance and heart rate, as the app's "Since last sync"
REST automation sends them; a source name per phone) over HTTPS with the pinned certificate, `--workers` at a time,
spread over both servers, while `--readers` paired clients ask for statistics (a day of hourly merged steps of every
phone) every `--reader-pause` seconds.
Mid-load server 1 is killed with SIGKILL; a phone whose push fails retries on the other server, as the app retries.

Prints sustained pushes/s and records/s, push latency p50/p99, reader latency p50/p99, and checks that nothing was
lost or doubled: every phone's samples are in the store exactly once (counted per source in PostgreSQL, distinct
UUIDs), the sum of the servers' `inserted` counts equals what is stored, and pushing 50 phones' payloads again stores
nothing new (their sync identifiers and content-derived UUIDs).

    python3 scripts/phones_load.py --binary .build-release/release/healthbridge --url postgres://… [--phones 1000]
"""
import argparse
import concurrent.futures
import datetime as dt
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "IntegrationTests"))
from hbapi import PinnedClient, Server, stop_and_drop  # noqa: E402

METRICS = [("step_count", "count", (0, 140)), ("active_energy", "kcal", (0, 12)),
           ("walking_running_distance", "km", (0, 0.11))]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] if ordered else float("nan")


def payload(phone, hour_start):
    """An hour of minute-level data of one phone, as HAE's JSON; every item is one sample."""
    rng = random.Random(phone)
    source = "Phone %04d" % phone
    metrics = []
    for name, units, (low, high) in METRICS:
        data = []
        for minute in range(60):
            at = hour_start + dt.timedelta(minutes=minute)
            data.append({"date": at.strftime("%Y-%m-%d %H:%M:%S +0000"), "qty": round(rng.uniform(low, high), 3),
                         "source": source})
        metrics.append({"name": name, "units": units, "data": data})
    heart = []
    for minute in range(60):
        at = hour_start + dt.timedelta(minutes=minute)
        avg = rng.randint(60, 120)
        heart.append({"date": at.strftime("%Y-%m-%d %H:%M:%S +0000"), "Min": avg - 5, "Avg": avg, "Max": avg + 9,
                      "source": source})
    metrics.append({"name": "heart_rate", "units": "count/min", "data": heart})
    return json.dumps({"data": {"metrics": metrics, "workouts": []}}).encode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--url", required=True, help="postgres:// URL of a database (a schema of its own is made)")
    parser.add_argument("--psql", default="psql")
    parser.add_argument("--phones", type=int, default=1000)
    # The paired API takes at most 64 connections from one address (PairedAPIServer.maxConnectionsPerAddress): on
    # loopback every phone and reader is 127.0.0.1, so workers + readers stay below it (phones come from many).
    parser.add_argument("--workers", type=int, default=12)
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--reader-pause", type=float, default=1.0,
                        help="seconds each reader waits between two questions (a dashboard's refresh)")
    parser.add_argument("--kill-at", type=float, default=0.5, help="kill server 1 after this share of the pushes")
    args = parser.parse_args()

    schema = "phones_%d" % os.getpid()
    store = args.url + ("&" if "?" in args.url else "?") + "schema=" + schema
    work = tempfile.mkdtemp(prefix="hb-phones-")
    servers = []
    failures = []
    try:
        home = os.path.join(work, "home")
        os.makedirs(home, mode=0o700)
        run = lambda *a: subprocess.run([args.binary, *a, "--home", home, "--store", store], check=True,  # noqa: E731
                                        capture_output=True, text=True).stdout
        run("grants", "device:*", "--allow-read", "stepCount")
        started = time.time()

        def create(phone):
            return json.loads(run("ingest-token", "create", "phone-%04d" % phone, "--json"))["token"]

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            tokens = list(pool.map(create, range(args.phones)))
        print("%d ingest tokens in %.1f s" % (len(tokens), time.time() - started), flush=True)
        for _ in (1, 2):
            servers.append(Server(args.binary, home, args=[
                "--store", store, "--api-port", str(free_port()), "--api-bind", "127.0.0.1", "--mcp-port",
                str(free_port()), "--no-console", "--no-advertise", "--rate-limit", "0"]))
        endpoints = [("127.0.0.1", s.info["port"], s.info["fingerprint"]) for s in servers]
        reader_token = PinnedClient(*endpoints[1]).pair(servers[1].pair_code(), "reader")["token"]

        hour = dt.datetime.now(dt.timezone.utc).replace(minute=0, second=0, microsecond=0) - dt.timedelta(hours=2)
        payloads = [payload(phone, hour) for phone in range(args.phones)]
        items = sum(60 * (len(METRICS) + 1) for _ in payloads)
        print("%d payloads of %d items (%.0f KB each)" % (len(payloads), items // len(payloads),
                                                           len(payloads[0]) / 1024), flush=True)

        killed = threading.Event()
        done = []
        lock = threading.Lock()
        inserted = [0]
        push_latencies = []
        retries = [0]

        def push(phone):
            """Pushes until acknowledged: server phone % 2 first, the other one after a failure."""
            order = [phone % 2, 1 - phone % 2]
            for attempt in range(6):
                target = order[attempt % 2]
                if target == 0 and killed.is_set():
                    target = 1
                client = PinnedClient(*endpoints[target], token=tokens[phone], timeout=60)
                t0 = time.time()
                try:
                    status, _, answer = client.request("POST", "/api/v1/ingest/health-auto-export", payloads[phone])
                except OSError:
                    status, answer = None, None
                finally:
                    client.close()
                if status == 200:
                    with lock:
                        push_latencies.append(time.time() - t0)
                        inserted[0] += answer["inserted"]
                        done.append(phone)
                    return
                with lock:
                    retries[0] += 1
                time.sleep(0.2)
            with lock:
                failures.append("phone %d: no push acknowledged (last status %s %s)" % (phone, status, answer))

        stop_readers = threading.Event()
        read_latencies = []
        read_errors = []
        day = hour.strftime("%Y-%m-%d")

        def reader(index):
            client = PinnedClient(*endpoints[1], token=reader_token, timeout=60)
            path = "/api/v1/health/statistics?type=stepCount&start=%s&end=%s&interval=hour&time_zone=UTC" % (day, day)
            while not stop_readers.is_set():
                t0 = time.time()
                try:
                    status, _, _ = client.request("GET", path)
                except OSError as error:
                    status = str(error)
                with lock:
                    if status == 200:
                        read_latencies.append(time.time() - t0)
                    else:
                        read_errors.append(status)
                time.sleep(args.reader_pause)
            client.close()

        readers = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(args.readers)]
        for thread in readers:
            thread.start()
        kill_after = int(args.phones * args.kill_at)

        def killer():
            while len(done) < kill_after:
                time.sleep(0.01)
            servers[0].process.send_signal(signal.SIGKILL)
            servers[0].process.wait()
            killed.set()
            print("server 1 killed after %d acknowledged pushes" % len(done), flush=True)

        kill_thread = threading.Thread(target=killer, daemon=True)
        kill_thread.start()
        load_start = time.time()
        with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
            list(pool.map(push, range(args.phones)))
        load_seconds = time.time() - load_start
        stop_readers.set()
        for thread in readers:
            thread.join(timeout=60)

        print("pushes    %d phones in %.1f s = %.1f pushes/s, %.0f records/s; push p50 %.0f ms, p99 %.0f ms; %d retries"
              % (len(done), load_seconds, len(done) / load_seconds, items / load_seconds,
                 percentile(push_latencies, 0.5) * 1000, percentile(push_latencies, 0.99) * 1000, retries[0]),
              flush=True)
        print("readers   %d readers, %d statistics answers: p50 %.0f ms, p99 %.0f ms; %d errors %s"
              % (args.readers, len(read_latencies), percentile(read_latencies, 0.5) * 1000,
                 percentile(read_latencies, 0.99) * 1000, len(read_errors), sorted(set(map(str, read_errors)))[:5]),
              flush=True)

        # Nothing lost, nothing doubled.
        sql = ("SELECT s.name, count(*), count(DISTINCT x.uuid) FROM %s.samples x JOIN %s.sources s ON s.id = x.source_id "
               "GROUP BY s.name" % (schema, schema))
        rows = subprocess.run([args.psql, args.url.split("?")[0], "-At", "-F", "\t", "-c", sql], check=True,
                              capture_output=True, text=True).stdout.split("\n")
        per_source = {}
        for row in filter(None, rows):
            name, count, distinct = row.split("\t")
            per_source[name] = (int(count), int(distinct))
        expected = 60 * (len(METRICS) + 1)
        stored = sum(count for count, _ in per_source.values())
        wrong = {name: c for name, c in per_source.items() if c != (expected, expected)}
        missing = [p for p in range(args.phones) if "Health Auto Export (ingest:phone-%04d)" % p not in per_source]
        print("store     %d samples from %d phones (%d each expected); servers said inserted %d"
              % (stored, len(per_source), expected, inserted[0]), flush=True)
        if wrong or missing:
            failures.append("per phone counts differ: %s; missing phones %s (sources: %s)"
                            % (list(wrong.items())[:5], missing[:5], sorted(per_source)[:5]))
        if stored != inserted[0]:
            failures.append("the servers acknowledged %d inserted samples, the store holds %d" % (inserted[0], stored))
        again = 0
        for phone in random.sample(range(args.phones), min(50, args.phones)):
            client = PinnedClient(*endpoints[1], token=tokens[phone], timeout=60)
            status, _, answer = client.request("POST", "/api/v1/ingest/health-auto-export", payloads[phone])
            client.close()
            if status != 200:
                failures.append("a repeated push answered %s %s" % (status, answer))
                break
            again += answer["inserted"]
        if again:
            failures.append("pushing phones' payloads again inserted %d samples" % again)
        else:
            print("again     %d phones pushed again: nothing new stored" % min(50, args.phones), flush=True)
    finally:
        stop_and_drop(servers, work, args.psql, args.url, schema)
    if failures:
        for failure in failures:
            print("FAIL " + failure)
        sys.exit(1)
    print("ok: nothing lost or doubled")


if __name__ == "__main__":
    main()
