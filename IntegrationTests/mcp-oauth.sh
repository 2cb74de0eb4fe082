#!/usr/bin/env bash
# OAuth for the MCP endpoint with the official Python client's own OAuth support (issue 26): `serve` on loopback with
# --mcp-public-url and --oauth-client-ca, the client identified by a Client ID Metadata Document on a loopback https
# server (its self-signed certificate made with openssl), the consent page answered in headless Chromium (Debian's
# chromium and chromium-driver, Selenium), then reads, refresh, revocation, a token for another resource and a short
# dynamic-registration leg. See IntegrationTests/mcp_oauth.py.
# Usage: IntegrationTests/mcp-oauth.sh [path/to/healthbridge]
. "$(dirname "$0")/../scripts/lib.sh"

binary="${1:-$(hb_binary)}"
hb_apt chromium chromium-driver
hb_need openssl openssl
hb_venv .venv-mcp-oauth mcp==2.3.0 selenium
HEALTHBRIDGE_LOG_LEVEL=warning "$venv/bin/python" IntegrationTests/mcp_oauth.py "$binary"
