#!/usr/bin/env bash
# MCP per-call benchmark (scripts/mcp_bench.py), in both protocol eras (2025 and 2026-07-28): healthbridge mcp against
# a Python FastMCP server with a `latest` tool
# on the same store, 200 sequential calls of the official Python client each, in one run. Release build; demo data.
#
#   scripts/mcp-bench.sh [--rounds 5] [--calls 200]
. "$(dirname "$0")/lib.sh"

hb_venv .venv-mcp mcp jsonschema
binary="$(hb_release_binary)"

home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
"$binary" demo --days 30 --home "$home" --json >/dev/null

"$venv/bin/python" scripts/mcp_bench.py --binary "$binary" --home "$home" "$@"
