#!/usr/bin/env bash
# Interop check of `healthbridge mcp` with the official Python MCP client (see IntegrationTests/mcp_interop.py).
# Both protocol eras: 2025 (initialize, sessions) and 2026-07-28 (server/discover, stateless), over stdio and HTTP.
# A venv .venv-mcp with `mcp` (pinned: the client whose strictness is the reference) and `jsonschema`, the debug healthbridge (scripts/lib.sh: $HEALTHBRIDGE_BINARY, or built
# once), a temporary store filled with `healthbridge demo --days 30`, then the checks.
. "$(dirname "$0")/../scripts/lib.sh"

hb_venv .venv-mcp mcp==2.3.0 jsonschema
binary="$(hb_binary)"

home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
"$binary" demo --days 30 --home "$home" --json >/dev/null

"$venv/bin/python" IntegrationTests/mcp_interop.py --binary "$binary" --home "$home" "$@"
