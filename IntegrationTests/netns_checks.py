#!/usr/bin/env python3
"""The checks of IntegrationTests/netns-test.sh. Each client runs inside its namespace (`ip netns exec NS python3 -c …`), so
the server sees the namespaces' own addresses: 10.77.0.2 (A), 10.77.0.3 (B), 10.78.0.2 (off-link)."""
import argparse
import json
import os
import subprocess
import sys
import textwrap

parser = argparse.ArgumentParser()
for name in ("binary", "home", "ns-server", "ns-a", "ns-b", "ns-far"):
    parser.add_argument("--" + name, required=True)
args = parser.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
info = json.load(open(os.path.join(args.home, "export-server.json")))
HOST, PORT, FP = "10.77.0.1", info["port"], info["fingerprint"]
failures = []


def run_in(ns, code, timeout=120):
    """Runs Python `code` in namespace `ns` with hbapi importable; returns its JSON output."""
    prelude = "import sys, json, time, socket\nsys.path.insert(0, %r)\nfrom hbapi import PinnedClient\n" % here
    result = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", prelude + textwrap.dedent(code)],
                            capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError("in %s: %s" % (ns, result.stderr[-2000:]))
    return json.loads(result.stdout.strip().splitlines()[-1])


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ((": " + str(detail)) if detail and not condition else ""))
    if not condition:
        failures.append(name)


def pair_code():
    out = subprocess.run([args.binary, "pair-code", "--home", args.home, "--json", "--host", HOST],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["code"]


common = "HOST, PORT, FP = %r, %d, %r\n" % (HOST, PORT, FP)

# 1. Pairing lockout is per address.
code = pair_code()
a = run_in(args.ns_a, common + """
statuses = []
client = PinnedClient(HOST, PORT, FP)
wrong = 0
while wrong < 5:
    status, headers, body = client.request("POST", "/api/v1/pair", {"code": "WRNG" + str(wrong).zfill(4), "clientName": "a"})
    statuses.append(status)
    if status == 429:
        time.sleep(int(headers.get("retry-after", "1")))
        continue
    wrong += 1
status, headers, body = client.request("POST", "/api/v1/pair", {"code": %r, "clientName": "a"})
print(json.dumps({"statuses": statuses, "final": status, "code": (body or {}).get("error", {}).get("code")}))
""" % code)
check("A's five wrong codes answered 401", a["statuses"].count(401) == 5, a)
check("A is then locked out (429) even with the right code", a["final"] == 429, a)
b = run_in(args.ns_b, common + """
client = PinnedClient(HOST, PORT, FP)
status, headers, body = client.request("POST", "/api/v1/pair", {"code": %r, "clientName": "b"})
print(json.dumps({"status": status, "token": (body or {}).get("token")}))
""" % code)
check("B pairs with the same code", b["status"] == 200, b)
token_b = b.get("token") or ""

# 2. Failed authentication is throttled per address.
a = run_in(args.ns_a, common + """
client = PinnedClient(HOST, PORT, FP, token="forged-token-" + str(time.time()))
statuses = [client.request("GET", "/api/v1/status")[0] for _ in range(30)]
print(json.dumps({"statuses": statuses}))
""")
check("A's bad tokens end in 429", a["statuses"][-1] == 429 and 401 in a["statuses"], a)
b = run_in(args.ns_b, common + """
client = PinnedClient(HOST, PORT, FP, token=%r)
print(json.dumps({"status": client.request("GET", "/api/v1/status")[0]}))
""" % token_b)
check("B's token still works meanwhile", b["status"] == 200, b)

# 3. Per-address connection cap: A holds 64 idle TCP connections; the 65th is closed at once; B is served.
a_and_b = run_in(args.ns_a, common + """
import subprocess, ssl
held = []
for _ in range(64):
    s = socket.create_connection((HOST, PORT), timeout=5)
    held.append(s)
time.sleep(0.5)
extra = socket.create_connection((HOST, PORT), timeout=5)
extra.settimeout(3)
try:
    closed = extra.recv(1) == b""
except (ConnectionResetError, socket.timeout) as error:
    closed = isinstance(error, ConnectionResetError)
alive = 0
for s in held:
    s.setblocking(False)
    try:
        alive += 1 if s.recv(1) else 0
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
b = subprocess.run(["ip", "netns", "exec", %r, sys.executable, "-c",
    "import sys, json; sys.path.insert(0, %r); from hbapi import PinnedClient; "
    "c = PinnedClient(%r, %d, %r, token=%r); print(json.dumps(c.request('GET', '/api/v1/status')[0]))"],
    capture_output=True, text=True)
print(json.dumps({"closed": closed, "alive": alive, "b": b.stdout.strip() or b.stderr[-300:]}))
""" % (args.ns_b, here, HOST, PORT, FP, token_b))
check("A's 65th connection is closed", a_and_b["closed"], a_and_b)
check("A's first 64 stay open", a_and_b["alive"] == 64, a_and_b)
check("B is served while A holds its share", a_and_b["b"] == "200", a_and_b)

# 4. mDNS: a legacy unicast PTR query to 10.77.0.1:5353, on-link (A) and off-link (far host).
mdns = """
def name(labels):
    return b"".join(bytes([len(l)]) + l for l in labels) + b"\\0"
import struct
query = struct.pack(">HHHHHH", 0x4242, 0, 1, 0, 0, 0) + name([b"_healthsync", b"_tcp", b"local"]) + struct.pack(">HH", 12, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(query, (%r, 5353))
try:
    data, sender = s.recvfrom(9000)
    print(json.dumps({"answered": True, "bytes": len(data)}))
except socket.timeout:
    print(json.dumps({"answered": False, "bytes": 0}))
""" % HOST
on = run_in(args.ns_a, mdns)
far = run_in(args.ns_far, mdns)
# The far host does reach the server (through the router): only the mDNS answer is withheld.
reach = run_in(args.ns_far, common + """
client = PinnedClient(HOST, PORT, FP)
print(json.dumps({"status": client.request("GET", "/api/v1/status")[0]}))
""")
check("the off-link host reaches the server over the router", reach["status"] == 401, reach)
check("mDNS answers the on-link client", on["answered"], on)
check("mDNS ignores the off-link host", not far["answered"], far)

print("netns-test: %d checks failed" % len(failures) if failures else "netns-test: all checks passed")
sys.exit(1 if failures else 0)
