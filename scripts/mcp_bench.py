#!/usr/bin/env python3
"""MCP per-call benchmark: 200 sequential `latest` calls of the official Python MCP client over stdio against
`healthbridge mcp` and against a plain Python FastMCP server (scripts/fastmcp_latest.py) on the same SQLite store,
in one run, alternating, best and median of `--rounds` timings each.

    python scripts/mcp_bench.py --binary .build/release/healthbridge --home /tmp/hb [--calls 200] [--rounds 5]
"""
import argparse
import asyncio
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))


async def timed(params, calls, arguments):
    """Seconds for `calls` sequential tools/call round trips, after the handshake and five warm-up calls."""
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for _ in range(5):
                await session.call_tool("latest", arguments)
            started = time.perf_counter()
            for _ in range(calls):
                result = await session.call_tool("latest", arguments)
                if getattr(result, "isError", getattr(result, "is_error", False)):
                    sys.exit(f"{params.command}: the call failed: {result.content}")
            return time.perf_counter() - started


async def run(args):
    store = os.path.join(args.home, "health.sqlite")
    servers = {
        "healthbridge": StdioServerParameters(command=args.binary, args=["mcp", "--home", args.home]),
        "python FastMCP": StdioServerParameters(command=sys.executable,
                                                args=[os.path.join(HERE, "fastmcp_latest.py"), store]),
    }
    timings = {name: [] for name in servers}
    for round_index in range(args.rounds):
        order = list(servers) if round_index % 2 == 0 else list(reversed(servers))
        for name in order:
            timings[name].append(await timed(servers[name], args.calls, {"type": args.type}))
    print(f"{args.calls} sequential tools/call `latest {args.type}` over stdio, {args.rounds} rounds (alternating):")
    for name, values in timings.items():
        print(f"  {name:<16} best {min(values):.3f} s  median {statistics.median(values):.3f} s  "
              f"({min(values) / args.calls * 1000:.2f} ms/call)  all: " + ", ".join(f"{v:.3f}" for v in values))
    ours, theirs = min(timings["healthbridge"]), min(timings["python FastMCP"])
    print(f"healthbridge / python FastMCP (best): {ours / theirs:.2f}; "
          f"median: {statistics.median(timings['healthbridge']) / statistics.median(timings['python FastMCP']):.2f}")


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
