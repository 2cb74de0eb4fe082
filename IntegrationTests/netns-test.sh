#!/usr/bin/env bash
# Real-network tests of the export API's address-based defences, between network namespaces (needs root and
# iproute2): a LAN 10.77.0.0/24 on a bridge (server .1, clients .2 and .3) and, behind a router, an off-link host
# 10.78.0.2. Traffic stays inside these namespaces. They are always removed, whatever happens.
#
#   - per-address connection cap: client A holds 64 connections and gets no more; client B still gets answers;
#   - pairing lockout per address: A sends five wrong codes and is locked out; B pairs with the code;
#   - failed-auth throttle per address: A's bad tokens end in 429 while B's token still works;
#   - mDNS: a unicast query from the on-link client is answered, the same query from the off-link host is not;
#   - a remote MCP agent (issue 26): a second serve with MCP on 10.77.0.1 over TLS (--mcp-tls, its own data
#     directory); from A the official Python MCP client (the venv of mcp-interop.sh, mcp==2.3.0) trusts only the
#     server's certificate and works in both protocol eras; plain http, a wrong token and a client that does not
#     trust the certificate are refused (IntegrationTests/netns_mcp_agent.py). Plain HTTP beyond loopback does not
#     start, and the console stays on loopback.
#
# Usage: IntegrationTests/netns-test.sh [path/to/healthbridge]   (default: scripts/lib.sh's debug binary)
. "$(dirname "$0")/../scripts/lib.sh"

if [ "$(id -u)" != 0 ]; then echo "netns-test.sh: needs root (ip netns)" >&2; exit 1; fi
hb_need ip iproute2
binary=$(readlink -f "${1:-$(hb_binary)}")
# The remote agent's client: the same venv and pins as IntegrationTests/mcp-interop.sh (created on a fresh machine).
hb_venv .venv-mcp mcp==2.3.0 jsonschema
agent_python="$(cd "$venv" && pwd)/bin/python"

tag="hb$$"
ns_rt="$tag-rt"; ns_srv="$tag-srv"; ns_a="$tag-a"; ns_b="$tag-b"; ns_far="$tag-far"
home=$(mktemp -d)
mcp_home=$(mktemp -d)
cleanup() {
  set +e
  if [ -n "${server_pid:-}" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  if [ -n "${mcp_pid:-}" ]; then kill "$mcp_pid" 2>/dev/null; wait "$mcp_pid" 2>/dev/null; fi
  for ns in "$ns_rt" "$ns_srv" "$ns_a" "$ns_b" "$ns_far"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$home" "$mcp_home"
}
trap cleanup EXIT INT TERM

for ns in "$ns_rt" "$ns_srv" "$ns_a" "$ns_b" "$ns_far"; do
  ip netns add "$ns"
  ip -n "$ns" link set lo up
done
# The router holds the LAN bridge (10.77.0.254) and the far link (10.78.0.1), and forwards between them.
ip -n "$ns_rt" link add br0 type bridge
ip -n "$ns_rt" addr add 10.77.0.254/24 dev br0
ip -n "$ns_rt" link set br0 up
i=0
for pair in "$ns_srv:10.77.0.1" "$ns_a:10.77.0.2" "$ns_b:10.77.0.3"; do
  ns=${pair%%:*}; address=${pair##*:}; i=$((i + 1))
  ip link add "$tag-p$i" type veth peer name "$tag-q$i"
  ip link set "$tag-p$i" netns "$ns_rt"
  ip link set "$tag-q$i" netns "$ns"
  ip -n "$ns_rt" link set "$tag-p$i" master br0 up
  ip -n "$ns" link set "$tag-q$i" name eth0
  ip -n "$ns" addr add "$address/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" route add default via 10.77.0.254
done
ip link add "$tag-pf" type veth peer name "$tag-qf"
ip link set "$tag-pf" netns "$ns_rt"
ip link set "$tag-qf" netns "$ns_far"
ip -n "$ns_rt" addr add 10.78.0.1/24 dev "$tag-pf"
ip -n "$ns_rt" link set "$tag-pf" up
ip -n "$ns_far" link set "$tag-qf" name eth0
ip -n "$ns_far" addr add 10.78.0.2/24 dev eth0
ip -n "$ns_far" link set eth0 up
ip -n "$ns_far" route add default via 10.78.0.1
ip netns exec "$ns_rt" sysctl -qw net.ipv4.ip_forward=1
# Multicast for the responder's group join.
ip -n "$ns_srv" route add 224.0.0.0/4 dev eth0

HEALTHBRIDGE_LOG_LEVEL=warning "$binary" demo --days 5 --home "$home" --json >/dev/null
ip netns exec "$ns_srv" "$binary" serve --home "$home" --port 18080 --api-port 18443 --api-bind 10.77.0.1 \
  > "$home/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
  [ -f "$home/export-server.json" ] && break
  sleep 0.2
done
[ -f "$home/export-server.json" ] || { echo "netns-test: serve did not start" >&2; cat "$home/serve.log" >&2; exit 1; }

status=0
python3 IntegrationTests/netns_checks.py --binary "$binary" --home "$home" --ns-server "$ns_srv" --ns-a "$ns_a" \
  --ns-b "$ns_b" --ns-far "$ns_far" || status=1

# The remote MCP agent. First: plain HTTP beyond loopback does not start.
if ip netns exec "$ns_srv" "$binary" serve --home "$mcp_home" --mcp-bind 10.77.0.1 --mcp-port 18081 --no-api \
  > "$mcp_home/refused.log" 2>&1; then
  echo "FAIL plain-HTTP MCP on 10.77.0.1 started"; status=1
elif grep -q -- "--mcp-tls" "$mcp_home/refused.log"; then
  echo "ok   plain-HTTP MCP on 10.77.0.1 refused, naming --mcp-tls"
else
  echo "FAIL plain-HTTP MCP refusal does not name --mcp-tls: $(head -c 400 "$mcp_home/refused.log")"; status=1
fi
HEALTHBRIDGE_LOG_LEVEL=warning "$binary" demo --days 5 --home "$mcp_home" --json >/dev/null
ip netns exec "$ns_srv" "$binary" serve --home "$mcp_home" --mcp-bind 10.77.0.1 --mcp-port 18081 --mcp-tls --no-api \
  --oauth-dynamic-registration > "$mcp_home/serve.log" 2>&1 &
mcp_pid=$!
for _ in $(seq 1 300); do
  [ -f "$mcp_home/console.json" ] && grep -q "TLS certificate SHA-256" "$mcp_home/serve.log" && break
  sleep 0.2
done
if grep -q "HealthBridge MCP endpoint: https://10.77.0.1:18081/mcp" "$mcp_home/serve.log"; then
  echo "ok   serve --mcp-tls prints https://10.77.0.1:18081/mcp and the certificate's SHA-256"
  origin=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["origin"])' "$mcp_home/console.json")
  case "$origin" in
    http://127.*) echo "ok   the console stays on loopback ($origin) while MCP listens on 10.77.0.1" ;;
    *) echo "FAIL the console is not on loopback: $origin"; status=1 ;;
  esac
  ip netns exec "$ns_a" "$agent_python" IntegrationTests/netns_mcp_agent.py --url https://10.77.0.1:18081/mcp \
    --cert "$mcp_home/tls/export-cert.pem" --token-file "$mcp_home/mcp-token" --consent-check || status=1
else
  echo "FAIL serve --mcp-tls on 10.77.0.1 did not start"; cat "$mcp_home/serve.log"; status=1
fi
exit $status
