#!/usr/bin/env bash
# Soak: `healthbridge serve` (demo data) under 50 paired HTTPS clients, MCP calls over HTTP and an import repeated
# every few seconds, for a bounded time. Fails on any error, on RSS or open files that keep growing, or on a data
# read without its audit row. Prints the figures.
#
# Usage: scripts/soak.sh [SECONDS (default 300)] [CLIENTS (default 50)]
#   SOAK_BINARY   a healthbridge binary to use (default: builds and uses the debug one)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
clients=${2:-50}
binary=${SOAK_BINARY:-}
if [ -z "$binary" ]; then
  swift build --product healthbridge
  binary="$(swift build --show-bin-path)/healthbridge"
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
python3 scripts/soak.py --binary "$(readlink -f "$binary")" --home "$home" --seconds "$seconds" --clients "$clients" \
  --fixture "${SOAK_FIXTURE:-../shared/fixtures/realistic-v14-export.xml}"
