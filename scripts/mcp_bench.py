#!/usr/bin/env python3
"""MCP per-call benchmark: 200 sequential `latest` calls of the official Python MCP client over stdio against
`healthbridge mcp` and against a plain Python FastMCP server (scripts/fastmcp_latest.py) on the same SQLite store,
in both protocol eras (2025: the `initialize` handshake and its session; 2026-07-28: `server/discover`, stateless
requests), in one run, alternating, best and median of `--rounds` timings each, and per-call p50/p99.

    python scripts/mcp_bench.py --binary .build/release/healthbridge --home /tmp/hb [--calls 200] [--rounds 5]
"""
import argparse
import asyncio
import os
import statistics
import sys
import time

from mcp import Client, StdioServerParameters

HERE = os.path.dirname(os.path.abspath(__file__))


ERAS = {"2025": "legacy", "2026-07-28": "2026-07-28"}


async def timed(params, calls, arguments, mode):
    """Seconds for `calls` sequential tools/call round trips after the handshake and five warm-up calls, the
    per-call latencies, and the protocol version negotiated."""
    async with Client(params, mode=mode) as client:
        for _ in range(5):
            await client.call_tool("latest", arguments)
        latencies = []
        started = time.perf_counter()
        for _ in range(calls):
            t0 = time.perf_counter()
            result = await client.call_tool("latest", arguments)
            latencies.append(time.perf_counter() - t0)
            if getattr(result, "isError", getattr(result, "is_error", False)):
                sys.exit(f"{params.command}: the call failed: {result.content}")
        return time.perf_counter() - started, latencies, client.protocol_version


def pick(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000


async def run(args):
    store = os.path.join(args.home, "health.sqlite")
    servers = {
        "healthbridge": StdioServerParameters(command=args.binary, args=["mcp", "--home", args.home]),
        "python FastMCP": StdioServerParameters(command=sys.executable,
                                                args=[os.path.join(HERE, "fastmcp_latest.py"), store]),
    }
    for era, mode in ERAS.items():
        timings = {name: [] for name in servers}
        latencies = {name: [] for name in servers}
        versions = {name: set() for name in servers}
        for round_index in range(args.rounds):
            order = list(servers) if round_index % 2 == 0 else list(reversed(servers))
            for name in order:
                seconds, calls, version = await timed(servers[name], args.calls, {"type": args.type}, mode)
                timings[name].append(seconds)
                latencies[name] += calls
                versions[name].add(version)
        print(f"{era}: {args.calls} sequential tools/call `latest {args.type}` over stdio, {args.rounds} rounds (alternating):")
        for name, values in timings.items():
            print(f"  {name:<16} best {min(values):.3f} s  median {statistics.median(values):.3f} s  "
                  f"({min(values) / args.calls * 1000:.2f} ms/call)  p50 {pick(latencies[name], 0.5):.2f} ms  "
                  f"p99 {pick(latencies[name], 0.99):.2f} ms  protocol {', '.join(sorted(map(str, versions[name])))}")
        ours, theirs = min(timings["healthbridge"]), min(timings["python FastMCP"])
        print(f"  healthbridge / python FastMCP (best): {ours / theirs:.2f}; "
              f"median: {statistics.median(timings['healthbridge']) / statistics.median(timings['python FastMCP']):.2f}; "
              f"p50: {pick(latencies['healthbridge'], 0.5) / pick(latencies['python FastMCP'], 0.5):.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--type", default="bodyMass")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
