#!/usr/bin/env bash
# MCP per-call benchmark (scripts/mcp_bench.py): healthbridge mcp against a Python FastMCP server with a `latest` tool
# on the same store, 200 sequential calls of the official Python client each, in one run. Release build; demo data.
#
#   scripts/mcp-bench.sh [--rounds 5] [--calls 200]
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/mcp-venv.sh

swift build -c release --product healthbridge >&2
binary="$(swift build -c release --show-bin-path)/healthbridge"

home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
"$binary" demo --days 30 --home "$home" --json >/dev/null

"$venv/bin/python" scripts/mcp_bench.py --binary "$binary" --home "$home" "$@"
