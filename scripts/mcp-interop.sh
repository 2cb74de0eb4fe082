#!/usr/bin/env bash
# Interop check of `healthbridge mcp` with the official Python MCP client (see scripts/mcp_interop.py).
# Creates .venv-mcp with `mcp` and `jsonschema`, builds healthbridge (debug), fills a temporary store with
# `healthbridge demo --days 30`, then runs the checks. SWIFT_SCRATCH_PATH selects another build folder.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/mcp-venv.sh

scratch=()
if [ -n "${SWIFT_SCRATCH_PATH:-}" ]; then scratch=(--scratch-path "$SWIFT_SCRATCH_PATH"); fi
swift build "${scratch[@]}" --product healthbridge
binary="$(swift build "${scratch[@]}" --show-bin-path)/healthbridge"

home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
"$binary" demo --days 30 --home "$home" --json >/dev/null

"$venv/bin/python" scripts/mcp_interop.py --binary "$binary" --home "$home" "$@"
