#!/usr/bin/env bash
# Interop check of `healthbridge mcp` with the official Python MCP client (see IntegrationTests/mcp_interop.py).
# A venv .venv-mcp with `mcp` and `jsonschema`, the debug healthbridge (scripts/lib.sh: $HEALTHBRIDGE_BINARY, or built
# once), a temporary store filled with `healthbridge demo --days 30`, then the checks.
. "$(dirname "$0")/../scripts/lib.sh"

hb_venv .venv-mcp mcp jsonschema
binary="$(hb_binary)"

home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
"$binary" demo --days 30 --home "$home" --json >/dev/null

"$venv/bin/python" IntegrationTests/mcp_interop.py --binary "$binary" --home "$home" "$@"
